//! [`Network`]: the network of a model file, any [`nn::Model`] behind one object ([`boxed`]
//! makes one). The model type's [`Model::KIND`] is the name its files record; the
//! [`registry`](super::registry) rebuilds a network from a file by that name.

use std::any::Any;
use std::fmt::{self, Debug};
use std::marker::PhantomData;

use nn::{Mlp, Model, NamedArray};
use serde_json::Value;
use tensor_core::{Backend, Tensor};

/// The metadata key naming the model type of a file (absent in files written before there
/// were several: they hold an MLP, [`DEFAULT_KIND`]).
pub const MODEL_KIND_KEY: &str = "model_kind";

/// The kind of a file without [`MODEL_KIND_KEY`]: an MLP (the [`Model::KIND`] of
/// [`nn::Mlp`]).
pub const DEFAULT_KIND: &str = "mlp";

/// The trained network of a [`FittedModel`](super::FittedModel): any [`nn::Model`], seen
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

/// A model of type `M` on backend `B` behind [`Network`] (a wrapper, so that the methods of
/// `Network` never shadow those of [`Model`] on `M` itself).
struct Held<B, M>(M, PhantomData<fn() -> B>);

impl<B: Backend, M: Model<B>> Debug for Held<B, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("kind", &M::KIND)
            .field("backend", &self.0.backend().name())
            .field("config", self.0.config())
            .finish()
    }
}

/// A network of any [`nn::Model`] as a [`Network`] object.
pub fn boxed<B: Backend, M: Model<B>>(model: M) -> Box<dyn Network<B>> {
    Box::new(Held(model, PhantomData))
}

impl<B: Backend, M: Model<B>> Network<B> for Held<B, M> {
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
