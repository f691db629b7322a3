//! [`Mlp`]: an optional input encoding followed by a stack of [`Linear`] layers.

use super::builder::MlpBuilder;
use super::config::MlpConfig;
use super::predict::{chunk_rows_for, predict_in_chunks};
use super::state::{NamedArray, export_params, find, plan_params, upload_params};
use super::traits::{InputSplit, Model};
use crate::Result;
use crate::encoding::Encoding;
use crate::layer::{Layer, Linear, ParamMut, ParamRef, Scale, Sequential, check_input, no_forward};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, Tensor};

/// The name under which the encoding's frequency matrix is exported.
pub const ENCODING_FREQUENCIES: &str = crate::encoding::FREQUENCIES;
/// The name of the learned input factors ([`MlpConfig::input_scale`]).
pub const INPUT_SCALE: &str = "input.scale";

/// A multi-layer perceptron: optional learned input factors ([`INPUT_SCALE`]), optional
/// coordinate encoding, then linear layers with fused activations. Parameters are named
/// `layers.{i}.weight` (`[in, out]`) and `layers.{i}.bias` (`[out]`).
///
/// It implements [`Layer`], so it trains with the same `forward`/`backward` calls as any
/// layer (bring the trait into scope with `use nn::prelude::*`).
pub struct Mlp<B: Backend> {
    backend: B,
    config: MlpConfig,
    scale: Option<Scale<B>>,
    encoding: Option<Encoding<B>>,
    body: Sequential<B>,
}

impl<B: Backend> Mlp<B> {
    /// A builder for the common case.
    pub fn builder() -> MlpBuilder<B> {
        MlpBuilder::new()
    }

    /// The model `config` describes, with parameters drawn from a `ChaCha8Rng` seeded by
    /// `seed` (layer by layer: weight, then bias). The encoding matrix comes from the seed
    /// stored in the configuration.
    pub fn from_config(backend: &B, config: &MlpConfig, seed: u64) -> Result<Self> {
        config.validate()?;
        let mut encoding = Encoding::from_config(backend, config.input, &config.encoding)?;
        if let Some(e) = encoding.as_mut().filter(|_| config.learned_frequencies) {
            e.learn_frequencies()?;
        }
        let scale = config
            .input_scale
            .then(|| Scale::new(backend, config.input, INPUT_SCALE))
            .transpose()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let dims = config.layer_dims();
        let mut body = Sequential::new();
        for (i, &(fan_in, fan_out, act)) in dims.iter().enumerate() {
            let init = config.init.layer(
                i,
                dims.len(),
                fan_in,
                fan_out,
                act,
                config.hidden_activation,
            );
            let layer = Linear::new(backend, fan_in, fan_out, act, init, &mut rng)?;
            body.push(Box::new(layer))?;
        }
        Ok(Mlp {
            backend: backend.clone(),
            config: config.clone(),
            scale,
            encoding,
            body,
        })
    }

    /// The architecture.
    pub fn config(&self) -> &MlpConfig {
        &self.config
    }

    /// The learned input factors, if any.
    pub fn input_scale(&self) -> Option<&Scale<B>> {
        self.scale.as_ref()
    }

    /// The input encoding, if any.
    pub fn encoding(&self) -> Option<&Encoding<B>> {
        self.encoding.as_ref()
    }

    /// The linear layers.
    pub fn body(&self) -> &Sequential<B> {
        &self.body
    }

    /// The linear layers, mutably (to train on inputs already encoded with
    /// [`encode`](Self::encode)).
    pub fn body_mut(&mut self) -> &mut Sequential<B> {
        &mut self.body
    }

    /// The encoded input (`None` when the model has no encoding), in a new tensor.
    pub fn encode(&self, x: &Tensor<B>) -> Result<Option<Tensor<B>>> {
        match &self.encoding {
            None => Ok(None),
            Some(e) => {
                let rows = check_input(x, self.config.input, "Mlp::encode")?;
                let mut out = Tensor::uninit(&self.backend, [rows, e.output_dim()])?;
                e.infer(x, &mut out)?;
                Ok(Some(out))
            }
        }
    }

    /// Predictions for `x` (`[rows, input]`), computed in chunks of rows so that the
    /// intermediate buffers stay bounded (about 16 MiB each) for inputs of any size. The
    /// training buffers are not touched.
    pub fn predict(&self, x: &Tensor<B>) -> Result<Tensor<B>> {
        let widest = self
            .config
            .layer_dims()
            .iter()
            .map(|d| d.1)
            .chain(std::iter::once(
                self.config.encoding.output_dim(self.config.input),
            ))
            .max()
            .unwrap_or(1);
        self.predict_chunked(x, chunk_rows_for(widest))
    }

