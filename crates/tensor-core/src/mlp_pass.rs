//! A whole training pass of a small ReLU network in one backend call: forward, mean squared
//! error against the targets, and backward to the weights, the biases and (optionally) the
//! input.
//!
//! Layer by layer, a pass writes every activation of the batch to memory and reads it back
//! two or three times; for a network a few dozen units wide over a batch of 2^16 rows these
//! matrices (16 MB each) do not fit in any cache, and the products wait on memory. A fused
//! pass walks the batch in tiles of rows that stay in cache from the first layer to the
//! last and back, adding each tile's contribution to the weight gradients.
//!
//! The network: `a_0 = x`, `a_{l+1} = relu(a_l W_l + b_l)` for the hidden layers, and
//! `y = a_{L-1} W_{L-1} + b_{L-1}` (no activation) for the last; the loss is
//! `mean((y - t)^2)` over every element, with gradient `2 (y - t) / (rows * outputs)`.
//!
//! A backend without a fused pass answers `Ok(false)` from
//! [`ReluMlpMsePassOp::relu_mlp_mse_pass`](crate::ReluMlpMsePassOp::relu_mlp_mse_pass) and leaves everything untouched; the caller then runs
//! the layers one by one. [`relu_mlp_mse_pass`] checks the shapes and calls the backend.
//!
//! ```
//! use tensor_core::mlp_pass::{relu_mlp_mse_pass, DenseGrad, DenseRef};
//! use tensor_core::{Backend, FeatureLayout, Tensor};
//!
//! /// One pass of a 2 -> 4 -> 1 network; `false` when the backend has no fused pass.
//! fn pass<B: Backend>(backend: &B) -> tensor_core::Result<bool> {
//!     let x = Tensor::from_slice(backend, &[0.0, 1.0, 1.0, 0.0], [2, 2])?;
//!     let t = Tensor::from_slice(backend, &[1.0, 0.0], [2, 1])?;
//!     let (w0, b0) = (Tensor::full(backend, [2, 4], 0.5)?, Tensor::zeros(backend, [4])?);
//!     let (w1, b1) = (Tensor::full(backend, [4, 1], 0.25)?, Tensor::zeros(backend, [1])?);
//!     let mut g = [
//!         (Tensor::zeros(backend, [2, 4])?, Tensor::zeros(backend, [4])?),
//!         (Tensor::zeros(backend, [4, 1])?, Tensor::zeros(backend, [1])?),
//!     ];
//!     let mut loss = Tensor::zeros(backend, [1])?;
//!     let layers = [DenseRef { weight: &w0, bias: &b0 }, DenseRef { weight: &w1, bias: &b1 }];
//!     let [(gw0, gb0), (gw1, gb1)] = &mut g;
//!     let mut grads = [
//!         DenseGrad { weight: gw0, bias: gb0 },
//!         DenseGrad { weight: gw1, bias: gb1 },
//!     ];
//!     relu_mlp_mse_pass(&x, FeatureLayout::PointMajor, &layers, &t, &mut grads, None, &mut loss)
//! }
//! ```

use crate::hashgrid::FeatureLayout;
use crate::{Backend, Error, Result, Tensor};

/// The operands of a fused pass as a backend sees them (see the [module docs](self)).
pub struct MlpPass<'a, S> {
    /// Rows of the batch.
    pub rows: usize,
    /// Widths: the input, each hidden layer, the output (at least two entries).
    pub dims: &'a [usize],
    /// The input: `[rows, dims[0]]` when point-major, `[dims[0], rows]` when feature-major.
    pub input: &'a S,
    /// How `input` (and the input gradient) is laid out.
    pub layout: FeatureLayout,
    /// Layer `l`'s weight, `[dims[l], dims[l + 1]]` row-major.
    pub weights: &'a [&'a S],
    /// Layer `l`'s bias, `[dims[l + 1]]`.
    pub biases: &'a [&'a S],
    /// The targets, `[rows, dims[L]]`.
    pub target: &'a S,
}

/// Where a fused pass writes: gradients overwrite what the buffers held.
pub struct MlpPassOut<'a, 'b, S> {
    /// Layer `l`'s weight gradient, the weight's shape.
    pub weight_grads: &'a mut [&'b mut S],
    /// Layer `l`'s bias gradient, the bias's shape.
    pub bias_grads: &'a mut [&'b mut S],
    /// The gradient with respect to the input, laid out as the input, when wanted.
    pub input_grad: Option<&'a mut S>,
    /// The loss, one element.
    pub loss: &'a mut S,
}

/// A dense layer's parameters, read by [`relu_mlp_mse_pass`].
#[derive(Clone, Copy)]
pub struct DenseRef<'a, B: Backend> {
    /// `[in, out]`.
    pub weight: &'a Tensor<B>,
    /// `[out]`.
    pub bias: &'a Tensor<B>,
}

