//! Gradient clipping by global norm, entirely on the device.

use crate::layer::Layer;
use crate::{Result, config_err};
use tensor_core::{Backend, BinaryOp, Tensor, UnaryOp};

/// Scales every gradient by `min(1, max_norm / ||g||)`, where `||g||` is the L2 norm of all
/// gradients together (as `torch.nn.utils.clip_grad_norm_`).
///
/// Nothing is read back to the host: the squared norm is accumulated with one
/// `1 x n x 1` GEMM per parameter, the factor is computed in a one-element tensor and
/// broadcast over each gradient. The buffers are kept between calls.
pub struct GradClipper<B: Backend> {
    max_norm: f32,
    sum_sq: Tensor<B>,
    limit: Tensor<B>,
    factor: Tensor<B>,
}

impl<B: Backend> GradClipper<B> {
    /// A clipper to `max_norm` (positive and finite).
    pub fn new(backend: &B, max_norm: f32) -> Result<Self> {
        if !(max_norm.is_finite() && max_norm > 0.0) {
            return Err(config_err(format!(
                "the gradient clipping norm must be positive and finite, got {max_norm}"
            )));
        }
        Ok(GradClipper {
            max_norm,
            sum_sq: Tensor::zeros(backend, [1])?,
            limit: Tensor::full(backend, [1], max_norm)?,
            factor: Tensor::zeros(backend, [1])?,
        })
    }

    /// The norm gradients are clipped to.
    pub fn max_norm(&self) -> f32 {
        self.max_norm
    }

    /// Clips the gradients of `model` in place. Afterwards [`norm`](Self::norm) holds the
    /// global norm before clipping.
    pub fn clip(&mut self, model: &mut dyn Layer<B>) -> Result<()> {
        let sum_sq = &mut self.sum_sq;
        let mut first = true;
        model.visit_params(&mut |p| {
            p.grad
                .dot_into(p.grad, sum_sq, if first { 0.0 } else { 1.0 })?;
            first = false;
            Ok(())
        })?;
        if first {
            return Ok(());
        }
        // norm = sqrt(sum_sq); factor = max_norm / max(norm, max_norm).
        self.sum_sq.unary_assign(UnaryOp::Sqrt)?;
        self.sum_sq
            .binary_into(BinaryOp::Maximum, &self.limit, &mut self.factor)?;
        self.factor.unary_assign(UnaryOp::Recip)?;
        self.factor.scale_assign(self.max_norm)?;
        let factor = &self.factor;
        model.visit_params_mut(&mut |p| Ok(p.grad.binary_assign(BinaryOp::Mul, factor)?))
    }

    /// The global gradient norm measured by the last [`clip`](Self::clip) (device tensor).
    pub fn norm(&self) -> &Tensor<B> {
        &self.sum_sq
    }
}
