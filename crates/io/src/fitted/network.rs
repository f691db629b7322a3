//! [`Network`]: the architectures a model file can hold.

use nn::{HashGridMlp, HashGridMlpConfig, Layer, Mlp, MlpConfig, Model, NamedArray};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tensor_core::{Backend, Tensor};

/// The metadata key naming the architecture family of a model file (absent in files written
/// before there were several: they hold an MLP).
pub const MODEL_KIND_KEY: &str = "model_kind";

/// The trained network of a [`FittedModel`](super::FittedModel).
#[derive(Debug)]
pub enum Network<B: Backend> {
    /// A multilayer perceptron, with its optional input encoding ([`MlpConfig`]).
    Mlp(Mlp<B>),
    /// A multiresolution hash-grid encoding followed by a ReLU MLP ([`HashGridMlpConfig`]).
    HashGrid(HashGridMlp<B>),
}

impl<B: Backend> From<Mlp<B>> for Network<B> {
    fn from(m: Mlp<B>) -> Self {
        Network::Mlp(m)
    }
}

impl<B: Backend> From<HashGridMlp<B>> for Network<B> {
    fn from(m: HashGridMlp<B>) -> Self {
        Network::HashGrid(m)
    }
}

impl<B: Backend> Network<B> {
    /// The `model_kind` value of an MLP.
    pub const MLP: &'static str = "mlp";
    /// The `model_kind` value of a hash-grid network.
    pub const HASH_GRID: &'static str = "hash_grid_mlp";

    /// The `model_kind` metadata value of this network.
    pub fn kind(&self) -> &'static str {
        match self {
            Network::Mlp(_) => Self::MLP,
            Network::HashGrid(_) => Self::HASH_GRID,
        }
    }

    /// The MLP, when this is one.
    pub fn as_mlp(&self) -> Option<&Mlp<B>> {
        match self {
            Network::Mlp(m) => Some(m),
            Network::HashGrid(_) => None,
        }
    }

    /// Input columns.
    pub fn input_dim(&self) -> usize {
        match self {
            Network::Mlp(m) => m.input_dim(),
            Network::HashGrid(m) => m.input_dim(),
        }
    }

    /// Output columns.
    pub fn output_dim(&self) -> usize {
        match self {
            Network::Mlp(m) => m.output_dim(),
            Network::HashGrid(m) => m.output_dim(),
        }
    }

    /// The backend the network lives on.
    pub fn backend(&self) -> &B {
        match self {
            Network::Mlp(m) => m.backend(),
            Network::HashGrid(m) => m.backend(),
        }
    }

    /// The network's outputs for the rows of `x` (`[rows, input_dim]`).
    pub fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>> {
        match self {
            Network::Mlp(m) => m.predict(x),
            Network::HashGrid(m) => m.predict(x),
        }
    }

    /// The configuration, as stored under the `architecture` metadata key.
    pub fn config_value(&self) -> serde_json::Result<Value> {
        match self {
            Network::Mlp(m) => serde_json::to_value(m.config()),
            Network::HashGrid(m) => serde_json::to_value(m.config()),
        }
    }

    /// The parameters, by name.
    pub fn export_state(&self) -> nn::Result<Vec<NamedArray>> {
        match self {
            Network::Mlp(m) => m.export_state(),
            Network::HashGrid(m) => m.export_state(),
        }
    }

    /// Rebuilds a network of family `kind` from its configuration and parameters; errors are
    /// sentences about the file (`Err` of the outer result: the configuration, the inner
    /// one: the tensors).
    pub(super) fn rebuild(
        kind: &str,
        config: &Value,
        backend: &B,
        state: &[NamedArray],
    ) -> Result<Self, String> {
        match kind {
            Self::MLP => {
                let c: MlpConfig = parse(config)?;
                c.validate()
                    .map_err(|e| format!("its `architecture` is invalid ({e})"))?;
                Ok(Network::Mlp(import(
                    Mlp::from_config(backend, &c, 0),
                    state,
                )?))
            }
            Self::HASH_GRID => {
                let c: HashGridMlpConfig = parse(config)?;
                c.validate()
                    .map_err(|e| format!("its `architecture` is invalid ({e})"))?;
                let m = HashGridMlp::from_config(backend, &c, 0);
                Ok(Network::HashGrid(import(m, state)?))
            }
            other => Err(format!(
                "its `{MODEL_KIND_KEY}` is `{other}`, which this version cannot read (it reads `{}` and `{}`)",
                Self::MLP,
                Self::HASH_GRID
            )),
        }
    }
}

fn parse<C: DeserializeOwned>(config: &Value) -> Result<C, String> {
    serde_json::from_value(config.clone())
        .map_err(|e| format!("its `architecture` is unreadable ({e})"))
}

fn import<B: Backend, M: Model<B>>(
    model: nn::Result<M>,
    state: &[NamedArray],
) -> Result<M, String> {
    let mut model = model.map_err(|e| format!("its network cannot be built ({e})"))?;
    model
        .import_state(state)
        .map_err(|e| format!("its tensors do not fit its architecture ({e})"))?;
    Ok(model)
}
