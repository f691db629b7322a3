//! Integration tests of `iron-learn-nn`.
//!
//! One test binary for the crate: each module below is one former test file.

mod common;
mod allocations;
mod convergence;
mod determinism;
mod gradients;
mod hashgrid_model;
mod mlp;
mod pooling;
mod sampled;
mod schedules;
mod siren;
mod trainer;
mod model_trait;
