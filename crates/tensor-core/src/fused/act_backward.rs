//! `act_backward`: `grad_z = grad_out * act'(z)`.

use super::compose::{flat, same_shape};
use crate::check::buffer_len;
use crate::{Activation, Backend, BinaryOp, Primitives, Result, UnaryOp};

/// The fused operation `act_backward`; see [the fused operations](crate::fused).
pub trait ActBackwardOp: Primitives {
    /// `grad_z = grad_out * act'(z)`.
    /// Default: [`composed`].
    fn act_backward(
        &self,
        grad_out: &Self::Storage,
        z: &Self::Storage,
        act: Activation,
        grad_z: &mut Self::Storage,
    ) -> Result<()>;
}

/// Checks the buffers of a call, by their lengths: `grad_out` and `grad_z` hold as many
/// elements as `z`. Returns that count; the error, [`Error::BufferLength`](crate::Error), is
/// the same from every backend.
#[inline]
pub fn check([grad_out, z, grad_z]: [usize; 3]) -> Result<usize> {
    buffer_len("act_backward", "grad_out", grad_out, z)?;
    buffer_len("act_backward", "grad_z", grad_z, z)?;
    Ok(z)
}

/// The default [`ActBackwardOp::act_backward`]: the derivative
/// into a temporary, then a product.
pub fn composed<B: Backend>(
    b: &B,
    grad_out: &B::Storage,
    z: &B::Storage,
    act: Activation,
    grad_z: &mut B::Storage,
) -> Result<()> {
    let n = check([
        b.storage_len(grad_out),
        b.storage_len(z),
        b.storage_len(grad_z),
    ])?;
    let mut d = b.alloc(n)?;
    b.unary(UnaryOp::ActGrad(act), z, &mut d)?;
    same_shape(b, BinaryOp::Mul, &flat(n), (grad_out, &d), grad_z)
}

#[cfg(feature = "testing")]
impl<B: Backend> ActBackwardOp for crate::testing::Composed<B> {
    fn act_backward(
        &self,
        grad_out: &Self::Storage,
        z: &Self::Storage,
        act: Activation,
        grad_z: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, grad_out, z, act, grad_z)
    }
}
