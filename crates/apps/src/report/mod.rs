//! What a run leaves behind: metrics, charts and its output folder.

pub mod atomic_write;
pub mod lstsq;
pub mod metrics;
pub mod plot;
pub mod run_dir;