/// A dense layer's gradients, written by [`relu_mlp_mse_pass`].
pub struct DenseGrad<'a, B: Backend> {
    /// `[in, out]`.
    pub weight: &'a mut Tensor<B>,
    /// `[out]`.
    pub bias: &'a mut Tensor<B>,
}

fn shape_error<B: Backend>(what: &'static str, got: &Tensor<B>, want: &[usize]) -> Error {
    Error::ShapeMismatch {
        op: what,
        lhs: got.shape().clone(),
        rhs: want.into(),
    }
}

fn expect<B: Backend>(what: &'static str, t: &Tensor<B>, want: &[usize]) -> Result<()> {
    if t.dims() == want {
        Ok(())
    } else {
        Err(shape_error(what, t, want))
    }
}

/// The default [`ReluMlpMsePassOp::relu_mlp_mse_pass`](crate::ReluMlpMsePassOp::relu_mlp_mse_pass) of a
/// backend with no fused pass: writes nothing and answers `Ok(false)`, so that the caller
/// runs the layers one at a time.
pub fn unfused<S>(pass: &MlpPass<'_, S>, out: MlpPassOut<'_, '_, S>) -> Result<bool> {
    let _ = (pass, out);
    Ok(false)
}

/// Runs the fused training pass of the ReLU network `layers` on `input` (laid out as
/// `layout`) against `target`, writing the gradients, the input gradient (when given, laid
/// out as the input) and the loss. Returns `Ok(false)`, with nothing written, when the
/// backend has no fused pass for this network; shapes are checked first either way.
pub fn relu_mlp_mse_pass<B: Backend>(
    input: &Tensor<B>,
    layout: FeatureLayout,
    layers: &[DenseRef<'_, B>],
    target: &Tensor<B>,
    grads: &mut [DenseGrad<'_, B>],
    input_grad: Option<&mut Tensor<B>>,
    loss: &mut Tensor<B>,
) -> Result<bool> {
    const OP: &str = "relu_mlp_mse_pass";
    if layers.is_empty() || grads.len() != layers.len() {
        return Err(Error::InvalidArgument {
            op: OP,
            reason: format!(
                "{} layers and {} gradients: need the same number, at least one",
                layers.len(),
                grads.len()
            ),
        });
    }
    let [a, b] = input.dims() else {
        return Err(shape_error(OP, input, &[0, 0]));
    };
    let (rows, width) = match layout {
        FeatureLayout::PointMajor => (*a, *b),
        FeatureLayout::FeatureMajor => (*b, *a),
    };
    let mut dims = vec![width];
    for (layer, grad) in layers.iter().zip(grads.iter()) {
        let [i, o] = layer.weight.dims() else {
            return Err(shape_error(
                "relu_mlp_mse_pass (weight)",
                layer.weight,
                &[0, 0],
            ));
        };
        let (i, o) = (*i, *o);
        expect(
            "relu_mlp_mse_pass (weight)",
            layer.weight,
            &[*dims.last().unwrap_or(&0), o],
        )?;
        expect("relu_mlp_mse_pass (bias)", layer.bias, &[o])?;
        expect("relu_mlp_mse_pass (weight gradient)", grad.weight, &[i, o])?;
        expect("relu_mlp_mse_pass (bias gradient)", grad.bias, &[o])?;
        dims.push(o);
    }
    expect(
        "relu_mlp_mse_pass (target)",
        target,
        &[rows, dims[layers.len()]],
    )?;
    expect("relu_mlp_mse_pass (loss)", loss, &[1])?;
    if let Some(g) = &input_grad {
        expect("relu_mlp_mse_pass (input gradient)", g, input.dims())?;
    }
    let weights: Vec<&B::Storage> = layers.iter().map(|l| l.weight.storage()).collect();
    let biases: Vec<&B::Storage> = layers.iter().map(|l| l.bias.storage()).collect();
    let (mut weight_grads, mut bias_grads): (Vec<&mut B::Storage>, Vec<&mut B::Storage>) = grads
        .iter_mut()
        .map(|g| (g.weight.storage_mut(), g.bias.storage_mut()))
        .unzip();
    let pass = MlpPass {
        rows,
        dims: &dims,
        input: input.storage(),
        layout,
        weights: &weights,
        biases: &biases,
        target: target.storage(),
    };
    let out = MlpPassOut {
        weight_grads: &mut weight_grads,
        bias_grads: &mut bias_grads,
        input_grad: input_grad.map(|g| g.storage_mut()),
        loss: loss.storage_mut(),
    };
    input.backend().relu_mlp_mse_pass(&pass, out)
}
