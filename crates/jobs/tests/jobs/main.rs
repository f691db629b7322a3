//! The jobs as a library user drives them.
//!
//! One test binary for the crate: each module below is one subject.

mod image;
mod image_budget;
mod jobs;
mod table;
mod table_auto;
mod table_folds;
mod table_job;
mod table_range;
mod table_resume;
mod table_split;
mod table_typing;
mod table_wide;
