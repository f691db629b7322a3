//! `gemm_act_grad`: a matrix product multiplied by an activation's derivative, the gradient
//! through a dense layer's activation.

use crate::check::check_fused_gemm;
use crate::{Activation, Backend, Gemm, Primitives, Result};

/// What [`gemm_act_grad`](crate::GemmActGradOp::gemm_act_grad) reads:
/// `c = (alpha * op(A) op(B)) * act'(at)`.
pub struct GemmActGrad<'a, S> {
    /// The product's dimensions and flags; `beta` must be 0.
    pub gemm: Gemm,
    /// `A`, `m * k` elements.
    pub a: &'a S,
    /// `B`, `k * n` elements.
    pub b: &'a S,
    /// Where the activation's derivative is taken, `m * n` elements.
    pub at: &'a S,
    /// The activation whose derivative multiplies the product.
    pub act: Activation,
}

/// The fused operation `gemm_act_grad`; see [the fused operations](crate::fused).
pub trait GemmActGradOp: Primitives {
    /// `c = (alpha * op(A) op(B)) * act'(at)` element-wise, `at` having the shape of the
    /// `m x n` result: the gradient through an activation, fused into the matrix product
    /// that computes the gradient with respect to its output. For ReLU, `act'` at the
    /// activation's output equals `act'` at its input, so `at` may be either.
    /// `p.gemm.beta` must be 0. The result is the one [`gemm`](Primitives::gemm) into a
    /// buffer followed by [`act_backward`](crate::ActBackwardOp::act_backward) would give.
    /// Default: [`composed`].
    fn gemm_act_grad(&self, p: GemmActGrad<'_, Self::Storage>, c: &mut Self::Storage)
    -> Result<()>;
}

/// The default [`GemmActGradOp::gemm_act_grad`]: a GEMM into a
/// temporary, then [`act_backward`](crate::ActBackwardOp::act_backward).
pub fn composed<B: Backend>(
    b: &B,
    p: GemmActGrad<'_, B::Storage>,
    c: &mut B::Storage,
) -> Result<()> {
    let GemmActGrad {
        gemm,
        a,
        b: bm,
        at,
        act,
    } = p;
    let op = "gemm_act_grad";
    let n = check_fused_gemm(b, op, &gemm, ("at", at, gemm.m * gemm.n), c)?;
    let mut g = b.alloc(n)?;
    b.gemm(gemm, a, bm, &mut g)?;
    b.act_backward(&g, at, act, c)
}

#[cfg(feature = "testing")]
impl<B: Backend> GemmActGradOp for crate::testing::Composed<B> {
    fn gemm_act_grad(
        &self,
        p: GemmActGrad<'_, Self::Storage>,
        c: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, c)
    }
}
