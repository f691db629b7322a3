//! `bias_act`: `z += bias` (broadcast over the rows), then `out = act(z)`: the epilogue of a
//! dense layer.

use super::compose::assign;
use crate::check::{buffer_len, elements};
use crate::{Activation, Backend, BinaryOp, Primitives, Result, Shape, UnaryOp};

/// What [`bias_act`](crate::BiasActOp::bias_act) reads besides the pre-activation `z`.
pub struct BiasAct<'a, S> {
    /// The bias, `[cols]`, broadcast over the rows.
    pub bias: &'a S,
    /// Rows of `z` and `out`.
    pub rows: usize,
    /// Columns of `z` and `out`.
    pub cols: usize,
    /// The activation applied after the bias.
    pub act: Activation,
}

/// The fused operation `bias_act`; see [the fused operations](crate::fused).
pub trait BiasActOp: Primitives {
    /// `z += bias` (bias broadcast over the `rows x cols` matrix `z`), then `out = act(z)`.
    /// Default: [`composed`].
    fn bias_act(
        &self,
        p: BiasAct<'_, Self::Storage>,
        z: &mut Self::Storage,
        out: &mut Self::Storage,
    ) -> Result<()>;
}

/// Checks the buffers of a `rows x cols` call, by their lengths: `z` and `out` hold
/// `rows * cols` elements, `bias` `cols`. Returns `rows * cols`; the error is
/// [`Error::BufferLength`](crate::Error) (or `InvalidArgument` when the product overflows),
/// the same from every backend.
#[inline]
pub fn check(rows: usize, cols: usize, [bias, z, out]: [usize; 3]) -> Result<usize> {
    let n = elements("bias_act", rows, cols)?;
    buffer_len("bias_act", "z", z, n)?;
    buffer_len("bias_act", "bias", bias, cols)?;
    buffer_len("bias_act", "out", out, n)?;
    Ok(n)
}

/// The default [`BiasActOp::bias_act`]: a broadcast add, then
/// the activation.
pub fn composed<B: Backend>(
    b: &B,
    p: BiasAct<'_, B::Storage>,
    z: &mut B::Storage,
    out: &mut B::Storage,
) -> Result<()> {
    let BiasAct {
        bias,
        rows,
        cols,
        act,
    } = p;
    let lens = [b.storage_len(bias), b.storage_len(z), b.storage_len(out)];
    check(rows, cols, lens)?;
    let (matrix, row) = (Shape::new([rows, cols]), Shape::new([cols]));
    assign(b, BinaryOp::Add, (z, &matrix), (bias, &row))?;
    b.unary(UnaryOp::Act(act), z, out)
}

#[cfg(feature = "testing")]
impl<B: Backend> BiasActOp for crate::testing::Composed<B> {
    fn bias_act(
        &self,
        p: BiasAct<'_, Self::Storage>,
        z: &mut Self::Storage,
        out: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, z, out)
    }
}
