//! The jobs of Iron Learn as library calls: what the `iron-learn` tool runs, with the same
//! defaults, each a plain options struct in and a typed outcome out.
//!
//! - [`image`]: fit a picture as a function `(x, y) -> pixel` ([`image::fit_image`]) and
//!   redraw it at any size ([`image::render_image`]);
//! - [`tabular`]: the table job ([`tabular::job::TableJob`]): read, type and encode a table
//!   ([`table`]), train the default model or the one asked for, write the model file;
//! - [`approx`]: a network fitted to a function of `x` typed as text;
//! - [`xor`]: the XOR network;
//! - [`predict`]: a fitted model on new rows, as CSV;
//! - [`bench`](mod@bench) and [`timing`]: training steps timed on a device.
//!
//! Every job trains through the run layer ([`train::Run`]): resumable, checkpointed
//! atomically, recorded in its folder. Errors are [`Error`]: the run layer's, or a reason of
//! the job's own.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use jobs::image::{ImageFitOptions, fit_image};
//!
//! let cpu = tensor_cpu::CpuBackend::new();
//! let options = ImageFitOptions::new(Some("data/drawing.png".into()), "runs/drawing");
//! let fit = fit_image(&cpu, &options, &mut train::Silent)?;
//! println!("{}", fit.line());
//! fit.model.render_png(800, "drawing-800.png")?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod approx;
pub mod bench;
pub mod defaults;
mod error;
pub mod image;
pub mod metrics;
pub mod plot;
pub mod predict;
pub mod table;
pub mod tabular;
pub mod timing;
pub mod xor;

pub use error::{Error, Result};
