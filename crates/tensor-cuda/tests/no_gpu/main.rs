//! Tests that run on every machine, GPU or not: the backend fails cleanly without a device,
//! and the committed PTX was built from the current kernel sources.

mod device;
mod ptx_freshness;
