//! Fitting a network to a function of `x` typed as text, as a library call: what
//! `iron-learn approx` runs, and what a program calls with its own options.
//!
//! - [`ApproxOptions`]: plain data: the function, its range, the samples, the network and
//!   the run's [`Settings`](train::Settings).
//! - [`check_options`]: refuses, before anything is written, a function that cannot be
//!   read, too few samples or a network beyond the memory budget.
//! - [`fit_function`]: samples the function (leaving out undefined points and poles),
//!   trains a [`Run`](train::Run) in the run folder, scores the fit and writes
//!   `points.csv`, `fit.png`, `loss.png` and `metrics.json`; returns an
//!   [`ApproxOutcome`]: the model, its figures and the files written.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use jobs::approx::{ApproxOptions, fit_function};
//! let cpu = tensor_cpu::CpuBackend::new();
//! let options = ApproxOptions::new("sin(3*x)", (-2.0, 2.0), "runs/sine");
//! let fit = fit_function(&cpu, &options, &mut train::Silent)?;
//! println!("{}", fit.fit_line());
//! # Ok(()) }
//! ```

mod curve;
mod fit;
mod options;
mod outcome;

pub use fit::{JOB, check_options, fit_function};
pub use options::{ApproxOptions, DEFAULT_HIDDEN, DEFAULT_SAMPLES, MIN_SAMPLES};
pub use outcome::{ApproxMetrics, ApproxOutcome, FunctionFit};
