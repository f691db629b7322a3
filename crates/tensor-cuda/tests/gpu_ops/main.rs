//! Parity of every primitive operation of the CUDA backend with the CPU backend, on fresh
//! random inputs of awkward sizes. Needs a CUDA GPU: run with `--include-ignored`.

#[path = "../common/mod.rs"]
mod common;

mod elementwise;
mod gemm;
mod layout;
mod memory;
mod reduce;
