//! Saving and restoring a whole training run (model, optimizer, trainer) in one
//! safetensors checkpoint: the one loader of run checkpoints.

use crate::{Error, Result};
use io::Checkpoint;
use io::checkpoint::DataFingerprint;
use io::fitted::MODEL_KIND_KEY;
use nn::{
    Mlp, MlpConfig, Model, NamedArray, Optimizer, OptimizerConfig, OptimizerState, TrainerState,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tensor_core::Backend;

/// The checkpoint file name inside a run folder.
pub const FILE_NAME: &str = "model.safetensors";
const MODEL_PREFIX: &str = io::fitted::TENSOR_PREFIX;

/// Everything in a checkpoint besides the tensors.
#[derive(Debug, Clone)]
pub struct RunMeta<C = MlpConfig> {
    /// The job that wrote it ("image-fit", "linreg", ...).
    pub job: String,
    /// The network architecture.
    pub architecture: C,
    /// Job-specific data (normalisation statistics, image size, ...).
    pub extra: Value,
    /// What the model predicts, for `predict` and `export` (`None` in checkpoints written
    /// before models carried it).
    pub info: Option<io::ModelInfo>,
    /// What the model was trained on (absent in checkpoints of older versions).
    pub data: Option<DataFingerprint>,
}

fn to_json<T: serde::Serialize + ?Sized>(what: &str, value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::json(what, e))
}

/// Writes model, optimizer and trainer state atomically to `path`.
pub fn save<B: Backend, M: Model<B>>(
    path: &Path,
    meta: &RunMeta<M::Config>,
    model: &M,
    optimizer: &dyn Optimizer<B>,
    trainer: &TrainerState,
) -> Result<()> {
    let opt_state = optimizer.export_state()?;
    let metadata = json!({
        "format": "iron-learn checkpoint v1",
        "job": meta.job,
        (MODEL_KIND_KEY): M::KIND,
        "architecture": to_json("the architecture", &meta.architecture)?,
        "optimizer": to_json("the optimizer settings", &optimizer.config())?,
        "optimizer_kind": opt_state.kind,
        "optimizer_step": opt_state.step,
        "trainer": to_json("the trainer state", trainer)?,
        "extra": meta.extra,
        io::fitted::INFO_KEY: to_json("the model description", &meta.info)?,
        (io::checkpoint::DATA_KEY): meta.data,
    });
    let mut ck = Checkpoint::new(metadata);
    for a in model.export_state()? {
        ck.insert(format!("{MODEL_PREFIX}{}", a.name), a.shape, a.data)?;
    }
    for a in opt_state.tensors {
        ck.insert(a.name, a.shape, a.data)?;
    }
    ck.save(path).map_err(|source| Error::Save {
        path: path.to_path_buf(),
        source: Box::new(source),
    })
}

/// A checkpoint read back: its metadata and a model built from it.
pub struct Loaded<B: Backend, M: Model<B> = Mlp<B>> {
    /// Job, architecture and job-specific data.
    pub meta: RunMeta<M::Config>,
    /// The model with its saved parameters.
    pub model: M,
    checkpoint: Checkpoint,
    _backend: std::marker::PhantomData<B>,
}

/// Reads the checkpoint at `path` (or `path/model.safetensors` for a folder); returns the
/// file's path with it.
pub fn read(path: &Path) -> Result<(PathBuf, Checkpoint)> {
    let path = io::fitted::model_file(path);
    let checkpoint = Checkpoint::load(&path)?;
    Ok((path, checkpoint))
}

/// The kind of model a checkpoint holds ([`Model::KIND`]; checkpoints written before
/// there were several kinds hold an MLP; one whose kind is not a name reads as empty).
pub fn kind(checkpoint: &Checkpoint) -> &str {
    io::fitted::kind_of(checkpoint).unwrap_or_default()
}