    /// [`predict`](Self::predict) with an explicit chunk size in rows.
    pub fn predict_chunked(&self, x: &Tensor<B>, chunk_rows: usize) -> Result<Tensor<B>> {
        check_input(x, self.config.input, "Mlp::predict")?;
        let mut scratch = Vec::new();
        predict_in_chunks(x, self.config.output, chunk_rows, |x, out| {
            self.infer_chunk(x, out, &mut scratch)
        })
    }

    /// Encoding then body into `out`; `scratch[0]` holds the encoded chunk, the rest the
    /// body's intermediate buffers.
    fn infer_chunk(
        &self,
        x: &Tensor<B>,
        out: &mut Tensor<B>,
        scratch: &mut Vec<Tensor<B>>,
    ) -> Result<()> {
        let scaled;
        let x = match &self.scale {
            None => x,
            Some(s) => {
                let mut t = Tensor::uninit(&self.backend, x.dims().to_vec())?;
                s.infer(x, &mut t)?;
                scaled = t;
                &scaled
            }
        };
        match &self.encoding {
            None => self.body.infer_with_scratch(x, out, scratch),
            Some(e) => {
                let rows = x.dims()[0];
                let want = [rows, e.output_dim()];
                let mut encoded = match scratch.pop() {
                    Some(t) if t.dims() == want => t,
                    _ => Tensor::uninit(&self.backend, want)?,
                };
                // The encoded buffer travels at the end of the scratch list between calls.
                e.infer(x, &mut encoded)?;
                let result = self.body.infer_with_scratch(&encoded, out, scratch);
                scratch.push(encoded);
                result
            }
        }
    }

    /// Copies every parameter (and the encoding's frequency matrix, as
    /// [`ENCODING_FREQUENCIES`]) to the host.
    pub fn export_state(&self) -> Result<Vec<NamedArray>> {
        let mut out = export_params(&self.body)?;
        if let Some(s) = &self.scale {
            out.push(NamedArray::from_tensor(INPUT_SCALE, s.factors())?);
        }
        if let Some(e) = &self.encoding {
            out.push(NamedArray::from_tensor(
                ENCODING_FREQUENCIES,
                e.frequencies(),
            )?);
        }
        Ok(out)
    }

    /// Copies every parameter gradient to the host (named like the parameters).
    pub fn export_grads(&self) -> Result<Vec<NamedArray>> {
        let mut out = Vec::new();
        self.visit_params(&mut |p| {
            out.push(NamedArray::from_tensor(p.name, p.grad)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Restores parameters exported by [`export_state`](Self::export_state). Every name and
    /// shape is checked before anything is changed; a missing tensor or a shape mismatch
    /// is an [`Error::StateMismatch`](crate::Error::StateMismatch) naming the tensor (and
    /// both shapes). Names that are not the model's (optimizer buffers of the same
    /// checkpoint) are ignored.
    pub fn import_state(&mut self, state: &[NamedArray]) -> Result<()> {
        let plan = plan_params(&self.body, state, "model")?;
        let factors = match &self.scale {
            Some(_) => Some(find(state, INPUT_SCALE, &[self.config.input], "model")?),
            None => None,
        };
        let frequencies = match &self.encoding {
            Some(e) => Some(find(
                state,
                ENCODING_FREQUENCIES,
                e.frequencies().dims(),
                "model",
            )?),
            None => None,
        };
        if let (Some(s), Some(f)) = (self.scale.as_mut(), factors) {
            s.set_factors(&f.data)?;
        }
        if let (Some(e), Some(f)) = (self.encoding.as_mut(), frequencies) {
            e.set_frequencies(&f.data)?;
        }
        upload_params(&mut self.body, plan, "model")
    }

    /// The number of trainable scalars.
    pub fn num_params(&self) -> usize {
        let scale = self.scale.as_ref().map_or(0, |s| s.num_params());
        scale + self.encoding.as_ref().map_or(0, |e| e.num_params()) + self.body.num_params()
    }
}

impl<B: Backend> Layer<B> for Mlp<B> {
    fn describe(&self) -> String {
        let parts: Vec<String> = [
            self.scale.as_ref().map(|s| s.describe()),
            self.encoding.as_ref().map(|e| e.describe()),
            Some(self.body.describe()),
        ]
        .into_iter()
        .flatten()
        .collect();
        format!("mlp [{}]", parts.join("; "))
    }

    fn input_dim(&self) -> usize {
        self.config.input
    }

    fn output_dim(&self) -> usize {
        self.config.output
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        let x = match &mut self.scale {
            None => x,
            Some(s) => s.forward(x)?,
        };
        match &mut self.encoding {
            None => self.body.forward(x),
            Some(e) => {
                let encoded = e.forward(x)?;
                self.body.forward(encoded)
            }
        }
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.body.output()
    }

    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        let Some(s) = &mut self.scale else {
            return backward_unscaled(self.encoding.as_mut(), &mut self.body, x, grad_out);
        };
        let scaled = s.output().ok_or_else(|| no_forward("Mlp::backward"))?;
        let g = backward_unscaled(self.encoding.as_mut(), &mut self.body, scaled, grad_out)?;
        s.backward(x, g)
    }

    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        if let Some(s) = &mut self.scale {
            let scaled = s.output().ok_or_else(|| no_forward("Mlp::backward"))?;
            let g = backward_unscaled(self.encoding.as_mut(), &mut self.body, scaled, grad_out)?;
            return s.backward_params(x, g);
        }
        match &mut self.encoding {
            None => self.body.backward_params(x, grad_out),
            Some(e) if e.learns_frequencies() => {
                backward_unscaled(Some(e), &mut self.body, x, grad_out).map(|_| ())
            }
            Some(e) => {
                let encoded = e.output().ok_or_else(|| no_forward("Mlp::backward"))?;
                self.body.backward_params(encoded, grad_out)
            }
        }
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        if let Some(s) = &self.scale {
            return s.input_grad();
        }
        match &self.encoding {
            None => self.body.input_grad(),
            Some(e) => e.input_grad(),
        }
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.config.input, "Mlp::infer")?;
        crate::layer::check_matrix(out, rows, self.config.output, "Mlp::infer (output)")?;
        self.infer_chunk(x, out, &mut Vec::new())
    }

    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        if let Some(s) = &self.scale {
            s.visit_params(f)?;
        }
        if let Some(e) = &self.encoding {
            e.visit_params(f)?;
        }
        self.body.visit_params(f)
    }

