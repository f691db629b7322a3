//! A fully connected layer with a fused activation.

use super::{
    DenseParts, ParamMut, ParamRef, Tuning, check_input, check_matrix, ensure, no_forward,
};
use crate::Result;
use tensor_core::mlp_pass::{DenseGrad, DenseRef};
use tensor_core::{Activation, Backend, BinaryOp, ReduceOp, Tensor, UnaryOp};

/// `y = act(x W + b)`, with `W` stored `[in, out]` and a bias on every output.
///
/// Forward: for ReLU and the identity, one fused GEMM (`act(x W + b)`, no pre-activation
/// kept: ReLU's derivative is read off its output); for other activations, one GEMM into
/// the pre-activation buffer `z`, then the backend's fused `bias_act`.
/// Backward: the fused `act_backward` (skipped for the identity, and when the next layer
/// already applied ReLU's derivative, see [`Layer::set_grad_at_preact`](crate::Layer::set_grad_at_preact)), one GEMM for the
/// weight gradient (`x^T dz`), a column sum for the bias gradient and, when asked for, one
/// GEMM for the input gradient (`dz W^T`, times `relu'(x)` in the same pass when
/// [`Layer::set_input_relu`](crate::Layer::set_input_relu) asked for it). Parameter gradients are overwritten unless
/// accumulation is switched on.
pub struct Linear<B: Backend> {
    backend: B,
    in_dim: usize,
    out_dim: usize,
    act: Activation,
    weight: Tensor<B>,
    bias: Tensor<B>,
    weight_grad: Tensor<B>,
    bias_grad: Tensor<B>,
    weight_name: String,
    bias_name: String,
    accumulate: bool,
    /// The gradient handed to `backward` is at the pre-activation already.
    grad_at_preact: bool,
    /// The input gradient is returned times `relu'(x)`.
    input_relu: bool,
    z: Option<Tensor<B>>,
    out: Option<Tensor<B>>,
    grad_z: Option<Tensor<B>>,
    grad_in: Option<Tensor<B>>,
    bias_scratch: Option<Tensor<B>>,
}

impl<B: Backend> Linear<B> {
    /// A layer from its weight (`[in, out]`) and bias (`[out]`).
    pub fn from_tensors(weight: Tensor<B>, bias: Tensor<B>, act: Activation) -> Result<Self> {
        let backend = weight.backend().clone();
        let (in_dim, out_dim) = weight.shape().as_matrix("Linear::from_tensors")?;
        if bias.dims() != [out_dim] {
            return Err(tensor_core::Error::ShapeMismatch {
                op: "Linear::from_tensors (bias)",
                lhs: tensor_core::Shape::new([out_dim]),
                rhs: bias.shape().clone(),
            }
            .into());
        }
        Ok(Linear {
            weight_grad: Tensor::zeros(&backend, [in_dim, out_dim])?,
            bias_grad: Tensor::zeros(&backend, [out_dim])?,
            backend,
            in_dim,
            out_dim,
            act,
            weight,
            bias,
            weight_name: "weight".into(),
            bias_name: "bias".into(),
            accumulate: false,
            grad_at_preact: false,
            input_relu: false,
            z: None,
            out: None,
            grad_z: None,
            grad_in: None,
            bias_scratch: None,
        })
    }

    /// A layer with its parameters drawn by `init` (see [`crate::init`]).
    pub fn new<R: tensor_core::rand::Rng + ?Sized>(
        backend: &B,
        in_dim: usize,
        out_dim: usize,
        act: Activation,
        init: crate::init::LayerInit,
        rng: &mut R,
    ) -> Result<Self> {
        let (weight, bias) = init.draw(backend, in_dim, out_dim, rng)?;
        Self::from_tensors(weight, bias, act)
    }

    /// The weight, `[in, out]`.
    pub fn weight(&self) -> &Tensor<B> {
        &self.weight
    }

    /// The bias, `[out]`.
    pub fn bias(&self) -> &Tensor<B> {
        &self.bias
    }

    /// The gradient of the weight.
    pub fn weight_grad(&self) -> &Tensor<B> {
        &self.weight_grad
    }

    /// The gradient of the bias.
    pub fn bias_grad(&self) -> &Tensor<B> {
        &self.bias_grad
    }

    /// The activation applied after the affine map.
    pub fn activation(&self) -> Activation {
        self.act
    }

