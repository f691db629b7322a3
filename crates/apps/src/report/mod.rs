//! What a run leaves behind: its record, history, metrics, charts and its output folder.

pub mod output;
pub mod run_dir;
