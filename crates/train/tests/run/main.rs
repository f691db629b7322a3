//! Training runs as a library user drives them, with no job: any model, any data.
//!
//! One test binary for the crate: each module below is one subject.

mod custom_model;
mod parts;
mod runs;
