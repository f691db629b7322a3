//! A [`FittedModel`] to and from a safetensors [`Checkpoint`].

use std::path::{Path, PathBuf};

use nn::NamedArray;
use serde_json::json;
use tensor_core::Backend;

use super::network::{DEFAULT_KIND, MODEL_KIND_KEY};
use super::registry::rebuild;
use super::{FittedModel, ModelInfo, Network};
use crate::checkpoint::{ARCHITECTURE_KEY, Checkpoint, Storage};
use crate::error::{Error, Result};

/// The `format` value of a model file written by [`FittedModel::save`].
pub const FORMAT: &str = "iron-learn model v1";

/// The metadata key holding the [`ModelInfo`].
pub const INFO_KEY: &str = "model";

/// The prefix of every network tensor's name (`model.layers.0.weight`); run checkpoints
/// keep optimizer tensors beside them under other names.
pub const TENSOR_PREFIX: &str = "model.";

/// The file a model path names: `path/model.safetensors` for a run folder, else `path`.
pub fn model_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("model.safetensors")
    } else {
        path.to_path_buf()
    }
}

impl<B: Backend> FittedModel<B> {
    /// The model as a checkpoint: the network's tensors under [`TENSOR_PREFIX`] and the
    /// metadata `{"format", "model_kind", "architecture", "model"}` (no optimizer state).
    pub fn to_checkpoint(&self) -> Result<Checkpoint> {
        let architecture = self
            .network
            .config_value()
            .map_err(|e| Error::invalid(format!("cannot describe the network: {e}")))?;
        let info = serde_json::to_value(&self.info)
            .map_err(|e| Error::invalid(format!("cannot describe the model: {e}")))?;
        let mut ck = Checkpoint::new(json!({
            "format": FORMAT,
            MODEL_KIND_KEY: self.network.kind(),
            ARCHITECTURE_KEY: architecture,
            INFO_KEY: info,
        }));
        for a in self.network.export_state()? {
            ck.insert(format!("{TENSOR_PREFIX}{}", a.name), a.shape, a.data)?;
        }
        Ok(ck)
    }

    /// Rebuilds a model from a checkpoint (a model file or a run checkpoint: tensors other
    /// than the network's are ignored) on `backend`. `source` names the file in errors.
    pub fn from_checkpoint(ck: &Checkpoint, backend: &B, source: &Path) -> Result<Self> {
        let bad = |detail: String| not_a_model(source, detail);
        let kind = kind_of(ck).map_err(bad)?;
        let info = ck
            .metadata
            .get(INFO_KEY)
            .ok_or_else(|| bad(format!("its metadata has no `{INFO_KEY}`")))?;
        let info: ModelInfo = serde_json::from_value(info.clone()).map_err(|e| {
            bad(format!(
                "its `{INFO_KEY}` description is unreadable ({e}); files written before models \
                 carried one must be trained again"
            ))
        })?;
        let network = rebuild_network(ck, kind, backend, source)?;
        Self::from_network(network, info).map_err(|e| bad(e.to_string()))
    }
    /// Writes the model to `path` atomically: network tensors and metadata, no optimizer
    /// state.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        self.to_checkpoint()?.save(path)
    }

    /// [`save`](Self::save) with every tensor stored as `storage` ([`Storage::Float16`]:
    /// half the bytes; [`load`](Self::load) reads either, and a model loaded from a `float16`
    /// file computes with the rounded values it stores).
    pub fn save_as(&self, path: impl AsRef<Path>, storage: Storage) -> Result<()> {
        self.to_checkpoint()?.save_as(path, storage)
    }

    /// Reads a model file, or a run checkpoint (a file, or a run folder holding
    /// `model.safetensors`), and rebuilds the model on `backend`.
    pub fn load(path: impl AsRef<Path>, backend: &B) -> Result<Self> {
        let path = model_file(path.as_ref());
        let ck = Checkpoint::load(&path)?;
        Self::from_checkpoint(&ck, backend, &path)
    }
}

/// Rebuilds the network of a checkpoint (a model file or a run checkpoint) on `backend`, by
/// its kind, through the registry: the one place where a file becomes a network. Files
/// without a [`MODEL_KIND_KEY`] hold an MLP. `source` names the file in errors.
pub fn load_network<B: Backend>(
    ck: &Checkpoint,
    backend: &B,
    source: &Path,
) -> Result<Box<dyn Network<B>>> {
    let kind = kind_of(ck).map_err(|detail| not_a_model(source, detail))?;
    rebuild_network(ck, kind, backend, source)
}

/// The kind of model a checkpoint holds ([`DEFAULT_KIND`] when it names none); an error
/// sentence when its kind is not a name.
pub fn kind_of(ck: &Checkpoint) -> std::result::Result<&str, String> {
    match ck.metadata.get(MODEL_KIND_KEY) {
        None => Ok(DEFAULT_KIND),
        Some(v) => v
            .as_str()
            .ok_or_else(|| format!("its `{MODEL_KIND_KEY}` is not a name")),
    }
}

/// The network of kind `kind` from the checkpoint's architecture and `model.` tensors.
fn rebuild_network<B: Backend>(
    ck: &Checkpoint,
    kind: &str,
    backend: &B,
    source: &Path,
) -> Result<Box<dyn Network<B>>> {
    let architecture = ck
        .metadata
        .get(ARCHITECTURE_KEY)
        .ok_or_else(|| not_a_model(source, format!("its metadata has no `{ARCHITECTURE_KEY}`")))?;
    let state = ck
        .tensors
        .iter()
        .filter_map(|(name, t)| {
            name.strip_prefix(TENSOR_PREFIX)
                .map(|n| NamedArray::new(n, t.shape.clone(), t.data.clone()))
        })
        .collect::<nn::Result<Vec<_>>>()?;
    rebuild(kind, architecture, backend, &state).map_err(|detail| not_a_model(source, detail))
}

fn not_a_model(source: &Path, detail: String) -> Error {
    Error::NotAModel {
        path: source.to_path_buf(),
        detail,
    }
}
