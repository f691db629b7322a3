//! Checked entry points to the backend's fused operations.
//!
//! Each method checks every operand's shape before a buffer reaches the backend, so a
//! mistake is an [`Error::ShapeMismatch`] naming the operation and both shapes instead of
//! a wrong result or a backend error about buffer lengths.

use super::Tensor;
use crate::params::{AdamMoments, BiasAct, FourierFeatures, LossGrad};
use crate::{Activation, AdamStep, Backend, Error, LossKind, Result, SgdStep, Shape};

/// `Err(ShapeMismatch)` unless `got` is `want`; the error names `op`, `want`, then `got`.
fn same_shape(want: &Shape, got: &Shape, op: &'static str) -> Result<()> {
    if want != got {
        return Err(Error::ShapeMismatch {
            op,
            lhs: want.clone(),
            rhs: got.clone(),
        });
    }
    Ok(())
}

impl<B: Backend> Tensor<B> {
    /// Adds `bias` (`[cols]`) to every row of `self` (`[rows, cols]`, a pre-activation,
    /// updated in place) and writes `act` of the result into `out` (`[rows, cols]`): the
    /// forward pass of a dense layer after its GEMM, in one pass.
    pub fn bias_act_into(
        &mut self,
        bias: &Tensor<B>,
        act: Activation,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let (rows, cols) = self.shape.as_matrix("bias_act")?;
        if bias.dims() != [cols] {
            return Err(Error::ShapeMismatch {
                op: "bias_act (bias)",
                lhs: self.shape.clone(),
                rhs: bias.shape.clone(),
            });
        }
        same_shape(&self.shape, &out.shape, "bias_act (output)")?;
        let p = BiasAct {
            bias: &bias.storage,
            rows,
            cols,
            act,
        };
        self.backend
            .bias_act(p, &mut self.storage, &mut out.storage)
    }

    /// `grad_z = self * act'(z)` element-wise, where `self` is the gradient with respect to
    /// an activation's output and `z` its input (all three of one shape).
    pub fn act_backward_into(
        &self,
        z: &Tensor<B>,
        act: Activation,
        grad_z: &mut Tensor<B>,
    ) -> Result<()> {
        same_shape(&self.shape, &z.shape, "act_backward (pre-activation)")?;
        same_shape(&self.shape, &grad_z.shape, "act_backward (output)")?;
        self.backend
            .act_backward(&self.storage, &z.storage, act, &mut grad_z.storage)
    }

    /// The loss of `self` (predictions, `[rows, cols]`) against `target` (same shape) into
    /// the one-element `loss`, and its gradient with respect to the predictions into `grad`
    /// (same shape), in one pass. Both values are means over the batch (see [`LossKind`]).
    pub fn loss_grad_into(
        &self,
        kind: LossKind,
        target: &Tensor<B>,
        grad: &mut Tensor<B>,
        loss: &mut Tensor<B>,
    ) -> Result<()> {
        let (rows, cols) = self.shape.as_matrix("loss_grad")?;
        same_shape(&self.shape, &target.shape, "loss_grad (target)")?;
        same_shape(&self.shape, &grad.shape, "loss_grad (gradient)")?;
        if loss.numel() != 1 {
            return Err(Error::ElementCount {
                op: "loss_grad (loss)",
                shape: loss.shape.clone(),
                expected: 1,
                got: loss.numel(),
            });
        }
        let p = LossGrad {
            kind,
            pred: &self.storage,
            target: &target.storage,
            rows,
            cols,
        };
        self.backend
            .loss_grad(p, &mut grad.storage, &mut loss.storage)
    }

    /// One Adam/AdamW update of `self` (a parameter) from `grad`, updating the first and
    /// second moments `m` and `v` (all four of one shape).
    pub fn adam_step(
        &mut self,
        step: AdamStep,
        grad: &Tensor<B>,
        m: &mut Tensor<B>,
        v: &mut Tensor<B>,
    ) -> Result<()> {
        same_shape(&self.shape, &grad.shape, "adam_step (gradient)")?;
        same_shape(&self.shape, &m.shape, "adam_step (first moment)")?;
        same_shape(&self.shape, &v.shape, "adam_step (second moment)")?;
        let moments = AdamMoments {
            m: &mut m.storage,
            v: &mut v.storage,
        };
        self.backend
            .adam_step(step, &mut self.storage, &grad.storage, moments)
    }

    /// One SGD update of `self` (a parameter) from `grad` (same shape). With momentum the
    /// velocity buffer (same shape) is required and updated; without, it is not used.
    pub fn sgd_step(
        &mut self,
        step: SgdStep,
        grad: &Tensor<B>,
        velocity: Option<&mut Tensor<B>>,
    ) -> Result<()> {
        same_shape(&self.shape, &grad.shape, "sgd_step (gradient)")?;
        if let Some(v) = &velocity {
            same_shape(&self.shape, &v.shape, "sgd_step (velocity)")?;
        } else if step.momentum != 0.0 {
            return Err(Error::InvalidArgument {
                op: "sgd_step",
                reason: format!(
                    "momentum {} needs a velocity buffer of shape {}",
                    step.momentum, self.shape
                ),
            });
        }
        self.backend.sgd_step(
            step,
            &mut self.storage,
            &grad.storage,
            velocity.map(|v| &mut v.storage),
        )
    }

    /// Fourier features of `self` (`[rows, d]`) with the frequency matrix `freqs`
    /// (`[d, m]`): `out = [sin(2 pi x freqs), cos(2 pi x freqs)]` (`[rows, 2 m]`).
    pub fn fourier_features_into(&self, freqs: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let (rows, d) = self.shape.as_matrix("fourier_features")?;
        let (fd, m) = freqs.shape.as_matrix("fourier_features (frequencies)")?;
        if fd != d {
            return Err(Error::ShapeMismatch {
                op: "fourier_features (frequencies)",
                lhs: self.shape.clone(),
                rhs: freqs.shape.clone(),
            });
        }
        same_shape(
            &Shape::new([rows, 2 * m]),
            &out.shape,
            "fourier_features (output)",
        )?;
        self.backend.fourier_features(
            FourierFeatures {
                x: &self.storage,
                freqs: &freqs.storage,
                rows,
                d,
                m,
            },
            &mut out.storage,
        )
    }
}
