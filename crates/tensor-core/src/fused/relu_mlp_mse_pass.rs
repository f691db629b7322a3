//! `relu_mlp_mse_pass`: a whole training pass of a ReLU network with a mean-squared-error
//! loss, for backends that have one fused (see [`mlp_pass`](crate::mlp_pass)).

use crate::mlp_pass::{MlpPass, MlpPassOut, unfused};
use crate::{Primitives, Result};

/// The fused operation `relu_mlp_mse_pass`; see [the fused operations](crate::fused).
pub trait ReluMlpMsePassOp: Primitives {
    /// A whole training pass of a ReLU network with a mean-squared-error loss (see
    /// [`mlp_pass`](crate::mlp_pass)). Returns `Ok(false)` without writing anything when the
    /// backend has no fused version for this network: the caller then runs the layers one
    /// at a time. Shapes are checked by
    /// [`relu_mlp_mse_pass`](crate::mlp_pass::relu_mlp_mse_pass) before this is called.
    /// Default: [`composed`].
    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, Self::Storage>,
        out: MlpPassOut<'_, '_, Self::Storage>,
    ) -> Result<bool>;
}

/// The default [`ReluMlpMsePassOp::relu_mlp_mse_pass`]: no fused pass (`Ok(false)`, nothing
/// written), so the caller runs the layers one at a time.
pub fn composed<S>(pass: &MlpPass<'_, S>, out: MlpPassOut<'_, '_, S>) -> Result<bool> {
    unfused(pass, out)
}

#[cfg(feature = "testing")]
impl<B: crate::Backend> ReluMlpMsePassOp for crate::testing::Composed<B> {
    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, Self::Storage>,
        out: MlpPassOut<'_, '_, Self::Storage>,
    ) -> Result<bool> {
        composed(pass, out)
    }
}
