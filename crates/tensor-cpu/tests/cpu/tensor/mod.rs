//! `Tensor<CpuBackend>`: what `Tensor` adds over the backend operations.

mod elementwise;
mod errors;
mod layout;
mod linalg;
mod reduce;
