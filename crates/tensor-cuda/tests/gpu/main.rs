//! The tests of the CUDA backend that need a GPU, in one binary; all are `#[ignore]`d, run
//! them with `cargo test -p iron-learn-tensor-cuda --test gpu -- --include-ignored`:
//! - `conformance`: the backend conformance suite of `tensor-core`, one test per check;
//! - `device`: what is particular to this backend (device description, TF32, clones
//!   sharing one stream and workspace);
//! - `hashgrid`: the encoding against the CPU, and its steady state;
//! - `steady_state`, `training`: a training step moves no data and allocates nothing, and
//!   a network trained on the GPU ends where the CPU's does;
//! - `nccl` (with the `nccl` feature): a group of one GPU sums in place on the device.

mod common;
mod device;
mod hashgrid;
#[cfg(feature = "nccl")]
mod nccl;
mod steady_state;
mod training;

mod conformance {
    tensor_core::conformance_tests!(
        #[ignore = "needs a CUDA GPU"]
        crate::common::gpu()
    );
}
