//! The model types a model file can hold: [`ModelKind`] (a model type with the name its
//! files record), [`Network`] (any of them behind one object) and the registry that rebuilds
//! a network from a file by its kind ([`register`]).
//!
//! Adding a model type: implement [`nn::Model`] for it, implement [`ModelKind`] (one
//! constant), and, unless it is one of the built-in types listed in `loaders`, call
//! [`register`] once for the backend it runs on. Saving, loading, `predict`, image rendering
//! and run checkpoints (resumed through [`load_network`](super::load_network), like every
//! load) then work for it with no other change. The `iron-learn-onnx` crate's `register`
//! makes this same call and adds the type's ONNX form.

use std::any::Any;
use std::fmt::Debug;

use nn::{HashGridMlp, Mlp, Model, NamedArray};
use serde_json::Value;
use tensor_core::{Backend, Tensor};

use super::registry::KindRegistry;

/// The metadata key naming the model type of a file (absent in files written before there
/// were several: they hold an MLP, [`DEFAULT_KIND`]).
pub const MODEL_KIND_KEY: &str = "model_kind";

/// The kind of a file without [`MODEL_KIND_KEY`]: an MLP.
pub const DEFAULT_KIND: &str = "mlp";

/// A model type that a model file can hold: an [`nn::Model`] with the name recorded under
/// [`MODEL_KIND_KEY`]. Its configuration is the `architecture` metadata entry and its state
/// the file's tensors, so the type saves and rebuilds itself.
pub trait ModelKind<B: Backend>: Model<B> + Debug + 'static {
    /// The `model_kind` metadata value, unique among model types.
    const KIND: &'static str;

    /// The backend the model lives on.
    fn backend(&self) -> &B;
}

impl<B: Backend> ModelKind<B> for Mlp<B> {
    const KIND: &'static str = DEFAULT_KIND;

    fn backend(&self) -> &B {
        Mlp::backend(self)
    }
}

impl<B: Backend> ModelKind<B> for HashGridMlp<B> {
    const KIND: &'static str = "hash_grid_mlp";

    fn backend(&self) -> &B {
        HashGridMlp::backend(self)
    }
}

/// The trained network of a [`FittedModel`](super::FittedModel): any [`ModelKind`], seen
/// through what a model file and prediction need ([`boxed`] makes one).
pub trait Network<B: Backend>: Debug + Send + Sync {
    /// The `model_kind` metadata value of this network.
    fn kind(&self) -> &'static str;
    /// Input columns.
    fn input_dim(&self) -> usize;
    /// Output columns.
    fn output_dim(&self) -> usize;
    /// The backend the network lives on.
    fn backend(&self) -> &B;
    /// The network's outputs for the rows of `x` (`[rows, input_dim]`).
    fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>>;
    /// The configuration, as stored under the `architecture` metadata key.
    fn config_value(&self) -> serde_json::Result<Value>;
    /// The state (parameters and any other tensors), by name.
    fn export_state(&self) -> nn::Result<Vec<NamedArray>>;
    /// The number of trainable values.
    fn num_params(&self) -> usize;
    /// The network as [`Any`], to reach its concrete type ([`downcast_ref`]).
    ///
    /// [`downcast_ref`]: trait.Network.html#method.downcast_ref
    fn as_any(&self) -> &dyn Any;
    /// The network as a boxed [`Any`], to take its concrete type ([`downcast`]).
    ///
    /// [`downcast`]: trait.Network.html#method.downcast
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// A model of kind `M` behind [`Network`] (a wrapper, so that the methods of `Network` never
/// shadow those of [`Model`] on `M` itself).
#[derive(Debug)]
struct Held<M>(M);

/// A network of any [`ModelKind`] as a [`Network`] object.
pub fn boxed<B: Backend, M: ModelKind<B>>(model: M) -> Box<dyn Network<B>> {
    Box::new(Held(model))
}

impl<B: Backend, M: ModelKind<B>> Network<B> for Held<M> {
    fn kind(&self) -> &'static str {
        M::KIND
    }
    fn input_dim(&self) -> usize {
        self.0.input_dim()
    }
    fn output_dim(&self) -> usize {
        self.0.output_dim()
    }
    fn backend(&self) -> &B {
        self.0.backend()
    }
    fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>> {
        self.0.predict(x)
    }
    fn config_value(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self.0.config())
    }
    fn export_state(&self) -> nn::Result<Vec<NamedArray>> {
        self.0.export_state()
    }
    fn num_params(&self) -> usize {
        self.0.num_params()
    }
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        Box::new(self.0)
    }
}

