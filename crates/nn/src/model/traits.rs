//! [`Model`]: what the [`Trainer`](crate::Trainer) and checkpoints need from a network.

use super::state::{NamedArray, export_params, import_params};
use crate::Result;
use crate::layer::Layer;
use crate::optim::AdamConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use tensor_core::{Backend, Tensor};

/// A whole network that can be trained, saved, rebuilt and used for prediction: the
/// extension point for new architectures. [`Mlp`](crate::Mlp) is one implementation.
///
/// A model is a [`Layer`] (the supertrait) with a few more abilities:
///
/// | need | from | contract |
/// | --- | --- | --- |
/// | a stable name | [`Model::KIND`] | unique among model types; model files and checkpoints record it (`model_kind`) |
/// | its backend | [`Model::backend`] | the backend its parameters live on |
/// | training forward | [`Layer::forward`] | keeps what the backward pass needs, in buffers reused between steps |
/// | backward | [`Layer::backward`], [`Layer::backward_params`] | parameter gradients overwritten (or accumulated after [`Layer::set_accumulate_grads`]) |
/// | parameters with gradients | [`Layer::visit_params`], [`Layer::visit_params_mut`] | every trainable tensor, by a stable name, in a stable order (optimizers key their state by it) |
/// | inference | [`Model::predict`] | new tensor, training buffers untouched, bounded memory for any number of rows |
/// | checkpoint state | [`Model::export_state`], [`Model::import_state`] | host-side [`NamedArray`]s; by default the parameters |
/// | checkpoint configuration | [`Model::Config`], [`Model::config`], [`Model::from_config`] | serialisable; with the state, enough to rebuild the model |
/// | optimizer settings | [`Model::adam`] | the Adam settings it trains best with; plain Adam (AdamW with a weight decay) by default |
///
/// These are all a model type implements: with them, the `iron-learn-io` crate saves, loads,
/// predicts with and renders it, and `iron-learn-train` trains and resumes it in a run
/// folder; `iron-learn-onnx` adds one trait of its own for the ONNX form.
///
/// With these, a model trains with [`Trainer::fit`](crate::Trainer::fit) and every
/// [`Optimizer`](crate::Optimizer), and resumes bit for bit: rebuild it with
/// [`from_config`](Model::from_config) (any seed), [`import_state`](Model::import_state) the
/// saved arrays, then import the optimizer's and the trainer's state.
///
/// The trainer's options that look inside a model work through this trait: area supervision
/// ([`TrainerConfig::pool`](crate::TrainerConfig::pool)) needs nothing but the output, and
/// the cached input encoding
/// ([`TrainerConfig::cache_encoding`](crate::TrainerConfig::cache_encoding)) uses the
/// optional [`split_input_encoding`](Model::split_input_encoding) hook.
///
/// # Example
///
/// A linear model `y = x W + b` with its own configuration:
///
/// ```
/// use nn::model::{chunk_rows_for, predict_in_chunks};
/// use nn::prelude::*;
/// use nn::{Init, Linear, ParamMut, ParamRef};
/// use serde::{Deserialize, Serialize};
/// use tensor_core::rand::SeedableRng;
/// use tensor_core::rand_chacha::ChaCha8Rng;
/// use tensor_cpu::CpuBackend;
///
/// #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
/// struct LinearConfig {
///     input: usize,
///     output: usize,
/// }
///
/// struct LinearModel<B: Backend> {
///     backend: B,
///     config: LinearConfig,
///     layer: Linear<B>,
/// }
///
/// // The training interface: delegate to the layers the model is made of.
/// impl<B: Backend> Layer<B> for LinearModel<B> {
///     fn describe(&self) -> String {
///         format!("linear model [{}]", self.layer.describe())
///     }
///     fn input_dim(&self) -> usize {
///         self.config.input
///     }
///     fn output_dim(&self) -> usize {
///         self.config.output
///     }
///     fn forward(&mut self, x: &Tensor<B>) -> nn::Result<&Tensor<B>> {
///         self.layer.forward(x)
///     }
///     fn output(&self) -> Option<&Tensor<B>> {
///         self.layer.output()
///     }
///     fn backward(&mut self, x: &Tensor<B>, grad: &Tensor<B>) -> nn::Result<&Tensor<B>> {
///         self.layer.backward(x, grad)
///     }
///     fn backward_params(&mut self, x: &Tensor<B>, grad: &Tensor<B>) -> nn::Result<()> {
///         self.layer.backward_params(x, grad)
///     }
///     fn input_grad(&self) -> Option<&Tensor<B>> {
///         self.layer.input_grad()
///     }
///     fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> nn::Result<()> {
///         self.layer.infer(x, out)
///     }
///     fn visit_params(
///         &self,
///         f: &mut dyn FnMut(ParamRef<'_, B>) -> nn::Result<()>,
///     ) -> nn::Result<()> {
///         self.layer.visit_params(f)
///     }
///     fn visit_params_mut(
///         &mut self,
///         f: &mut dyn FnMut(ParamMut<'_, B>) -> nn::Result<()>,
///     ) -> nn::Result<()> {
///         self.layer.visit_params_mut(f)
///     }
///     fn set_accumulate_grads(&mut self, accumulate: bool) {
///         self.layer.set_accumulate_grads(accumulate)
///     }
/// }
///
/// // Configuration and prediction; the state is the parameters (the default).
/// impl<B: Backend> Model<B> for LinearModel<B> {
///     type Config = LinearConfig;
///     const KIND: &'static str = "linear_model";
///
///     fn from_config(backend: &B, config: &LinearConfig, seed: u64) -> nn::Result<Self> {
///         let (i, o) = (config.input, config.output);
///         let init = Init::XavierUniform.layer(0, 1, i, o, Activation::Identity, Activation::Identity);
///         let mut rng = ChaCha8Rng::seed_from_u64(seed);
///         let layer = Linear::new(backend, i, o, Activation::Identity, init, &mut rng)?;
///         Ok(LinearModel { backend: backend.clone(), config: config.clone(), layer })
///     }
///
///     fn backend(&self) -> &B {
///         &self.backend
///     }
///
///     fn config(&self) -> &LinearConfig {
///         &self.config
///     }
///
///     fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>> {
///         let widest = self.config.input.max(self.config.output);
///         predict_in_chunks(x, self.config.output, chunk_rows_for(widest), |x, out| {
///             self.layer.infer(x, out)
///         })
///     }
/// }
///
/// // It trains like any model, and comes back from its configuration and state.
/// let cpu = CpuBackend::new();
/// let x = Tensor::from_slice(&cpu, &[0., 1., 2., 3.], [4, 1])?;
/// let y = Tensor::from_slice(&cpu, &[1., 3., 5., 7.], [4, 1])?;
/// let config = LinearConfig { input: 1, output: 1 };
/// let mut model = LinearModel::from_config(&cpu, &config, 7)?;
/// let mut adam = Adam::new(AdamConfig::new(0.1))?;
/// let mut trainer = Trainer::new(TrainerConfig {
///     length: TrainLength::Steps(400),
///     ..TrainerConfig::default()
/// })?;
/// trainer.fit(&mut model, &mut adam, Data::new(&x, &y), None)?;
///
/// let json = serde_json::to_string(model.config()).unwrap();
/// let saved = model.export_state()?;
/// let mut copy = LinearModel::from_config(&cpu, &serde_json::from_str(&json).unwrap(), 0)?;
/// copy.import_state(&saved)?;
/// let p = copy.predict(&x)?.to_vec()?;
/// for (p, t) in p.iter().zip([1., 3., 5., 7.]) {
///     assert!((p - t).abs() < 0.05, "{p} vs {t}");
/// }
/// # Ok::<(), nn::Error>(())
/// ```
pub trait Model<B: Backend>: Layer<B> + Sized + 'static {
    /// Everything needed to rebuild the model's structure (sizes, activations, the seeds
    /// of fixed random matrices...), stored in checkpoint metadata.
    type Config: Clone + PartialEq + Debug + Serialize + DeserializeOwned + Send + Sync + 'static;

    /// The model type's stable name, unique among model types: model files and checkpoints
    /// record it (their `model_kind`) and are rebuilt by it.
    const KIND: &'static str;

    /// The backend the model's parameters live on.
    fn backend(&self) -> &B;

    /// A new model with the structure `config` describes and parameters drawn from `seed`
    /// (the configuration is validated first). Restoring a checkpoint builds the model this
    /// way, with any seed, then imports its state.
    fn from_config(backend: &B, config: &Self::Config, seed: u64) -> Result<Self>;

    /// The configuration the model was built from.
    fn config(&self) -> &Self::Config;

    /// Predictions for `x` (`[rows, input_dim]`) in a new tensor (`[rows, output_dim]`),
    /// without touching the training buffers. Inputs of any size must work in bounded
    /// memory: compute in chunks of rows ([`predict_in_chunks`](super::predict_in_chunks)
    /// does the bookkeeping).
    fn predict(&self, x: &Tensor<B>) -> Result<Tensor<B>>;

    /// The Adam settings the model trains best with, for learning rate `lr` and AdamW's
    /// decoupled `weight_decay`: by default plain Adam, or AdamW when `weight_decay` is
    /// positive.
    fn adam(lr: f32, weight_decay: f32) -> AdamConfig {
        if weight_decay > 0.0 {
            AdamConfig::adamw(lr, weight_decay)
        } else {
            AdamConfig::new(lr)
        }
    }

    /// Copies the state a checkpoint holds to the host: by default every parameter under its
    /// stable name. Models with other state (a fixed random matrix, running statistics)
    /// add it under names of their own.
    fn export_state(&self) -> Result<Vec<NamedArray>> {
        export_params(self)
    }

    /// Restores state saved by [`export_state`](Model::export_state). Every name and shape
    /// is checked before anything changes; a missing tensor or a shape mismatch is an
    /// [`Error::StateMismatch`](crate::Error::StateMismatch) naming the tensor. Arrays the
    /// model does not own (optimizer buffers of the same checkpoint) are ignored.
    fn import_state(&mut self, state: &[NamedArray]) -> Result<()> {
        import_params(self, state, "model")
    }

    /// An optional hook: the model seen as a parameter-free input encoding followed by the
    /// trainable rest, when it has that form (`None`, the default, otherwise).
    ///
    /// With it, the trainer encodes the training inputs once and trains `rest` on the cached
    /// encoding ([`TrainerConfig::cache_encoding`](crate::TrainerConfig::cache_encoding)).
    /// The implementation must guarantee that `encoding` has no trainable parameters and is
    /// deterministic, that `rest.forward(encoding(x))` is the model's forward pass on `x`,
    /// and that the parameters of `rest` are exactly the model's, visited in the same order
    /// under the same names (the optimizer updates the model as a whole).
    fn split_input_encoding(&mut self) -> Option<InputSplit<'_, B>> {
        None
    }
}

/// A model split into a parameter-free input encoding and the trainable rest (see
/// [`Model::split_input_encoding`]).
pub struct InputSplit<'a, B: Backend> {
    /// The first stage: no trainable parameters, the same output for the same input.
    pub encoding: &'a dyn Layer<B>,
    /// Everything after the encoding, which holds all of the model's parameters.
    pub rest: &'a mut dyn Layer<B>,
}