/// The job that wrote a checkpoint (empty when its metadata names none).
pub fn job(checkpoint: &Checkpoint) -> &str {
    checkpoint
        .metadata
        .get("job")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Loads the checkpoint at `path` (or `path/model.safetensors` for a folder) and rebuilds
/// its model on `backend`.
pub fn load<B: Backend, M: Model<B>>(backend: &B, path: &Path) -> Result<Loaded<B, M>> {
    let (path, checkpoint) = read(path)?;
    rebuild(backend, &path, checkpoint)
}

/// Loads the model file or run checkpoint at `path` (or `path/model.safetensors` for a
/// folder) as a [`FittedModel`](io::FittedModel) of whatever kind it holds, refusing
/// non-finite weights; returns the job that wrote it with it (empty when none is named).
pub fn load_fitted<B: Backend>(backend: &B, path: &Path) -> Result<(io::FittedModel<B>, String)> {
    let (path, checkpoint) = read(path)?;
    check_finite(&path, &checkpoint)?;
    let model = io::FittedModel::from_checkpoint(&checkpoint, backend, &path)?;
    Ok((model, job(&checkpoint).to_string()))
}

/// Refuses a checkpoint whose model weights are not all finite.
fn check_finite(path: &Path, checkpoint: &Checkpoint) -> Result<()> {
    match checkpoint.first_non_finite(MODEL_PREFIX) {
        Some((name, index, value)) => Err(Error::NonFiniteWeights {
            path: path.to_path_buf(),
            weight: name.trim_start_matches(MODEL_PREFIX).to_string(),
            index,
            value,
        }),
        None => Ok(()),
    }
}

/// Rebuilds the model of a checkpoint read from `path` through the model registry (the
/// loader of [`load_fitted`] and of model files), as the type `M` of the run; `M` is
/// registered first when it is not one of the kinds the registry already reads.
pub fn rebuild<B: Backend, M: Model<B>>(
    backend: &B,
    path: &Path,
    checkpoint: Checkpoint,
) -> Result<Loaded<B, M>> {
    check_finite(path, &checkpoint)?;
    let md = &checkpoint.metadata;
    let Some(job) = md.get("job") else {
        return Err(Error::checkpoint(
            path,
            "is not an iron-learn checkpoint: no `job` in its metadata".to_string(),
        ));
    };
    let job = job.as_str().unwrap_or_default().to_string();
    let found = kind(&checkpoint);
    if found != M::KIND {
        return Err(Error::checkpoint(
            path,
            format!("holds a `{found}` model, not a `{}` one", M::KIND),
        ));
    }
    if !io::fitted::known_kinds::<B>().contains(&M::KIND) {
        io::fitted::register::<B, M>()?;
    }
    let model = io::fitted::load_network(&checkpoint, backend, path)?
        .downcast::<M>()
        .map_err(|n| {
            Error::checkpoint(
                path,
                format!(
                    "holds a `{}` model of another type than this run's",
                    n.kind()
                ),
            )
        })?;
    let extra = md.get("extra").cloned().unwrap_or(Value::Null);
    let info = md
        .get(io::fitted::INFO_KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let data = checkpoint
        .data_fingerprint()
        .map_err(|e| Error::checkpoint(path, format!("has an unreadable data fingerprint: {e}")))?;
    Ok(Loaded {
        meta: RunMeta {
            job,
            architecture: model.config().clone(),
            extra,
            info,
            data,
        },
        model,
        checkpoint,
        _backend: std::marker::PhantomData,
    })
}

impl<B: Backend, M: Model<B>> Loaded<B, M> {
    /// The saved optimizer, with its moments, for the loaded model.
    pub fn optimizer(&self) -> Result<Box<dyn Optimizer<B>>> {
        let md = &self.checkpoint.metadata;
        let config: OptimizerConfig =
            serde_json::from_value(md.get("optimizer").cloned().unwrap_or(Value::Null))
                .map_err(|e| Error::json("the checkpoint has no readable optimizer settings", e))?;
        let mut optimizer = config.build::<B>()?;
        let tensors = self
            .checkpoint
            .tensors
            .iter()
            .filter(|(name, _)| !name.starts_with(MODEL_PREFIX))
            .map(|(name, t)| NamedArray::new(name.clone(), t.shape.clone(), t.data.clone()))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let state = OptimizerState {
            kind: md
                .get("optimizer_kind")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            step: md
                .get("optimizer_step")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            tensors,
        };
        optimizer.import_state(&self.model, &state)?;
        Ok(optimizer)
    }

    /// The saved trainer state (step, epoch, history, early-stopping counters).
    pub fn trainer_state(&self) -> Result<TrainerState> {
        let v = self
            .checkpoint
            .metadata
            .get("trainer")
            .cloned()
            .unwrap_or(Value::Null);
        serde_json::from_value(v)
            .map_err(|e| Error::json("the checkpoint has no readable trainer state", e))
    }
}
