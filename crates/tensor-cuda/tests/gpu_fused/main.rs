//! The fused kernels against the default compositions of primitives (run on the CPU), and
//! the transfer and allocation counters of a steady-state training step. Needs a CUDA GPU:
//! run with `--include-ignored`.

#[path = "../common/mod.rs"]
mod common;

mod fused;
mod steady_state;
