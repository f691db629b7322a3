//! The training loop: [`Trainer`] with its configuration, data, state, events and report.
//!
//! The trainer works with any [`Model`](crate::Model); the pieces of one `fit` call (batch
//! planning, pooled supervision, the step itself) live in their own modules.

mod batches;
mod config;
mod data;
mod early_stop;
mod part;
mod pixel_batch;
mod pixels;
mod pooling;
mod replicas;
mod session;
mod source;
mod state;
mod trainer;

pub use batches::{BatchPlan, epoch_permutation};
pub use config::{TrainLength, TrainerConfig};
pub use data::Data;
pub use early_stop::EarlyStopping;
pub use part::Holding;
pub use pixels::{PixelSampler, PixelValues, pixel_coord};
pub use replicas::{Replicas, check_shareable, share};
pub use source::{BatchSource, TrainData};
pub use state::{Control, EpochMetrics, StopReason, TrainEvent, TrainReport, TrainerState};
pub use trainer::Trainer;

/// Validation rows evaluated at once: a larger validation set is evaluated in chunks of this
/// many rows, so that its activations stay within a few tens of MB for the usual widths.
pub const EVAL_ROWS: usize = 4096;
