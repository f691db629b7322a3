//! A run's training settings: learning rate and schedule, length, batch, seed, checkpoint
//! interval, and whether it continues from its checkpoint.

use nn::{LrSchedule, TrainLength};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// How the learning rate moves over a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// The same learning rate throughout.
    Constant,
    /// Halve the learning rate every quarter of the run.
    Step,
    /// Cosine annealing from the learning rate down to a hundredth of it over the run.
    Cosine,
}

impl Schedule {
    /// `constant`, `step` or `cosine`.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Constant => "constant",
            Schedule::Step => "step",
            Schedule::Cosine => "cosine",
        }
    }

    /// The schedule from learning rate `lr` over `total_steps` steps.
    pub fn build(self, lr: f32, total_steps: u64) -> LrSchedule {
        let total = total_steps.max(1);
        match self {
            Schedule::Constant => LrSchedule::constant(lr),
            Schedule::Step => LrSchedule::step_decay(lr, (total / 4).max(1), 0.5),
            Schedule::Cosine => LrSchedule::cosine(lr, lr / 100.0, total),
        }
    }
}

/// The settings of a run that a user chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The base learning rate.
    pub lr: f32,
    /// How long to train, in steps or in passes over the data.
    pub length: TrainLength,
    /// Rows per step (`None`: the whole training set); ignored for a batch source, which
    /// makes its own batches.
    pub batch: Option<usize>,
    /// How the learning rate moves.
    pub schedule: Schedule,
    /// Seed of initialisation and batch order.
    pub seed: u64,
    /// Steps between checkpoints (0: only at the end).
    pub checkpoint_every: u64,
    /// Report progress at least every this many steps (the history has about 100 rows
    /// whatever this is).
    pub log_every: Option<u64>,
    /// Continue from the checkpoint in the run folder instead of starting afresh.
    pub resume: bool,
    /// With `resume`: continue even when the training data differs from the checkpoint's.
    pub force: bool,
}

impl Default for Settings {
    /// Adam at 1e-3 with cosine decay for 100 epochs of full batches, seed 42, a checkpoint
    /// every 500 steps, a fresh start.
    fn default() -> Self {
        Settings {
            lr: 1e-3,
            length: TrainLength::Epochs(100),
            batch: None,
            schedule: Schedule::Cosine,
            seed: 42,
            checkpoint_every: 500,
            log_every: None,
            resume: false,
            force: false,
        }
    }
}

impl Settings {
    /// Learning rate `lr` for `length`, the rest as [`Settings::default`].
    pub fn new(lr: f32, length: TrainLength) -> Self {
        Settings {
            lr,
            length,
            ..Settings::default()
        }
    }

    /// A job's default learning rate, length, batch and schedule, the rest as
    /// [`Settings::default`].
    pub fn from_defaults(d: &Defaults) -> Self {
        Settings {
            lr: d.lr,
            length: d.length,
            batch: d.batch,
            schedule: d.schedule,
            ..Settings::default()
        }
    }

    /// These settings with batches of `rows` rows.
    pub fn batch(self, rows: usize) -> Self {
        Settings {
            batch: Some(rows),
            ..self
        }
    }

    /// These settings, continuing from the run folder's checkpoint when `resume` is true.
    pub fn resume(self, resume: bool) -> Self {
        Settings { resume, ..self }
    }
}

/// Mini-batches of a run, when not the job's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchChoice {
    /// Every training row in every step.
    Full,
    /// This many rows a step.
    Rows(usize),
}

/// Why a text is not a [`BatchChoice`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchChoiceError {
    /// A batch of no rows.
    #[error("batch size must be at least 1")]
    Empty,
    /// Neither a number nor `full`.
    #[error("expected a number or \"full\", got {0:?}")]
    Unreadable(String),
}

impl std::str::FromStr for BatchChoice {
    type Err = BatchChoiceError;

    /// `full` (in any case) or a number of rows, at least 1.
    fn from_str(s: &str) -> Result<Self, BatchChoiceError> {
        if s.eq_ignore_ascii_case("full") {
            return Ok(BatchChoice::Full);
        }
        match s.parse::<usize>() {
            Ok(0) => Err(BatchChoiceError::Empty),
            Ok(n) => Ok(BatchChoice::Rows(n)),
            Err(_) => Err(BatchChoiceError::Unreadable(s.to_string())),
        }
    }
}

/// The training choices a user may leave to the job (`None`: the job's default).
#[derive(Debug, Clone)]
pub struct TrainChoices {
    /// Learning rate.
    pub lr: Option<f32>,
    /// Length.
    pub length: Option<TrainLength>,
    /// Rows (of an image fit: pixels) per step.
    pub batch: Option<BatchChoice>,
    /// Learning-rate schedule.
    pub schedule: Option<Schedule>,
    /// Seed of the splits, the initial weights and the batch order.
    pub seed: u64,
    /// Steps between checkpoints (0: only at the end).
    pub checkpoint_every: u64,
    /// Report progress at least every this many steps.
    pub log_every: Option<u64>,
    /// Continue from the run folder's checkpoint.
    pub resume: bool,
    /// Start afresh over a checkpoint, or resume on other data.
    pub force: bool,
    /// A flag that, once set, stops the run at the next step (it checkpoints).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for TrainChoices {
    /// Every choice left to the job; the seed and checkpoint interval of
    /// [`Settings::default`], a fresh start.
    fn default() -> Self {
        let settings = Settings::default();
        TrainChoices {
            lr: None,
            length: None,
            batch: None,
            schedule: None,
            seed: settings.seed,
            checkpoint_every: settings.checkpoint_every,
            log_every: None,
            resume: false,
            force: false,
            stop: None,
        }
    }
}

impl TrainChoices {
    /// The run's settings: the choices made, `defaults` for the others.
    pub fn settings(&self, defaults: &Defaults) -> Settings {
        Settings {
            lr: self.lr.unwrap_or(defaults.lr),
            length: self.length.unwrap_or(defaults.length),
            batch: match self.batch {
                Some(BatchChoice::Rows(n)) => Some(n),
                Some(BatchChoice::Full) => None,
                None => defaults.batch,
            },
            schedule: self.schedule.unwrap_or(defaults.schedule),
            seed: self.seed,
            checkpoint_every: self.checkpoint_every,
            log_every: self.log_every.filter(|&n| n > 0),
            resume: self.resume,
            force: self.force,
        }
    }
}

/// A job's default learning rate, length, batch and schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    /// Learning rate.
    pub lr: f32,
    /// Length.
    pub length: TrainLength,
    /// Mini-batch size (`None`: full batch).
    pub batch: Option<usize>,
    /// Schedule.
    pub schedule: Schedule,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_read_as_full_or_a_number_of_rows() {
        assert_eq!("FULL".parse(), Ok(BatchChoice::Full));
        assert_eq!("64".parse(), Ok(BatchChoice::Rows(64)));
        assert_eq!("0".parse::<BatchChoice>(), Err(BatchChoiceError::Empty));
        let e = "many".parse::<BatchChoice>().unwrap_err().to_string();
        assert_eq!(e, "expected a number or \"full\", got \"many\"");
    }
}
