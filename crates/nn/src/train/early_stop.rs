//! Early stopping on a monitored loss.

use serde::{Deserialize, Serialize};

/// Stops training when the monitored loss (validation loss when a validation set is
/// given, the epoch's training loss otherwise) has not improved by more than `min_delta`
/// for `patience` consecutive evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EarlyStopping {
    /// Evaluations without improvement tolerated before stopping.
    pub patience: u64,
    /// The least decrease that counts as an improvement.
    pub min_delta: f32,
}

impl EarlyStopping {
    /// Early stopping after `patience` evaluations without an improvement above
    /// `min_delta`.
    pub fn new(patience: u64, min_delta: f32) -> Self {
        EarlyStopping {
            patience,
            min_delta,
        }
    }

    /// Records `loss`; updates the best loss and the count of evaluations without
    /// improvement, and returns whether training should stop.
    pub fn update(&self, best: &mut Option<f32>, stale: &mut u64, loss: f32) -> bool {
        match *best {
            Some(b)
                if loss.partial_cmp(&(b - self.min_delta)) != Some(std::cmp::Ordering::Less) =>
            {
                *stale += 1
            }
            _ => {
                *best = Some(loss);
                *stale = 0;
            }
        }
        *stale >= self.patience.max(1)
    }
}
