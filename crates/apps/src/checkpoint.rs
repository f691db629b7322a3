//! Saving and restoring a whole training run (model, optimizer, trainer) in one
//! safetensors checkpoint.

use anyhow::{Context, Result, anyhow, bail};
use io::Checkpoint;
use io::checkpoint::DataFingerprint;
use nn::{Mlp, MlpConfig, NamedArray, Optimizer, OptimizerConfig, OptimizerState, TrainerState};
use serde_json::{Value, json};
use std::path::Path;
use tensor_core::Backend;

/// The checkpoint file name inside a run folder.
pub const FILE_NAME: &str = "model.safetensors";
const MODEL_PREFIX: &str = io::fitted::TENSOR_PREFIX;

/// Everything in a checkpoint besides the tensors.
pub struct RunMeta {
    /// The job that wrote it ("image-fit", "linreg", ...).
    pub job: String,
    /// The network architecture.
    pub architecture: MlpConfig,
    /// Job-specific data (normalisation statistics, image size, ...).
    pub extra: Value,
    /// What the model predicts, for `predict` and `export` (`None` in checkpoints written
    /// before models carried it).
    pub info: Option<io::ModelInfo>,
    /// What the model was trained on (absent in checkpoints of older versions).
    pub data: Option<DataFingerprint>,
}

/// The fingerprint of a training set (inputs `x`, targets `y`, as read back from `data`):
/// column names from the job's metadata (`feature_names` and `target_name`, when it has
/// them), the shape `[rows, inputs, outputs]` and a hash of every value.
pub fn fingerprint<B: Backend>(
    x: &[f32],
    y: &[f32],
    data: nn::Data<'_, B>,
    extra: &Value,
) -> DataFingerprint {
    let mut names: Vec<String> = extra
        .get("feature_names")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if let Some(target) = extra.get("target_name").and_then(Value::as_str) {
        names.push(target.to_string());
    }
    let dims = |t: &tensor_core::Tensor<B>| t.dims().to_vec();
    let shape = [dims(data.x), dims(data.y)[1..].to_vec()].concat();
    DataFingerprint::new(names, shape, [x, y])
}

/// Writes model, optimizer and trainer state atomically to `path`.
pub fn save<B: Backend>(
    path: &Path,
    meta: &RunMeta,
    model: &Mlp<B>,
    optimizer: &dyn Optimizer<B>,
    trainer: &TrainerState,
) -> Result<()> {
    let opt_state = optimizer.export_state()?;
    let metadata = json!({
        "format": "iron-learn checkpoint v1",
        "job": meta.job,
        "architecture": serde_json::to_value(&meta.architecture)?,
        "optimizer": serde_json::to_value(optimizer.config())?,
        "optimizer_kind": opt_state.kind,
        "optimizer_step": opt_state.step,
        "trainer": serde_json::to_value(trainer)?,
        "extra": meta.extra,
        io::fitted::INFO_KEY: serde_json::to_value(&meta.info)?,
        (io::checkpoint::DATA_KEY): meta.data,
    });
    let mut ck = Checkpoint::new(metadata);
    for a in model.export_state()? {
        ck.insert(format!("{MODEL_PREFIX}{}", a.name), a.shape, a.data)?;
    }
    for a in opt_state.tensors {
        ck.insert(a.name, a.shape, a.data)?;
    }
    ck.save(path)
        .with_context(|| format!("cannot save the checkpoint {}", path.display()))
}

/// A checkpoint read back: its metadata and a model built from it.
pub struct Loaded<B: Backend> {
    /// Job, architecture and job-specific data.
    pub meta: RunMeta,
    /// The model with its saved parameters.
    pub model: Mlp<B>,
    checkpoint: Checkpoint,
}

/// Loads the checkpoint at `path` (or `path/model.safetensors` for a folder) and rebuilds
/// its model on `backend`.
pub fn load<B: Backend>(backend: &B, path: &Path) -> Result<Loaded<B>> {
    let path = if path.is_dir() {
        path.join(FILE_NAME)
    } else {
        path.to_path_buf()
    };
    let checkpoint = Checkpoint::load(&path)?;
    if let Some((name, index, value)) = checkpoint.first_non_finite(MODEL_PREFIX) {
        bail!(
            "{} holds non-finite weights ({}[{index}] is {value}): the run diverged before it was saved; train afresh, with a lower --lr",
            path.display(),
            name.trim_start_matches(MODEL_PREFIX)
        );
    }
    let md = &checkpoint.metadata;
    let field = |k: &str| {
        md.get(k).cloned().ok_or_else(|| {
            anyhow!(
                "{} is not an iron-learn checkpoint: no `{k}` in its metadata",
                path.display()
            )
        })
    };
    let architecture: MlpConfig = serde_json::from_value(field("architecture")?)
        .with_context(|| format!("{}: unreadable architecture", path.display()))?;
    let job = field("job")?.as_str().unwrap_or_default().to_string();
    let extra = md.get("extra").cloned().unwrap_or(Value::Null);
    let info = md
        .get(io::fitted::INFO_KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let data = checkpoint
        .data_fingerprint()
        .with_context(|| format!("{}", path.display()))?;
    let mut model = Mlp::from_config(backend, &architecture, 0)?;
    let state: Vec<NamedArray> = checkpoint
        .tensors
        .iter()
        .filter_map(|(name, t)| {
            name.strip_prefix(MODEL_PREFIX)
                .map(|n| NamedArray::new(n, t.shape.clone(), t.data.clone()))
        })
        .collect::<Result<_, _>>()?;
    model
        .import_state(&state)
        .with_context(|| format!("{} does not fit its own architecture", path.display()))?;
    Ok(Loaded {
        meta: RunMeta {
            job,
            architecture,
            extra,
            info,
            data,
        },
        model,
        checkpoint,
    })
}

impl<B: Backend> Loaded<B> {
    /// The saved optimizer, with its moments, for the loaded model.
    pub fn optimizer(&self) -> Result<Box<dyn Optimizer<B>>> {
        let md = &self.checkpoint.metadata;
        let config: OptimizerConfig =
            serde_json::from_value(md.get("optimizer").cloned().unwrap_or(Value::Null))
                .context("the checkpoint has no readable optimizer settings")?;
        let mut optimizer = config.build::<B>()?;
        let tensors = self
            .checkpoint
            .tensors
            .iter()
            .filter(|(name, _)| !name.starts_with(MODEL_PREFIX))
            .map(|(name, t)| NamedArray::new(name.clone(), t.shape.clone(), t.data.clone()))
            .collect::<Result<Vec<_>, _>>()?;
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
        serde_json::from_value(v).context("the checkpoint has no readable trainer state")
    }
}