    fn visit_params_mut(&mut self, f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>) -> Result<()> {
        if let Some(s) = &mut self.scale {
            s.visit_params_mut(f)?;
        }
        if let Some(e) = &mut self.encoding {
            e.visit_params_mut(f)?;
        }
        self.body.visit_params_mut(f)
    }

    fn set_accumulate_grads(&mut self, accumulate: bool) {
        if let Some(s) = &mut self.scale {
            s.set_accumulate_grads(accumulate);
        }
        self.body.set_accumulate_grads(accumulate);
    }
}

impl<B: Backend> std::fmt::Debug for Mlp<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mlp")
            .field("backend", &self.backend.name())
            .field("config", &self.config)
            .finish()
    }
}

impl<B: Backend> Model<B> for Mlp<B> {
    type Config = MlpConfig;
    const KIND: &'static str = "mlp";

    fn backend(&self) -> &B {
        &self.backend
    }

    fn from_config(backend: &B, config: &MlpConfig, seed: u64) -> Result<Self> {
        Mlp::from_config(backend, config, seed)
    }

    fn config(&self) -> &MlpConfig {
        &self.config
    }

    fn predict(&self, x: &Tensor<B>) -> Result<Tensor<B>> {
        Mlp::predict(self, x)
    }

    fn export_state(&self) -> Result<Vec<NamedArray>> {
        Mlp::export_state(self)
    }

    fn import_state(&mut self, state: &[NamedArray]) -> Result<()> {
        Mlp::import_state(self, state)
    }

    /// The encoding (Fourier features or positional) has no trainable parameters: the
    /// linear layers are the trainable rest. Learned input factors come before the
    /// encoding, so a model with them has no such split.
    fn split_input_encoding(&mut self) -> Option<InputSplit<'_, B>> {
        let encoding = self.encoding.as_ref()?;
        if self.scale.is_some() || encoding.learns_frequencies() {
            return None;
        }
        Some(InputSplit {
            encoding,
            rest: &mut self.body,
        })
    }
}

/// The backward pass through the encoding (if any) and the linear layers, from the
/// encoding's input `x`: the gradient with respect to `x`.
fn backward_unscaled<'a, B: Backend>(
    encoding: Option<&'a mut Encoding<B>>,
    body: &'a mut Sequential<B>,
    x: &Tensor<B>,
    grad_out: &Tensor<B>,
) -> Result<&'a Tensor<B>> {
    match encoding {
        None => body.backward(x, grad_out),
        Some(e) => {
            let encoded = e.output().ok_or_else(|| no_forward("Mlp::backward"))?;
            let g = body.backward(encoded, grad_out)?;
            e.backward(x, g)
        }
    }
}
