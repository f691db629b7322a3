//! `Tensor<CpuBackend>`: what `Tensor` adds over the backend operations.

mod blocks;
mod elementwise;
mod errors;
mod fused;
mod layout;
mod linalg;
mod reduce;
