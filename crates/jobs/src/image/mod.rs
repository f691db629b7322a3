//! Fitting an image as a function `(x, y) -> pixel`, as a library call: what
//! `iron-learn image fit` runs, and what a program calls with its own options.
//!
//! - [`ImageFitOptions`]: plain data (no command-line parser); what it leaves unset takes
//!   the defaults of [`defaults`], the one home of every image default (network per
//!   picture, hidden layers, tables, pixels per step, steps, learning rate, file names).
//! - [`fit_image`]: loads the picture (refused from its header when it would not fit in
//!   memory, [`memory`]), trains a [`Run`](train::Run) in the run folder (checkpoints,
//!   resume, stop flag), draws and scores the reconstruction, and returns an
//!   [`ImageFitOutcome`]: the fitted model, its figures and the files written.
//! - [`render_image`]: a fitted image redrawn at any size into a file ([`RenderOptions`]),
//!   optionally scored against a reference picture ([`RenderOutcome`]).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use jobs::image::{ImageFitOptions, fit_image};
//! let cpu = tensor_cpu::CpuBackend::new();
//! let options = ImageFitOptions::new(Some("photo.png".into()), "runs/photo");
//! let fit = fit_image(&cpu, &options, &mut train::Silent)?;
//! println!("{}", fit.line());
//! fit.model.render_png(2048, "photo-large.png")?;
//! # Ok(()) }
//! ```

pub mod budget;
mod codec;
pub mod defaults;
mod draw;
mod draw_progress;
mod fit;
pub mod memory;
mod options;
mod outcome;
mod plan;
mod recon;
mod record;
mod render;
mod shared;
mod stored;
mod target;

pub use budget::SizeBudget;
pub use codec::{EncodeOptions, EncodedPixels, decode_pixels, encode_pixels};
pub use draw_progress::{DrawProgress, duration};
pub use fit::{JOB, fit_image};
pub use options::{DEFAULT_SUPERSAMPLE, GridOptions, ImageArch, ImageFitOptions, ImageOption};
pub use outcome::{ImageFitMetrics, ImageFitOutcome};
pub use plan::{Plan, coordinate_network, hash_grid_config};
pub use recon::{MIN_CAPPED_SIDE, capped_side};
pub use render::{
    MAX_RENDER_SIZE, RenderOptions, RenderOutcome, RenderScores, check_render_options,
    load_within_budget, render_image,
};
pub use stored::StoredScores;
pub use target::check_options;
