//! A stand-alone activation layer (for stacks where the activation is not fused into a
//! [`Linear`](super::Linear)).

use super::{check_input, check_matrix, ensure, no_forward};
use crate::Result;
use tensor_core::{Activation, Backend, Tensor, UnaryOp};

/// `y = act(x)` element-wise; no parameters.
///
/// The backward pass uses the backend's fused `act_backward` on the saved input (which
/// the caller passes again), so the layer stores only its output and input gradient.
pub struct ActivationLayer<B: Backend> {
    backend: B,
    dim: usize,
    act: Activation,
    out: Option<Tensor<B>>,
    grad_in: Option<Tensor<B>>,
}

impl<B: Backend> ActivationLayer<B> {
    /// An activation over `dim` features.
    pub fn new(backend: &B, dim: usize, act: Activation) -> Self {
        ActivationLayer {
            backend: backend.clone(),
            dim,
            act,
            out: None,
            grad_in: None,
        }
    }

    /// The activation applied.
    pub fn activation(&self) -> Activation {
        self.act
    }
}

impl<B: Backend> super::Layer<B> for ActivationLayer<B> {
    fn describe(&self) -> String {
        format!("activation {:?} over {}", self.act, self.dim)
    }

    fn input_dim(&self) -> usize {
        self.dim
    }

    fn output_dim(&self) -> usize {
        self.dim
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        let rows = check_input(x, self.dim, "ActivationLayer::forward")?;
        let out = ensure(&mut self.out, &self.backend, rows, self.dim)?;
        x.unary_into(UnaryOp::Act(self.act), out)?;
        Ok(out)
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.out.as_ref()
    }

    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        let rows = check_input(x, self.dim, "ActivationLayer::backward (input)")?;
        check_matrix(
            grad_out,
            rows,
            self.dim,
            "ActivationLayer::backward (gradient)",
        )?;
        if !matches!(&self.out, Some(o) if o.dims()[0] == rows) {
            return Err(no_forward("ActivationLayer::backward"));
        }
        let gi = ensure(&mut self.grad_in, &self.backend, rows, self.dim)?;
        grad_out.act_backward_into(x, self.act, gi)?;
        Ok(gi)
    }

    fn backward_params(&mut self, _x: &Tensor<B>, _grad_out: &Tensor<B>) -> Result<()> {
        Ok(())
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.grad_in.as_ref()
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.dim, "ActivationLayer::infer")?;
        check_matrix(out, rows, self.dim, "ActivationLayer::infer (output)")?;
        x.unary_into(UnaryOp::Act(self.act), out)?;
        Ok(())
    }
}
