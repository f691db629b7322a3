//! Tests that run on every machine, GPU or not: the backend fails cleanly without a device
//! (and, with the `nccl` feature, without NCCL), and the committed PTX was built from the
//! current kernel sources.

mod device;
#[cfg(feature = "nccl")]
mod nccl;
mod ptx_freshness;
