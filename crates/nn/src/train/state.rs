//! What the trainer records: its resumable state, events for callbacks, the final report.

use serde::{Deserialize, Serialize};

/// The metrics of one evaluation (at the end of an epoch).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpochMetrics {
    /// Epochs completed (1 after the first).
    pub epoch: u64,
    /// Updates applied so far.
    pub step: u64,
    /// Mean of the epoch's batch losses.
    pub train_loss: f32,
    /// Loss on the validation set, when one is given.
    pub val_loss: Option<f32>,
    /// The learning rate of the epoch's last update.
    pub lr: f32,
}

/// Everything the trainer needs to continue a run exactly where it stopped (serialisable;
/// store it with the model and optimizer state).
///
/// Batch order is a pure function of `(seed, epoch)`, so no generator state is kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TrainerState {
    /// Updates applied so far.
    pub step: u64,
    /// Epochs completed.
    pub epoch: u64,
    /// The best monitored loss seen by early stopping.
    pub best_loss: Option<f32>,
    /// Evaluations since the best loss (early stopping's patience counter).
    pub stale_evals: u64,
    /// One entry per evaluation.
    pub history: Vec<EpochMetrics>,
    /// Sum of the batch losses of the current, unfinished epoch.
    pub epoch_loss_sum: f32,
    /// The latest training loss read back (mean over the steps since the previous read).
    pub last_loss: Option<f32>,
}

/// Why training ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The configured number of steps or epochs was reached.
    Completed,
    /// Early stopping ran out of patience.
    EarlyStopping,
    /// A callback returned [`Control::Stop`].
    Callback,
    /// The trainer's stop flag was raised (e.g. by Ctrl-C).
    Interrupted,
}

/// What a callback is told.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrainEvent {
    /// Every `callback_every` steps.
    Step {
        /// Updates applied so far.
        step: u64,
        /// Epochs completed.
        epoch: u64,
        /// Mean training loss since the previous read-back.
        loss: f32,
        /// The learning rate of the last update.
        lr: f32,
    },
    /// After each evaluation.
    Epoch(EpochMetrics),
    /// Once, when training ends without an error.
    End {
        /// Updates applied so far.
        step: u64,
        /// Why training ended.
        reason: StopReason,
    },
}

/// A callback's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Control {
    /// Keep training.
    #[default]
    Continue,
    /// Stop after this step (the state stays consistent, so the run can be resumed).
    Stop,
}

/// The outcome of [`Trainer::fit`](super::Trainer::fit).
#[derive(Debug, Clone, PartialEq)]
pub struct TrainReport {
    /// Updates applied in total (including those before a resume).
    pub steps: u64,
    /// Updates applied by this call.
    pub steps_run: u64,
    /// Epochs completed in total.
    pub epochs: u64,
    /// Wall-clock seconds of this call.
    pub seconds: f64,
    /// The last training loss read back.
    pub final_train_loss: Option<f32>,
    /// The last validation loss.
    pub final_val_loss: Option<f32>,
    /// Metrics of every evaluation.
    pub history: Vec<EpochMetrics>,
    /// Whether early stopping ended the run.
    pub stopped_early: bool,
    /// Why training ended.
    pub stop_reason: StopReason,
}
