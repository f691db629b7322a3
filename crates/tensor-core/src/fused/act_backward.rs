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

/// The default [`ActBackwardOp::act_backward`]: the derivative
/// into a temporary, then a product.
pub fn composed<B: Backend>(
    b: &B,
    grad_out: &B::Storage,
    z: &B::Storage,
    act: Activation,
    grad_z: &mut B::Storage,
) -> Result<()> {
    let n = b.storage_len(z);
    buffer_len("act_backward", "grad_out", b.storage_len(grad_out), n)?;
    buffer_len("act_backward", "grad_z", b.storage_len(grad_z), n)?;
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
