//! [`Scale`]: a learned scale per input feature, `y = x * s` (RealMLP's "scaling layer",
//! Holzmüller et al. 2024): a cheap, soft selection of the features that matter.

use super::{ParamMut, ParamRef, Tuning, check_input, check_matrix, ensure, no_forward};
use crate::Result;
use tensor_core::{Backend, BinaryOp, ReduceOp, Tensor};

/// The learning-rate factor of a [`Scale`]'s parameter: it moves this many times faster
/// than the weights, as in RealMLP's defaults, so that a feature that does not help is
/// turned down within the first epochs. It is not decayed.
pub const SCALE_LR_FACTOR: f32 = 6.0;

/// `y = x * s` with one learned factor per feature (`s`, `[d]`, starting at 1).
pub struct Scale<B: Backend> {
    backend: B,
    dim: usize,
    name: String,
    scale: Tensor<B>,
    grad: Tensor<B>,
    accumulate: bool,
    out: Option<Tensor<B>>,
    product: Option<Tensor<B>>,
    grad_in: Option<Tensor<B>>,
}

impl<B: Backend> Scale<B> {
    /// A scale of `dim` features, every factor 1, whose parameter is named `name`.
    pub fn new(backend: &B, dim: usize, name: &str) -> Result<Self> {
        Ok(Scale {
            backend: backend.clone(),
            dim,
            name: name.to_string(),
            scale: Tensor::ones(backend, [dim])?,
            grad: Tensor::zeros(backend, [dim])?,
            accumulate: false,
            out: None,
            product: None,
            grad_in: None,
        })
    }

    /// The factors (`[d]`).
    pub fn factors(&self) -> &Tensor<B> {
        &self.scale
    }

    /// Replaces the factors (`d` values, e.g. from a checkpoint).
    pub fn set_factors(&mut self, values: &[f32]) -> Result<()> {
        if values.len() != self.dim || values.iter().any(|v| !v.is_finite()) {
            return Err(crate::Error::StateMismatch(format!(
                "{}: expected {} finite values, got {}",
                self.name,
                self.dim,
                values.len()
            )));
        }
        self.scale = Tensor::from_slice(&self.backend, values, [self.dim])?;
        Ok(())
    }

    /// The parameter gradient `sum over rows of x * grad_out`, set or added to.
    fn param_grad(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>, rows: usize) -> Result<()> {
        let product = ensure(&mut self.product, &self.backend, rows, self.dim)?;
        x.binary_into(BinaryOp::Mul, grad_out, product)?;
        if self.accumulate {
            let sums = product.reduce(ReduceOp::Sum, Some(0), false)?;
            self.grad.binary_assign(BinaryOp::Add, &sums)?;
        } else {
            product.reduce_into(ReduceOp::Sum, Some(0), &mut self.grad)?;
        }
        Ok(())
    }
}

impl<B: Backend> super::Layer<B> for Scale<B> {
    fn describe(&self) -> String {
        format!("scale of {} features", self.dim)
    }

    fn input_dim(&self) -> usize {
        self.dim
    }

    fn output_dim(&self) -> usize {
        self.dim
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        let rows = check_input(x, self.dim, "Scale::forward")?;
        let out = ensure(&mut self.out, &self.backend, rows, self.dim)?;
        x.binary_into(BinaryOp::Mul, &self.scale, out)?;
        Ok(out)
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.out.as_ref()
    }

    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        self.backward_params(x, grad_out)?;
        let rows = x.dims()[0];
        let grad_in = ensure(&mut self.grad_in, &self.backend, rows, self.dim)?;
        grad_out.binary_into(BinaryOp::Mul, &self.scale, grad_in)?;
        Ok(grad_in)
    }

    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.dim, "Scale::backward (input)")?;
        check_matrix(grad_out, rows, self.dim, "Scale::backward (gradient)")?;
        if self.out.as_ref().map(|o| o.dims()[0]) != Some(rows) {
            return Err(no_forward("Scale::backward"));
        }
        self.param_grad(x, grad_out, rows)
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.grad_in.as_ref()
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.dim, "Scale::infer")?;
        check_matrix(out, rows, self.dim, "Scale::infer (output)")?;
        Ok(x.binary_into(BinaryOp::Mul, &self.scale, out)?)
    }

    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        f(ParamRef {
            name: &self.name,
            value: &self.scale,
            grad: &self.grad,
        })
    }

    fn visit_params_mut(&mut self, f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>) -> Result<()> {
        f(ParamMut {
            name: &self.name,
            value: &mut self.scale,
            grad: &mut self.grad,
            tuning: Tuning {
                lr_factor: SCALE_LR_FACTOR,
                decays: false,
            },
        })
    }

    fn set_name_prefix(&mut self, prefix: &str) {
        self.name = format!("{prefix}scale");
    }

    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.accumulate = accumulate;
    }
}
