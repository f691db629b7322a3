//! Sums between the GPUs of several processes through NCCL (the `nccl` feature): one
//! communicator per process, on the backend's stream, so that a sum runs in order with the
//! kernels before and after it and nothing waits for the device.
//!
//! NCCL is opened at run time, as the driver is: a build with the feature runs on machines
//! without NCCL until a group is made or joined, which then fails with an error naming the
//! library. The loader looks for `libnccl.so` (NVIDIA's `libnccl-dev` package; with only
//! the runtime's `libnccl.so.2`, a link named `libnccl.so` to it on `LD_LIBRARY_PATH`).
//!
//! ```no_run
//! use tensor_core::Tensor;
//! use tensor_cuda::CudaBackend;
//! use tensor_cuda::nccl::{NcclGroup, new_group_id};
//!
//! # fn main() -> Result<(), tensor_core::Error> {
//! let (rank, size) = (0, 1); // from the launcher
//! let gpu = CudaBackend::new(rank)?;
//! let id = new_group_id()?; // rank 0 makes it and sends it to the others (over MPI)
//! let group = NcclGroup::join(&gpu, rank, size, &id)?;
//! let mut t = Tensor::from_slice(&gpu, &[1.0, 2.0], [2])?;
//! group.sum_in_place(&mut t)?; // every process's values, summed
//! # Ok(()) }
//! ```

use crate::{CudaBackend, CudaError};
use cudarc::nccl::result::NcclError;
use cudarc::nccl::safe::{Comm, Id, ReduceOp};
use std::sync::Mutex;
use tensor_core::{Error, Tensor};

/// The bytes of a group's id: made by one process ([`new_group_id`]) and given to every
/// other before they join.
pub const GROUP_ID_BYTES: usize = 128;

/// Where NCCL's library was looked for, for the error when it is not found.
const NCCL_LOOKED_FOR: &str = "libnccl.so on the loader path (NVIDIA's libnccl-dev package, \
     or a link named libnccl.so to libnccl.so.2 on LD_LIBRARY_PATH)";

/// Refuses to go on when NCCL's library cannot be opened (the bindings would panic).
fn require_nccl(op: &'static str) -> Result<(), Error> {
    // SAFETY: this only tries to open the library by its candidate names.
    match unsafe { cudarc::nccl::sys::is_culib_present() } {
        true => Ok(()),
        false => Err(Error::device(
            op,
            format!("NCCL was not found: looked for {NCCL_LOOKED_FOR}"),
        )),
    }
}

/// A new group id, made once (by rank 0) for every process of the group to join with.
pub fn new_group_id() -> Result<[u8; GROUP_ID_BYTES], Error> {
    require_nccl("NcclGroup::new_group_id")?;
    let id = Id::new().map_err(|e| failed("NcclGroup::new_group_id", "ncclGetUniqueId", e))?;
    Ok(id.internal().map(|c| c as u8))
}

/// This process's place in a group of GPUs that sum their buffers together, one GPU a
/// process.
pub struct NcclGroup {
    /// The communicator, one call at a time.
    comm: Mutex<Comm>,
    rank: usize,
    size: usize,
}

// SAFETY: NCCL allows a communicator to be used from any thread as long as its calls do not
// overlap; every call goes through the mutex.
unsafe impl Send for NcclGroup {}
// SAFETY: as for `Send`: the communicator is reached only through the mutex.
unsafe impl Sync for NcclGroup {}

impl std::fmt::Debug for NcclGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NcclGroup(rank {} of {})", self.rank, self.size)
    }
}

impl NcclGroup {
    /// Joins the group `id` as process `rank` of `size`, with the GPU of `gpu` and on its
    /// stream. Every process of the group calls it with the same id; it returns when all
    /// have.
    pub fn join(
        gpu: &CudaBackend,
        rank: usize,
        size: usize,
        id: &[u8; GROUP_ID_BYTES],
    ) -> Result<Self, Error> {
        if rank >= size || i32::try_from(size).is_err() {
            return Err(Error::device(
                "NcclGroup::join",
                format!("rank {rank} is not one of {size} processes"),
            ));
        }
        require_nccl("NcclGroup::join")?;
        let id = Id::uninit(id.map(|b| b as std::ffi::c_char));
        let comm = Comm::from_rank(gpu.stream().clone(), rank, size, id)
            .map_err(|e| failed("NcclGroup::join", "ncclCommInitRank", e))?;
        Ok(NcclGroup {
            comm: Mutex::new(comm),
            rank,
            size,
        })
    }

    /// This process's rank in the group.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of processes in the group.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Replaces the values of `t` with their element-wise sum over every process of the
    /// group (ncclAllReduce in place, on the backend's stream). Every process calls it with
    /// as many values, in the same order of calls.
    pub fn sum_in_place(&self, t: &mut Tensor<CudaBackend>) -> Result<(), Error> {
        let comm = self.comm.lock().unwrap_or_else(|e| e.into_inner());
        let storage = t.storage_mut();
        let len = storage.len;
        let mut view = storage.buf.slice_mut(0..len);
        comm.all_reduce_in_place(&mut view, &ReduceOp::Sum)
            .map_err(|e| failed("NcclGroup::sum_in_place", "ncclAllReduce", e))?;
        Ok(())
    }
}

/// The error of the NCCL call `call` while running `op`.
fn failed(op: &'static str, call: &'static str, e: NcclError) -> Error {
    Error::device(op, format!("{call} failed")).with_source(CudaError::Nccl {
        call,
        code: e.0 as i32,
    })
}
