//! Training runs for Iron Learn: what makes a run safe to leave alone and useful afterwards,
//! as a library.
//!
//! A [`Run`] trains any [`nn::Model`] (an [`nn::Mlp`], an [`nn::HashGridMlp`], a type of your
//! own) in a folder:
//!
//! - it **resumes** from the folder's checkpoint ([`Settings::resume`]), refusing in one line
//!   a checkpoint of another job, network or data set, or another batch size (which would
//!   break its epoch and learning-rate accounting), and naming the option that changed;
//! - it writes **periodic atomic checkpoints** ([`Settings::checkpoint_every`], and always at
//!   the end and at a stop request): model, optimizer moments and trainer state, so that a
//!   resumed run continues bit for bit;
//! - it **stops early** on the validation loss and **restores the best weights**
//!   ([`Run::early_stopping`]);
//! - it **guards against divergence**: a loss that stops being finite or explodes far above
//!   that of predicting zeros ends the run naming the step ([`divergence`]);
//! - it honours a **stop request** ([`Run::stop_flag`]: an `Arc<AtomicBool>` that a signal
//!   handler only has to set);
//! - it **reports progress** through a [`Reporter`] of the program's choosing, and prints
//!   nothing itself;
//! - it keeps a **record**: `config.json` ([`record::RunRecord`], typed), `history.csv`
//!   ([`history`]) and the checkpoint `model.safetensors` ([`checkpoint`]).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nn::{Activation, Data, EarlyStopping, Loss, Mlp, Tensor, TrainLength};
//! use tensor_cpu::CpuBackend;
//! use train::{Run, Settings};
//!
//! let cpu = CpuBackend::new();
//! let x = Tensor::from_slice(&cpu, &[0., 0., 0., 1., 1., 0., 1., 1.], [4, 2])?;
//! let y = Tensor::from_slice(&cpu, &[0., 1., 1., 0.], [4, 1])?;
//! let config = Mlp::<CpuBackend>::builder()
//!     .input(2)
//!     .hidden(&[8], Activation::Tanh)
//!     .output(1, Activation::Identity)
//!     .config(42)?;
//! let settings = Settings {
//!     lr: 0.05,
//!     length: TrainLength::Steps(500),
//!     resume: std::path::Path::new("runs/xor/model.safetensors").exists(),
//!     ..Settings::default()
//! };
//! let outcome = Run::new("xor", "runs/xor", config, Loss::BceWithLogits, settings)
//!     .train_mlp(&cpu, Data::new(&x, &y), None)?;
//! println!("{}", outcome.summary());
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod budget;
mod builder;
pub mod checkpoint;
pub mod data;
pub mod divergence;
mod error;
pub mod history;
pub mod lock;
pub mod monitor;
pub mod outcome;
mod plan;
pub mod progress;
pub mod ranks;
pub mod record;
pub mod report;
mod resume;
mod run;
pub mod run_dir;
mod settings;

pub use checkpoint::{Loaded, RunMeta};
pub use data::{DataSummary, RunData, WholeRows};
pub use divergence::Diverged;
pub use error::{Error, Result, ResumeAdvice};
pub use monitor::LossUnits;
pub use outcome::{Outcome, RunMetrics};
pub use plan::TrainingSize;
pub use report::{Lines, Reading, Reporter, Silent};
pub use run::{MemoryCheck, Run};
pub use settings::{BatchChoice, BatchChoiceError, Defaults, Schedule, Settings, TrainChoices};
