//! What a run leaves behind: its record, history, metrics, charts and its output folder.

pub mod axis;
pub mod comparison;
pub mod output;
pub mod plot;
pub mod run_dir;
pub mod run_record;
