//! [`Mlp::dense_layers`] and [`Mlp::set_dense_layers`]: a network's dense layers as host
//! arrays, for programs that rewrite a trained network (two networks side by side, a
//! wider input, inputs left out) without knowing how its state is named.

use super::mlp::Mlp;
use super::state::{NamedArray, export_params, import_params};
use crate::{Error, Result};
use tensor_core::Backend;

/// One dense layer's parameters on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseLayer {
    /// Its inputs (rows of `weight`).
    pub inputs: usize,
    /// Its outputs (columns of `weight`, entries of `bias`).
    pub outputs: usize,
    /// `[inputs, outputs]`, row-major: row `i` holds the weights that read input `i`.
    pub weight: Vec<f32>,
    /// One per output.
    pub bias: Vec<f32>,
}

impl DenseLayer {
    /// A layer of zeros, `inputs` by `outputs`.
    pub fn zeros(inputs: usize, outputs: usize) -> Self {
        DenseLayer {
            inputs,
            outputs,
            weight: vec![0.0; inputs * outputs],
            bias: vec![0.0; outputs],
        }
    }

    /// The weights that read input `i` (one per output).
    pub fn row(&self, i: usize) -> &[f32] {
        &self.weight[i * self.outputs..(i + 1) * self.outputs]
    }

    /// The weights that read input `i`, to change.
    pub fn row_mut(&mut self, i: usize) -> &mut [f32] {
        &mut self.weight[i * self.outputs..(i + 1) * self.outputs]
    }
}

impl<B: Backend> Mlp<B> {
    /// The dense layers' parameters, from the input to the output (the input factors and
    /// an encoding's frequencies are not dense layers).
    pub fn dense_layers(&self) -> Result<Vec<DenseLayer>> {
        let mut arrays = export_params(self.body())?.into_iter();
        let mut layers = Vec::new();
        while let Some(w) = arrays.next() {
            let b = arrays
                .next()
                .ok_or_else(|| mismatch(format!("`{}` has no bias after it", w.name)))?;
            let [inputs, outputs] = w.shape[..] else {
                return Err(mismatch(format!("`{}` is not a matrix", w.name)));
            };
            if b.shape != [outputs] {
                return Err(mismatch(format!(
                    "`{}` does not match `{}`",
                    b.name, w.name
                )));
            }
            let (weight, bias) = (w.data, b.data);
            layers.push(DenseLayer {
                inputs,
                outputs,
                weight,
                bias,
            });
        }
        Ok(layers)
    }

    /// Replaces the dense layers' parameters with `layers` (as many, of the same shapes,
    /// from the input to the output); an error naming the first that does not fit changes
    /// nothing.
    pub fn set_dense_layers(&mut self, layers: &[DenseLayer]) -> Result<()> {
        let names: Vec<NamedArray> = export_params(self.body())?;
        if names.len() != 2 * layers.len() {
            return Err(mismatch(format!(
                "the network has {} dense layers, not {}",
                names.len() / 2,
                layers.len()
            )));
        }
        let mut state = Vec::with_capacity(names.len());
        for (pair, layer) in names.chunks_exact(2).zip(layers) {
            let (w, b) = (&pair[0], &pair[1]);
            let weight = vec![layer.inputs, layer.outputs];
            if layer.weight.len() != layer.inputs * layer.outputs
                || layer.bias.len() != layer.outputs
            {
                return Err(mismatch(format!(
                    "a {}x{} layer given for `{}` holds {} weights and {} biases",
                    layer.inputs,
                    layer.outputs,
                    w.name,
                    layer.weight.len(),
                    layer.bias.len()
                )));
            }
            state.push(NamedArray::new(
                w.name.clone(),
                weight,
                layer.weight.clone(),
            )?);
            state.push(NamedArray::new(
                b.name.clone(),
                vec![layer.outputs],
                layer.bias.clone(),
            )?);
        }
        import_params(self.body_mut(), &state, "model")
    }
}

/// A [`Error::StateMismatch`] with `message`.
fn mismatch(message: String) -> Error {
    Error::StateMismatch(message)
}
