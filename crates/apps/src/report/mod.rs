//! What a run leaves behind: its output folder and its metrics.

pub mod run_dir;
