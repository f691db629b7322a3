//! Loss functions, each averaged over the batch, computed with their gradient in one
//! fused backend call.
//!
//! | loss | value | gradient |
//! | --- | --- | --- |
//! | [`Loss::Mse`] | `mean((p - y)^2)` over every element | `2 (p - y) / n` |
//! | [`Loss::BceWithLogits`] | `mean(softplus(z) - z y)` over every element (stable for any `z`) | `(sigmoid(z) - y) / n` |
//! | [`Loss::SoftmaxCrossEntropy`] | `-mean over rows of sum_j y_j log softmax(z)_j` | `(softmax(z) - y) / rows` |
//!
//! The value stays on the device (a one-element tensor); nothing is read back unless asked.

use crate::Result;
use serde::{Deserialize, Serialize};
use tensor_core::{Backend, LossKind, Tensor};

/// A loss function of predictions against targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    /// Mean squared error (regression).
    #[default]
    Mse,
    /// Binary cross-entropy on logits (targets in `[0, 1]`); the model outputs logits.
    BceWithLogits,
    /// Softmax cross-entropy on logits against one-hot (or probability) rows.
    SoftmaxCrossEntropy,
}

/// A loss value (one-element device tensor) and the gradient with respect to the
/// predictions.
#[derive(Debug)]
pub struct LossOutput<B: Backend> {
    /// The loss, shape `[1]`.
    pub loss: Tensor<B>,
    /// `d loss / d pred`, the shape of the predictions.
    pub grad: Tensor<B>,
}

impl Loss {
    /// The backend's description of this loss.
    pub fn kind(self) -> LossKind {
        match self {
            Loss::Mse => LossKind::Mse,
            Loss::BceWithLogits => LossKind::BceWithLogits,
            Loss::SoftmaxCrossEntropy => LossKind::SoftmaxCrossEntropy,
        }
    }

    /// Computes the loss of `pred` against `target` (both `[rows, cols]`) into `loss`
    /// (one element) and its gradient into `grad` (`[rows, cols]`), reusing both buffers.
    pub fn compute_into<B: Backend>(
        self,
        pred: &Tensor<B>,
        target: &Tensor<B>,
        grad: &mut Tensor<B>,
        loss: &mut Tensor<B>,
    ) -> Result<()> {
        Ok(pred.loss_grad_into(self.kind(), target, grad, loss)?)
    }

    /// The loss and its gradient in new tensors.
    pub fn compute<B: Backend>(
        self,
        pred: &Tensor<B>,
        target: &Tensor<B>,
    ) -> Result<LossOutput<B>> {
        let backend = pred.backend();
        let mut grad = Tensor::uninit(backend, pred.shape().clone())?;
        let mut loss = Tensor::uninit(backend, [1])?;
        self.compute_into(pred, target, &mut grad, &mut loss)?;
        Ok(LossOutput { loss, grad })
    }

    /// The loss value, read back to the host.
    pub fn value<B: Backend>(self, pred: &Tensor<B>, target: &Tensor<B>) -> Result<f32> {
        Ok(self.compute(pred, target)?.loss.to_scalar()?)
    }
}
