//! [`TrainerConfig`]: the settings of a training run, and [`TrainLength`].

use crate::loss::Loss;
use crate::schedule::LrSchedule;
use crate::train::early_stop::EarlyStopping;
use crate::{Result, config_err};
use serde::{Deserialize, Serialize};

/// How long to train: a total, counted from the very first step (a resumed run stops at the
/// same point as an uninterrupted one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainLength {
    /// Whole epochs (with full-batch training, one epoch is one step).
    Epochs(u64),
    /// Updates.
    Steps(u64),
}

/// The settings of a training run (serialisable, for checkpoint metadata).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainerConfig {
    /// The loss minimised.
    pub loss: Loss,
    /// The learning rate per step; `None` keeps the optimizer's own rate.
    pub schedule: Option<LrSchedule>,
    /// How long to train.
    pub length: TrainLength,
    /// Rows per batch; `None` (or at least the number of rows) trains on the full batch.
    /// With mini-batches the last `rows % batch_size` rows of each epoch's order are
    /// dropped, so every batch has the same size and buffers are reused.
    pub batch_size: Option<usize>,
    /// Whether mini-batches follow a fresh permutation each epoch (derived from
    /// `(seed, epoch)`); otherwise they are consecutive rows.
    pub shuffle: bool,
    /// Seed of the batch order.
    pub seed: u64,
    /// Read the training loss back (for callbacks and the NaN guard) every this
    /// many steps (at least 1).
    pub log_every: u64,
    /// Evaluate (epoch training loss, validation loss, early stopping, history) every
    /// this many epochs (at least 1). With full-batch training every step is an epoch;
    /// raise this to avoid a read-back per step on a GPU.
    pub eval_every: u64,
    /// Call the callback with [`TrainEvent::Step`](crate::TrainEvent::Step) every this many steps (0: never).
    pub callback_every: u64,
    /// Early stopping on the validation loss (or the training loss without a
    /// validation set).
    pub early_stopping: Option<EarlyStopping>,
    /// Clip gradients to this global L2 norm before each update.
    pub clip_grad_norm: Option<f32>,
    /// Encode the training inputs once when the model has an input encoding (it has no
    /// trainable parameters), instead of at every step; skipped above 2^28 elements.
    pub cache_encoding: bool,
    /// Area supervision: each target row is matched by the mean of this many consecutive
    /// prediction rows (e.g. the sub-samples of one pixel), so the inputs have `pool` times
    /// as many rows as the targets. 1 (the default) is ordinary supervision. Needs full-batch
    /// training and no validation set.
    pub pool: usize,
}

impl Default for TrainerConfig {
    fn default() -> Self {
        TrainerConfig {
            loss: Loss::Mse,
            schedule: None,
            length: TrainLength::Epochs(100),
            batch_size: None,
            shuffle: true,
            seed: 0,
            log_every: 100,
            eval_every: 1,
            callback_every: 0,
            early_stopping: None,
            clip_grad_norm: None,
            cache_encoding: true,
            pool: 1,
        }
    }
}

impl TrainerConfig {
    /// Checks every setting.
    pub fn validate(&self) -> Result<()> {
        if self.log_every == 0 || self.eval_every == 0 {
            return Err(config_err("log_every and eval_every must be at least 1"));
        }
        if self.pool == 0 {
            return Err(config_err("pool must be at least 1"));
        }
        if self.batch_size == Some(0) {
            return Err(config_err("the batch size must be at least 1"));
        }
        if let Some(c) = self.clip_grad_norm
            && !(c.is_finite() && c > 0.0)
        {
            return Err(config_err(format!(
                "the gradient clipping norm must be positive and finite, got {c}"
            )));
        }
        if let Some(s) = &self.schedule {
            s.validate()?;
        }
        Ok(())
    }
}
