//! A stack of layers applied one after the other.

use super::{DenseParts, Layer, ParamMut, ParamRef, check_input, check_matrix};
use crate::{Result, config_err};
use tensor_core::{Backend, Tensor};

/// Layers applied in order; parameters are named `layers.{i}.{name}`.
///
/// Each layer reads the previous layer's output buffer directly (no copies); the backward
/// pass hands each layer its own forward input again. Where a ReLU layer is followed by a
/// layer that supports it ([`Layer::set_input_relu`]), the gradient passed between them is
/// the one at the ReLU's pre-activation, computed in the same pass as the next layer's
/// input gradient.
pub struct Sequential<B: Backend> {
    layers: Vec<Box<dyn Layer<B>>>,
}

impl<B: Backend> Default for Sequential<B> {
    fn default() -> Self {
        Sequential { layers: Vec::new() }
    }
}

impl<B: Backend> Sequential<B> {
    /// An empty stack.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a layer; its input width must match the current output width.
    pub fn push(&mut self, mut layer: Box<dyn Layer<B>>) -> Result<()> {
        if let Some(last) = self.layers.last()
            && last.output_dim() != layer.input_dim()
        {
            return Err(config_err(format!(
                "layer {} takes {} inputs but the previous layer gives {}",
                self.layers.len(),
                layer.input_dim(),
                last.output_dim()
            )));
        }
        layer.set_name_prefix(&format!("layers.{}.", self.layers.len()));
        // A ReLU output followed by a layer that can fold relu' into its input gradient:
        // the gradient between them is the one at the pre-activation, with no extra pass.
        if let Some(last) = self.layers.last_mut()
            && last.relu_output()
            && layer.set_input_relu(true)
        {
            last.set_grad_at_preact(true);
        }
        self.layers.push(layer);
        Ok(())
    }

    /// Appends a layer (builder style).
    pub fn with(mut self, layer: impl Layer<B> + 'static) -> Result<Self> {
        self.push(Box::new(layer))?;
        Ok(self)
    }

    /// The layers, in order.
    pub fn layers(&self) -> &[Box<dyn Layer<B>>] {
        &self.layers
    }

    /// Every layer's [`DenseParts`], in order, when every layer is dense (`None` otherwise).
    pub fn dense_parts_all(&mut self) -> Option<Vec<DenseParts<'_, B>>> {
        self.layers.iter_mut().map(|l| l.dense_parts()).collect()
    }

    /// The number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there are no layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    fn backward_impl(
        &mut self,
        x: &Tensor<B>,
        grad_out: &Tensor<B>,
        want_input: bool,
    ) -> Result<()> {
        let n = self.layers.len();
        for i in (0..n).rev() {
            let (before, rest) = self.layers.split_at_mut(i);
            let (current, after) = rest.split_at_mut(1);
            let layer = &mut current[0];
            let input = match before.last() {
                Some(prev) => prev
                    .output()
                    .ok_or_else(|| super::no_forward("Sequential::backward"))?,
                None => x,
            };
            let grad = match after.first() {
                Some(next) => next
                    .input_grad()
                    .ok_or_else(|| super::no_forward("Sequential::backward"))?,
                None => grad_out,
            };
            if i > 0 || want_input {
                layer.backward(input, grad)?;
            } else {
                layer.backward_params(input, grad)?;
            }
        }
        Ok(())
    }

    /// Runs every layer's `infer`, reusing the intermediate buffers in `scratch` (kept by
    /// the caller between calls of the same row count).
    pub fn infer_with_scratch(
        &self,
        x: &Tensor<B>,
        out: &mut Tensor<B>,
        scratch: &mut Vec<Tensor<B>>,
    ) -> Result<()> {
        let n = self.layers.len();
        if n == 0 {
            return Ok(out.copy_from(x)?);
        }
        let rows = check_input(x, self.input_dim(), "Sequential::infer")?;
        check_matrix(out, rows, self.output_dim(), "Sequential::infer (output)")?;
        scratch.truncate(n - 1);
        for (i, layer) in self.layers[..n - 1].iter().enumerate() {
            let want = [rows, layer.output_dim()];
            match scratch.get(i) {
                Some(t) if t.dims() == want => {}
                Some(_) => scratch[i] = Tensor::uninit(x.backend(), want)?,
                None => scratch.push(Tensor::uninit(x.backend(), want)?),
            }
        }
        for (i, layer) in self.layers.iter().enumerate() {
            let split = i.min(scratch.len());
            let (before, rest) = scratch.split_at_mut(split);
            let input = if i == 0 { x } else { &before[i - 1] };
            let output = if i + 1 == n { &mut *out } else { &mut rest[0] };
            layer.infer(input, output)?;
        }
        Ok(())
    }
}

impl<B: Backend> Layer<B> for Sequential<B> {
    fn describe(&self) -> String {
        let parts: Vec<String> = self.layers.iter().map(|l| l.describe()).collect();
        format!("sequential [{}]", parts.join("; "))
    }

    fn input_dim(&self) -> usize {
        self.layers.first().map_or(0, |l| l.input_dim())
    }

    fn output_dim(&self) -> usize {
        self.layers.last().map_or(0, |l| l.output_dim())
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        if self.layers.is_empty() {
            return Err(config_err("a Sequential with no layers cannot run forward"));
        }
        for i in 0..self.layers.len() {
            let (before, rest) = self.layers.split_at_mut(i);
            let input = match before.last() {
                Some(prev) => prev
                    .output()
                    .ok_or_else(|| super::no_forward("Sequential::forward"))?,
                None => x,
            };
            rest[0].forward(input)?;
        }
        self.output()
            .ok_or_else(|| super::no_forward("Sequential::forward"))
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.layers.last().and_then(|l| l.output())
    }

    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        self.backward_impl(x, grad_out, true)?;
        self.input_grad()
            .ok_or_else(|| super::no_forward("Sequential::backward"))
    }

    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        self.backward_impl(x, grad_out, false)
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.layers.first().and_then(|l| l.input_grad())
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        self.infer_with_scratch(x, out, &mut Vec::new())
    }

    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        self.layers.iter().try_for_each(|l| l.visit_params(f))
    }

    fn visit_params_mut(&mut self, f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>) -> Result<()> {
        self.layers
            .iter_mut()
            .try_for_each(|l| l.visit_params_mut(f))
    }

    fn relu_output(&self) -> bool {
        self.layers.last().is_some_and(|l| l.relu_output())
    }

    fn set_grad_at_preact(&mut self, on: bool) {
        if let Some(l) = self.layers.last_mut() {
            l.set_grad_at_preact(on);
        }
    }

    fn set_input_relu(&mut self, on: bool) -> bool {
        self.layers
            .first_mut()
            .is_some_and(|l| l.set_input_relu(on))
    }

    fn set_name_prefix(&mut self, prefix: &str) {
        for (i, l) in self.layers.iter_mut().enumerate() {
            l.set_name_prefix(&format!("{prefix}layers.{i}."));
        }
    }

    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.layers
            .iter_mut()
            .for_each(|l| l.set_accumulate_grads(accumulate));
    }
}
