//! `gemm_bias_act`: a matrix product with the bias and activation fused in, a dense layer's
//! forward pass.

use crate::check::check_fused_gemm;
use crate::{Activation, Backend, BiasAct, Gemm, Primitives, Result};

/// What [`gemm_bias_act`](crate::GemmBiasActOp::gemm_bias_act) reads:
/// `c = act(alpha * op(A) op(B) + bias)`.
pub struct GemmBiasAct<'a, S> {
    /// The product's dimensions and flags; `beta` must be 0.
    pub gemm: Gemm,
    /// `A`, `m * k` elements.
    pub a: &'a S,
    /// `B`, `k * n` elements.
    pub b: &'a S,
    /// The bias, `[n]`, broadcast over the rows of the result.
    pub bias: &'a S,
    /// The activation applied last.
    pub act: Activation,
}

/// The fused operation `gemm_bias_act`; see [the fused operations](crate::fused).
pub trait GemmBiasActOp: Primitives {
    /// `c = act(alpha * op(A) op(B) + bias)`, the bias (`[n]`) broadcast over the rows of
    /// the `m x n` result: a dense layer's forward pass without its pre-activation.
    /// `p.gemm.beta` must be 0 (an [`Error::InvalidArgument`](crate::Error) otherwise). The
    /// result is the one [`gemm`](Primitives::gemm) into a buffer followed by
    /// [`bias_act`](crate::BiasActOp::bias_act) would give.
    /// Default: [`composed`].
    fn gemm_bias_act(&self, p: GemmBiasAct<'_, Self::Storage>, c: &mut Self::Storage)
    -> Result<()>;
}

/// The default [`GemmBiasActOp::gemm_bias_act`]: a GEMM into a
/// temporary, then [`bias_act`](crate::BiasActOp::bias_act).
pub fn composed<B: Backend>(
    b: &B,
    p: GemmBiasAct<'_, B::Storage>,
    c: &mut B::Storage,
) -> Result<()> {
    let GemmBiasAct {
        gemm,
        a,
        b: bm,
        bias,
        act,
    } = p;
    let op = "gemm_bias_act";
    let n = check_fused_gemm(b, op, &gemm, ("bias", bias, gemm.n), c)?;
    let mut z = b.alloc(n)?;
    b.gemm(gemm, a, bm, &mut z)?;
    let epilogue = BiasAct {
        bias,
        rows: gemm.m,
        cols: gemm.n,
        act,
    };
    b.bias_act(epilogue, &mut z, c)
}

#[cfg(feature = "testing")]
impl<B: Backend> GemmBiasActOp for crate::testing::Composed<B> {
    fn gemm_bias_act(
        &self,
        p: GemmBiasAct<'_, Self::Storage>,
        c: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, c)
    }
}