    /// Computes parameter gradients (and the input gradient when `want_input`).
    fn backward_impl(
        &mut self,
        x: &Tensor<B>,
        grad_out: &Tensor<B>,
        want_input: bool,
    ) -> Result<()> {
        let rows = check_input(x, self.in_dim, "Linear::backward (input)")?;
        check_matrix(grad_out, rows, self.out_dim, "Linear::backward (gradient)")?;
        // ReLU's derivative at its output equals its derivative at its input.
        let at = if self.output_only() {
            &self.out
        } else {
            &self.z
        };
        let at = match at {
            Some(t) if t.dims()[0] == rows => t,
            _ => return Err(no_forward("Linear::backward")),
        };
        let skip = self.act == Activation::Identity || self.grad_at_preact;
        let grad_z: &Tensor<B> = if skip {
            grad_out
        } else {
            let gz = ensure(&mut self.grad_z, &self.backend, rows, self.out_dim)?;
            grad_out.act_backward_into(at, self.act, gz)?;
            gz
        };
        let beta = if self.accumulate { 1.0 } else { 0.0 };
        Tensor::matmul_into(x, grad_z, &mut self.weight_grad, true, false, 1.0, beta)?;
        if self.accumulate {
            if self.bias_scratch.is_none() {
                self.bias_scratch = Some(Tensor::uninit(&self.backend, [self.out_dim])?);
            }
            let scratch = self.bias_scratch.as_mut().expect("allocated above");
            grad_z.reduce_into(ReduceOp::Sum, Some(0), scratch)?;
            self.bias_grad.binary_assign(BinaryOp::Add, scratch)?;
        } else {
            grad_z.reduce_into(ReduceOp::Sum, Some(0), &mut self.bias_grad)?;
        }
        if want_input {
            let gi = ensure(&mut self.grad_in, &self.backend, rows, self.in_dim)?;
            if self.input_relu {
                let (g, w) = ((grad_z, false), (&self.weight, true));
                Tensor::matmul_act_grad_into(g, w, x, Activation::Relu, gi)?;
            } else {
                Tensor::matmul_into(grad_z, &self.weight, gi, false, true, 1.0, 0.0)?;
            }
        }
        Ok(())
    }

    /// Whether the forward pass keeps only the output: for activations whose derivative
    /// the output determines (the identity, ReLU), the bias and activation are fused into
    /// the product.
    fn output_only(&self) -> bool {
        matches!(self.act, Activation::Identity | Activation::Relu)
    }
}

impl<B: Backend> super::Layer<B> for Linear<B> {
    fn describe(&self) -> String {
        format!("linear {} -> {}, {:?}", self.in_dim, self.out_dim, self.act)
    }

    fn input_dim(&self) -> usize {
        self.in_dim
    }

    fn output_dim(&self) -> usize {
        self.out_dim
    }

    fn dense_parts(&mut self) -> Option<DenseParts<'_, B>> {
        Some(DenseParts {
            params: DenseRef {
                weight: &self.weight,
                bias: &self.bias,
            },
            grads: DenseGrad {
                weight: &mut self.weight_grad,
                bias: &mut self.bias_grad,
            },
            act: self.act,
        })
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        let rows = check_input(x, self.in_dim, "Linear::forward")?;
        if self.output_only() {
            self.z = None;
            let out = ensure(&mut self.out, &self.backend, rows, self.out_dim)?;
            let (x, w) = ((x, false), (&self.weight, false));
            Tensor::matmul_bias_act_into(x, w, &self.bias, self.act, out)?;
            return Ok(out);
        }
        let z = ensure(&mut self.z, &self.backend, rows, self.out_dim)?;
        Tensor::matmul_into(x, &self.weight, z, false, false, 1.0, 0.0)?;
        let out = ensure(&mut self.out, &self.backend, rows, self.out_dim)?;
        z.bias_act_into(&self.bias, self.act, out)?;
        Ok(out)
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.out.as_ref()
    }

    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        self.backward_impl(x, grad_out, true)?;
        self.grad_in
            .as_ref()
            .ok_or_else(|| no_forward("Linear::backward"))
    }

    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        self.backward_impl(x, grad_out, false)
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.grad_in.as_ref()
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.in_dim, "Linear::infer")?;
        check_matrix(out, rows, self.out_dim, "Linear::infer (output)")?;
        if self.output_only() {
            let (x, w) = ((x, false), (&self.weight, false));
            return Ok(Tensor::matmul_bias_act_into(
                x, w, &self.bias, self.act, out,
            )?);
        }
        Tensor::matmul_into(x, &self.weight, out, false, false, 1.0, 0.0)?;
        out.binary_assign(BinaryOp::Add, &self.bias)?;
        if self.act != Activation::Identity {
            out.unary_assign(UnaryOp::Act(self.act))?;
        }
        Ok(())
    }

    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        f(ParamRef {
            name: &self.weight_name,
            value: &self.weight,
            grad: &self.weight_grad,
        })?;
        f(ParamRef {
            name: &self.bias_name,
            value: &self.bias,
            grad: &self.bias_grad,
        })
    }

    fn visit_params_mut(&mut self, f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>) -> Result<()> {
        f(ParamMut {
            name: &self.weight_name,
            value: &mut self.weight,
            grad: &mut self.weight_grad,
            tuning: Tuning::PLAIN,
        })?;
        f(ParamMut {
            name: &self.bias_name,
            value: &mut self.bias,
            grad: &mut self.bias_grad,
            tuning: Tuning::PLAIN,
        })
    }

    fn relu_output(&self) -> bool {
        self.act == Activation::Relu
    }

    fn set_grad_at_preact(&mut self, on: bool) {
        self.grad_at_preact = on && self.act == Activation::Relu;
    }

    fn set_input_relu(&mut self, on: bool) -> bool {
        self.input_relu = on;
        true
    }

    fn set_name_prefix(&mut self, prefix: &str) {
        self.weight_name = format!("{prefix}weight");
        self.bias_name = format!("{prefix}bias");
    }

    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.accumulate = accumulate;
    }
}
