//! Integration tests of `iron-learn-nn`.
//!
//! One test binary for the crate: each module below is one former test file.

mod allocations;
mod common;
mod convergence;
mod data_parallel;
mod data_parallel_bands;
mod determinism;
mod gradients;
mod group;
mod hashgrid_model;
mod mlp;
mod model_trait;
mod pooling;
mod sampled;
mod schedules;
mod siren;
mod trainer;
