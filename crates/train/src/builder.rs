//! Building a [`Run`]: the job, folder, network, loss and settings, then the builder methods
//! for everything optional.

use crate::monitor::LossUnits;
use crate::report::{Reporter, Silent};
use crate::{MemoryCheck, Run, Settings};
use nn::{EarlyStopping, Loss};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

impl<'a, C: Clone + PartialEq + Serialize> Run<'a, C> {
    /// A run of job `job` (a name recorded in the checkpoint and checked on resume) in
    /// folder `dir` (created when missing), training a network of `architecture` on
    /// `loss` with `settings`.
    pub fn new(
        job: impl Into<String>,
        dir: impl Into<PathBuf>,
        architecture: C,
        loss: Loss,
        settings: Settings,
    ) -> Self {
        Run {
            job: job.into(),
            dir: dir.into(),
            settings,
            architecture,
            loss,
            extra: Value::Object(Map::new()),
            info: None,
            early_stopping: None,
            pool: 1,
            output_bias: None,
            record: Map::new(),
            loss_units: LossUnits::plain(loss),
            weight_decay: 0.0,
            stop: None,
            stop_at: None,
            alone: false,
            reloading: false,
            reporter: Box::new(Silent),
            memory_check: None,
        }
    }

    /// Job-specific metadata stored in the checkpoint (normalisation, image size...); its
    /// `feature_names` and `target_name` name the columns of the data fingerprint.
    pub fn extra(mut self, extra: Value) -> Self {
        self.extra = extra;
        self
    }

    /// What the model predicts (names, standardisation, classes), stored in the checkpoint
    /// for prediction and export.
    pub fn info(mut self, info: io::ModelInfo) -> Self {
        self.info = Some(info);
        self
    }

    /// Early stopping on the validation loss, its patience counted in epochs; the weights of
    /// the best evaluation are restored at the end. Needs validation data.
    pub fn early_stopping(mut self, early_stopping: Option<EarlyStopping>) -> Self {
        self.early_stopping = early_stopping;
        self
    }

    /// Area supervision: each target matched by the mean of `rows` consecutive input rows.
    pub fn pool(mut self, rows: usize) -> Self {
        self.pool = rows.max(1);
        self
    }

    /// The initial output-layer bias of a fresh model (e.g. the logit of the mean target).
    pub fn output_bias(mut self, bias: Option<Vec<f32>>) -> Self {
        self.output_bias = bias;
        self
    }

    /// Job-specific entries of `config.json` (the data read, the job's own options); on
    /// resume, they name the option that changed when the data or network differs.
    pub fn record(mut self, entries: Map<String, Value>) -> Self {
        self.record = entries;
        self
    }

    /// How losses are reported (progress, `history.csv`, the outcome).
    pub fn loss_units(mut self, units: LossUnits) -> Self {
        self.loss_units = units;
        self
    }

    /// AdamW's decoupled weight decay (0: Adam without decay).
    pub fn weight_decay(mut self, decay: f32) -> Self {
        self.weight_decay = decay;
        self
    }

    /// A flag that stops the run cleanly after its current step once raised (a signal
    /// handler only has to set it); the checkpoint is saved and the run can be resumed.
    pub fn stop_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Stops the run cleanly, as a raised [`stop_flag`](Self::stop_flag) would, at its first
    /// logged step from `step` on (`None`: runs to its end): a run trained in parts, each
    /// resumed from the checkpoint of the one before.
    pub fn stop_at_step(mut self, step: Option<u64>) -> Self {
        self.stop_at = step;
        self
    }

    /// Trains on this process alone, where the process is one of several
    /// ([`crate::ranks`]): a whole model trained beside the others' models, instead of every
    /// process computing a share of each step.
    pub fn alone(mut self) -> Self {
        self.alone = true;
        self
    }

    /// Loads a finished run from its checkpoint (the settings' `resume`), as a resumed run,
    /// without recording a resume in `config.json`: another process trained it, and this
    /// one takes its model.
    pub fn reloading(mut self) -> Self {
        self.reloading = true;
        self.settings.resume = true;
        self
    }

    /// Where progress and notes go (nowhere by default).
    pub fn reporter(mut self, reporter: impl Reporter + 'a) -> Self {
        self.reporter = Box::new(reporter);
        self
    }

    /// A check of the memory a run on tensors will need, made before the model is built.
    pub fn memory_check(mut self, check: MemoryCheck<'a, C>) -> Self {
        self.memory_check = Some(check);
        self
    }

    /// The run folder.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }
}
