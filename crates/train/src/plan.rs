//! What a run's settings come to on its data: rows, batch, steps per epoch, total steps,
//! logging, evaluation and early-stopping intervals, the learning-rate schedule.

use crate::data::WholeRows;
use crate::monitor::{gcd, log_interval};
use crate::{Error, Result, Settings};
use nn::{Data, EarlyStopping, Loss, LrSchedule, TrainData, TrainLength, TrainerConfig};
use tensor_core::Backend;

/// The size of a run on tensors, for a memory check before its model is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrainingSize {
    /// Training rows (input rows over the pooling factor).
    pub rows: usize,
    /// Target rows.
    pub target_rows: usize,
    /// Rows per step (`None`: all).
    pub batch: Option<usize>,
    /// Rows evaluated besides (validation).
    pub eval_rows: usize,
    /// Whether the training tensors live in host memory (the CPU backend), so that the run
    /// reads them in place; on a device the run reads them back once (for the fingerprint).
    pub data_in_host_memory: bool,
}

/// A run's settings resolved on its data.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub rows: usize,
    pub validation_rows: Option<usize>,
    pub batch: Option<usize>,
    pub sampled: bool,
    pub steps_per_epoch: u64,
    pub total_steps: u64,
    pub log_interval: u64,
    pub callback_every: u64,
    pub eval_every: u64,
    /// Early stopping with its patience in evaluations.
    pub early_stopping: Option<EarlyStopping>,
    pub schedule: LrSchedule,
    pub length: TrainLength,
    pub pool: usize,
}

impl Plan {
    /// Resolves `settings` on `train` (input rows pooled by `pool`; of `whole` rows where
    /// the tensors are this process's part of them); early stopping's patience is given in
    /// epochs.
    pub fn new<B: Backend>(
        settings: &Settings,
        train: &TrainData<'_, B>,
        pool: usize,
        early_stopping: Option<EarlyStopping>,
        whole: Option<WholeRows>,
    ) -> Result<Self> {
        let (rows, batch, steps_per_epoch) = match train {
            TrainData::Tensors(d) => {
                let held = d.x.dims().first().copied().unwrap_or(0);
                let rows = whole.map_or(held, |w| w.train) / pool.max(1);
                let batch = settings.batch.filter(|&n| n < rows);
                (rows, batch, batch.map_or(1, |b| (rows / b).max(1)) as u64)
            }
            TrainData::Sampled(s) => {
                let b = s.batch_rows();
                (b, Some(b), s.steps_per_epoch().max(1))
            }
        };
        if rows == 0 {
            return Err(Error::Refused("there are no training rows".into()));
        }
        let total_steps = match settings.length {
            TrainLength::Epochs(e) => e.saturating_mul(steps_per_epoch),
            TrainLength::Steps(s) => s,
        };
        let interval = log_interval(total_steps);
        let callback_every = gcd(
            gcd(interval, settings.checkpoint_every),
            settings.log_every.unwrap_or(0),
        );
        // Evaluations (validation loss, early stopping) at about the logging interval.
        let eval_every = (interval / steps_per_epoch).max(1);
        let early_stopping = early_stopping
            .map(|es| EarlyStopping::new(es.patience.div_ceil(eval_every).max(1), es.min_delta));
        Ok(Plan {
            rows,
            validation_rows: None,
            batch,
            sampled: matches!(train, TrainData::Sampled(_)),
            steps_per_epoch,
            total_steps,
            log_interval: interval,
            callback_every,
            eval_every,
            early_stopping,
            schedule: settings.schedule.build(settings.lr, total_steps),
            length: settings.length,
            pool,
        })
    }

    /// Records the validation rows: those of `val`, or of the `whole` set it is a part of.
    pub fn with_validation<B: Backend>(
        mut self,
        val: Option<Data<'_, B>>,
        whole: Option<WholeRows>,
    ) -> Self {
        self.validation_rows = val.map(|v| whole.map_or(v.y.dims()[0], |w| w.validation));
        self
    }

    /// The trainer's configuration for `loss` and `seed`.
    pub fn trainer_config(&self, loss: Loss, seed: u64) -> TrainerConfig {
        TrainerConfig {
            loss,
            schedule: Some(self.schedule.clone()),
            length: self.length,
            batch_size: if self.sampled { None } else { self.batch },
            shuffle: true,
            seed,
            log_every: self.callback_every,
            eval_every: self.eval_every,
            callback_every: self.callback_every,
            early_stopping: self.early_stopping,
            clip_grad_norm: None,
            cache_encoding: true,
            pool: self.pool,
        }
    }
}
