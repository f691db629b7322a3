//! The [`Layer`] trait and the layers built on it.
//!
//! A layer owns the buffers its forward pass writes (its output, and whatever its
//! backward pass needs) and reuses them from one step to the next as long as the number of
//! rows stays the same, so a steady-state training step allocates nothing.
//!
//! Gradients of parameters are **overwritten** by [`Layer::backward`] unless
//! [`Layer::set_accumulate_grads`] was called with `true`, in which case they are added to
//! (clear them with [`Layer::zero_grads`]).

mod activation;
mod linear;
mod scale;
mod sequential;

pub use activation::ActivationLayer;
pub use linear::Linear;
pub use scale::{SCALE_LR_FACTOR, Scale};

pub use sequential::Sequential;

use crate::{Loss, Result};
use tensor_core::mlp_pass::{DenseGrad, DenseRef};
use tensor_core::{Activation, Backend, Error as TensorError, Shape, Tensor};

/// A trainable parameter and its gradient, as handed to a visitor.
pub struct ParamMut<'a, B: Backend> {
    /// The stable name ("layers.0.weight").
    pub name: &'a str,
    /// The parameter's values.
    pub value: &'a mut Tensor<B>,
    /// The gradient of the loss with respect to the parameter.
    pub grad: &'a mut Tensor<B>,
    /// How an optimizer treats it.
    pub tuning: Tuning,
}

/// How an optimizer treats a parameter: its learning rate relative to the optimizer's, and
/// whether weight decay applies to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    /// The factor of the optimizer's learning rate this parameter moves with.
    pub lr_factor: f32,
    /// Whether weight decay applies.
    pub decays: bool,
}

impl Tuning {
    /// The optimizer's learning rate, with weight decay: weights and biases.
    pub const PLAIN: Tuning = Tuning {
        lr_factor: 1.0,
        decays: true,
    };

    /// The learning rate and weight decay this parameter takes under an optimizer's `lr`
    /// and `weight_decay`.
    pub fn apply(self, lr: f32, weight_decay: f32) -> (f32, f32) {
        let decay = if self.decays { weight_decay } else { 0.0 };
        (lr * self.lr_factor, decay)
    }
}

/// A parameter and its gradient, read-only.
pub struct ParamRef<'a, B: Backend> {
    /// The stable name ("layers.0.weight").
    pub name: &'a str,
    /// The parameter's values.
    pub value: &'a Tensor<B>,
    /// The gradient of the loss with respect to the parameter.
    pub grad: &'a Tensor<B>,
}

/// A dense layer (`act(x W + b)`) seen from outside: its parameters, their gradients and
/// its activation, for the fused passes of a backend
/// ([`relu_mlp_mse_pass`](tensor_core::mlp_pass::relu_mlp_mse_pass)).
pub struct DenseParts<'a, B: Backend> {
    /// The weight (`[in, out]`) and the bias (`[out]`).
    pub params: DenseRef<'a, B>,
    /// Their gradients, written by a fused pass.
    pub grads: DenseGrad<'a, B>,
    /// The activation after the product.
    pub act: Activation,
}

/// A training pass layer by layer: [`Layer::forward`], the loss and its gradient into
/// `grad`, then [`Layer::backward_params`] (what [`Layer::train_pass`] does by default).
pub fn train_pass_by_layers<B: Backend, L: Layer<B> + ?Sized>(
    layer: &mut L,
    x: &Tensor<B>,
    target: &Tensor<B>,
    loss: Loss,
    grad: &mut Tensor<B>,
    loss_out: &mut Tensor<B>,
) -> Result<()> {
    let pred = layer.forward(x)?;
    loss.compute_into(pred, target, grad, loss_out)?;
    layer.backward_params(x, grad)
}

/// A differentiable building block working on row-major `[rows, features]` matrices.
///
/// The training path is [`forward`](Layer::forward) then [`backward`](Layer::backward)
/// with the **same input tensor**: layers do not copy their input, the caller passes it
/// again to the backward pass (so no extra pass over memory is spent on saving it).
/// [`infer`](Layer::infer) computes the output without touching any training buffer.
pub trait Layer<B: Backend>: Send + Sync {
    /// A short description ("linear 2 -> 256, sine(w0=30)").
    fn describe(&self) -> String;

    /// The number of input features.
    fn input_dim(&self) -> usize;

    /// The number of output features.
    fn output_dim(&self) -> usize;

    /// Runs the layer on `x` (`[rows, input_dim]`), keeping what the backward pass needs,
    /// and returns the output (`[rows, output_dim]`), owned by the layer.
    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>>;

    /// The output of the last [`forward`](Layer::forward), if any.
    fn output(&self) -> Option<&Tensor<B>>;

    /// Back-propagates `grad_out` (`[rows, output_dim]`, the gradient of the loss with
    /// respect to the output of the last forward pass on `x`): sets (or accumulates)
    /// parameter gradients and returns the gradient with respect to `x`.
    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>>;