impl<B: Backend> dyn Network<B> + '_ {
    /// The network as a `M`, when it is one.
    pub fn downcast_ref<M: 'static>(&self) -> Option<&M> {
        self.as_any().downcast_ref()
    }

    /// The network as a `M`, when it is one; else the network back, unchanged.
    pub fn downcast<M: 'static>(self: Box<Self>) -> Result<M, Box<Self>> {
        if self.as_any().is::<M>() {
            let any = self.into_any();
            Ok(*any
                .downcast::<M>()
                .unwrap_or_else(|_| unreachable!("checked above")))
        } else {
            Err(self)
        }
    }

    /// The MLP, when this is one.
    pub fn as_mlp(&self) -> Option<&Mlp<B>> {
        self.downcast_ref()
    }
}

/// Rebuilds a network from a file's configuration and tensors; errors are sentences about
/// the file.
type Loader<B> = fn(&Value, &B, &[NamedArray]) -> Result<Box<dyn Network<B>>, String>;

/// How each model type is rebuilt from a file, by kind and backend.
static LOADERS: KindRegistry = KindRegistry::new();

/// The loaders, with the model types every build reads (the MLP and the hash-grid network)
/// added first on backend `B`.
fn loaders<B: Backend>() -> &'static KindRegistry {
    LOADERS.seed::<B>(|r| {
        for added in [
            r.add::<B, Mlp<B>, Loader<B>>(Mlp::<B>::KIND, load_as::<B, Mlp<B>>),
            r.add::<B, HashGridMlp<B>, Loader<B>>(
                HashGridMlp::<B>::KIND,
                load_as::<B, HashGridMlp<B>>,
            ),
        ] {
            debug_assert!(added.is_ok(), "the built-in kinds are distinct");
        }
    });
    &LOADERS
}

/// Adds the model type `M` on backend `B` to those that [`FittedModel::load`] and
/// [`FittedModel::from_checkpoint`] rebuild, by its [`ModelKind::KIND`]. Registering the
/// same type again changes nothing; a kind already taken by another type (a built-in one
/// included) is refused, naming it.
///
/// [`FittedModel::load`]: super::FittedModel::load
/// [`FittedModel::from_checkpoint`]: super::FittedModel::from_checkpoint
pub fn register<B: Backend, M: ModelKind<B>>() -> crate::Result<()> {
    loaders::<B>()
        .add::<B, M, Loader<B>>(M::KIND, load_as::<B, M>)
        .map_err(crate::Error::invalid)
}

/// The kinds readable on backend `B`, built-in first.
pub fn known_kinds<B: Backend>() -> Vec<&'static str> {
    loaders::<B>().kinds::<B>()
}

/// Rebuilds a network of kind `kind` from its configuration and state on `backend`; errors
/// are sentences about the file.
pub(super) fn rebuild<B: Backend>(
    kind: &str,
    config: &Value,
    backend: &B,
    state: &[NamedArray],
) -> Result<Box<dyn Network<B>>, String> {
    match loaders::<B>().get::<B, Loader<B>>(kind) {
        Some(load) => load(config, backend, state),
        None => Err(format!(
            "its `{MODEL_KIND_KEY}` is `{kind}`, which this version cannot read (it reads `{}`)",
            known_kinds::<B>().join("`, `")
        )),
    }
}

/// The [`Loader`] of model type `M`.
fn load_as<B: Backend, M: ModelKind<B>>(
    config: &Value,
    backend: &B,
    state: &[NamedArray],
) -> Result<Box<dyn Network<B>>, String> {
    let config: M::Config = serde_json::from_value(config.clone())
        .map_err(|e| format!("its `architecture` is unreadable ({e})"))?;
    let mut model = M::from_config(backend, &config, 0).map_err(|e| match e {
        nn::Error::Config(_) => format!("its `architecture` is invalid ({e})"),
        e => format!("its network cannot be built ({e})"),
    })?;
    model
        .import_state(state)
        .map_err(|e| format!("its tensors do not fit its architecture ({e})"))?;
    Ok(boxed(model))
}
