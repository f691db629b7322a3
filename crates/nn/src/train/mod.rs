//! The training loop: [`Trainer`] with its configuration, state, events and report.

mod batches;
mod early_stop;
mod progress;
mod state;
mod trainer;

pub use batches::{BatchPlan, epoch_permutation};
pub use early_stop::EarlyStopping;
pub use state::{Control, EpochMetrics, StopReason, TrainEvent, TrainReport, TrainerState};
pub use trainer::{Data, TrainLength, Trainer, TrainerConfig};