    /// Like [`backward`](Layer::backward) but without computing the input gradient
    /// (what the first layer of a network needs).
    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        self.backward(x, grad_out).map(|_| ())
    }

    /// One training step's pass on a batch: the loss of the prediction for `x` against
    /// `target` into `loss_out` (one element) and the parameter gradients, set (or
    /// accumulated). `grad` (`[rows, output_dim]`) is scratch for the gradient at the
    /// output; what it holds afterwards is unspecified, and so is [`output`](Layer::output)
    /// (a fused pass need not keep the predictions). By default
    /// [`train_pass_by_layers`]; models override it where a backend fuses the pass.
    fn train_pass(
        &mut self,
        x: &Tensor<B>,
        target: &Tensor<B>,
        loss: Loss,
        grad: &mut Tensor<B>,
        loss_out: &mut Tensor<B>,
    ) -> Result<()> {
        train_pass_by_layers(self, x, target, loss, grad, loss_out)
    }

    /// The parameters of a dense layer, for fused passes (`None`, the default, for every
    /// other kind of layer).
    fn dense_parts(&mut self) -> Option<DenseParts<'_, B>> {
        None
    }

    /// The input gradient computed by the last [`backward`](Layer::backward), if any.
    fn input_grad(&self) -> Option<&Tensor<B>>;

    /// Computes the output for `x` into `out` (`[rows, output_dim]`) without touching the
    /// training buffers.
    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()>;

    /// Visits every trainable parameter with its gradient, in a stable order.
    fn visit_params(&self, _f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        Ok(())
    }

    /// Visits every trainable parameter mutably with its gradient, in the same order as
    /// [`visit_params`](Layer::visit_params).
    fn visit_params_mut(
        &mut self,
        _f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>,
    ) -> Result<()> {
        Ok(())
    }

    /// Whether the output is a ReLU of a pre-activation this layer can back-propagate from
    /// directly: a container may then hand [`backward`](Layer::backward) the gradient at
    /// the pre-activation (see [`set_grad_at_preact`](Layer::set_grad_at_preact)), which
    /// the next layer computes in the same pass as its input gradient.
    fn relu_output(&self) -> bool {
        false
    }
    /// Tells the layer whether the gradient handed to [`backward`](Layer::backward) is with
    /// respect to its pre-activation (its ReLU's derivative already applied by the next
    /// layer) rather than its output. Only called on layers whose
    /// [`relu_output`](Layer::relu_output) is true.
    fn set_grad_at_preact(&mut self, _on: bool) {}
    /// Asks the layer to multiply the input gradient that [`backward`](Layer::backward)
    /// returns by `relu'(x)` (1 where its input is above 0, else 0), so that it is the
    /// gradient at the pre-activation of the ReLU that produced `x`; returns whether the
    /// layer does so (`false` by default: the request is ignored).
    fn set_input_relu(&mut self, _on: bool) -> bool {
        false
    }
    /// Prefixes every parameter name with `prefix` ("layers.3."); called by containers.
    fn set_name_prefix(&mut self, _prefix: &str) {}

    /// Whether `backward` adds to the parameter gradients (`true`) or overwrites them
    /// (`false`, the default).
    fn set_accumulate_grads(&mut self, _accumulate: bool) {}

    /// Sets every parameter gradient to zero.
    fn zero_grads(&mut self) -> Result<()> {
        self.visit_params_mut(&mut |p| Ok(p.grad.fill(0.0)?))
    }

    /// The number of trainable scalars.
    fn num_params(&self) -> usize {
        let mut n = 0;
        // The visitor cannot fail.
        let _ = self.visit_params(&mut |p| {
            n += p.value.numel();
            Ok(())
        });
        n
    }
}

/// Checks that `t` is a `[rows, cols]` matrix with `cols` columns; returns `rows`.
pub(crate) fn check_input<B: Backend>(
    t: &Tensor<B>,
    cols: usize,
    op: &'static str,
) -> Result<usize> {
    match t.dims() {
        [rows, c] if *c == cols => Ok(*rows),
        _ => Err(TensorError::ShapeMismatch {
            op,
            lhs: Shape::new([t.dims().first().copied().unwrap_or(0), cols]),
            rhs: t.shape().clone(),
        }
        .into()),
    }
}

/// Checks that `t` has exactly the shape `[rows, cols]`.
pub(crate) fn check_matrix<B: Backend>(
    t: &Tensor<B>,
    rows: usize,
    cols: usize,
    op: &'static str,
) -> Result<()> {
    if t.dims() != [rows, cols] {
        return Err(TensorError::ShapeMismatch {
            op,
            lhs: Shape::new([rows, cols]),
            rhs: t.shape().clone(),
        }
        .into());
    }
    Ok(())
}

/// Returns a buffer of shape `[rows, cols]`, reusing `slot` when it already has that shape.
pub(crate) fn ensure<'a, B: Backend>(
    slot: &'a mut Option<Tensor<B>>,
    backend: &B,
    rows: usize,
    cols: usize,
) -> Result<&'a mut Tensor<B>> {
    let fits = matches!(slot, Some(t) if t.dims() == [rows, cols]);
    if !fits {
        *slot = Some(Tensor::uninit(backend, [rows, cols])?);
    }
    Ok(slot.as_mut().expect("slot was just filled"))
}

/// The error for a backward pass that was not preceded by a matching forward pass.
pub(crate) fn no_forward(op: &'static str) -> crate::Error {
    TensorError::InvalidArgument {
        op,
        reason: "backward called before forward (or with a different number of rows)".into(),
    }
    .into()
}
