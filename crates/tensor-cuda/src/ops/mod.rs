//! The backend operations, as methods of the shared device state, one concept per file.

mod broadcast;
mod copy;
mod elementwise;
mod gemm;
mod hashgrid;
mod memory;
mod reduce;

pub(crate) use hashgrid::HashGridParams;
