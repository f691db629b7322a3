//! Scratch memory reused by multi-pass kernels (reduction partials, loss partials).

use crate::counters::CounterCells;
use crate::error::driver;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use std::sync::Arc;
use tensor_core::Result;

/// The smallest capacity allocated, in elements.
const MIN_CAPACITY: usize = 4096;

/// Partial values and indices between the passes of a reduction. It grows on demand and is
/// then kept, so a steady-state training step allocates nothing. The backend holds it behind
/// a mutex for the whole of an operation, since every pass of that operation must see the
/// same contents.
#[derive(Default)]
pub(crate) struct Workspace {
    buffers: Option<(CudaSlice<f32>, CudaSlice<u32>)>,
    capacity: usize,
}

/// Device addresses of a workspace with room for at least the requested elements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scratch {
    /// `f32` partial values.
    pub vals: u64,
    /// `u32` partial indices.
    pub idx: u64,
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if let Some((vals, _)) = &self.buffers {
            crate::storage::bind_before_free(vals.context());
        }
    }
}

impl Workspace {
    /// Room for `n` values and `n` indices, growing (and counting the allocations) if needed.
    /// A smaller old block is freed in stream order, after the work that used it.
    pub(crate) fn ensure(
        &mut self,
        stream: &Arc<CudaStream>,
        counters: &CounterCells,
        op: &'static str,
        n: usize,
    ) -> Result<Scratch> {
        let buffers = match self.buffers.take() {
            Some(b) if n <= self.capacity => b,
            _ => {
                let capacity = n.max(MIN_CAPACITY).next_power_of_two();
                // SAFETY: the contents are written by a kernel before they are read.
                let vals = unsafe { stream.alloc::<f32>(capacity) }
                    .map_err(|e| driver(op, "allocating scratch memory", e))?;
                counters.allocation();
                // SAFETY: as above.
                let idx = unsafe { stream.alloc::<u32>(capacity) }
                    .map_err(|e| driver(op, "allocating scratch memory", e))?;
                counters.allocation();
                self.capacity = capacity;
                (vals, idx)
            }
        };
        let scratch = Scratch {
            vals: buffers.0.device_ptr(stream).0,
            idx: buffers.1.device_ptr(stream).0,
        };
        self.buffers = Some(buffers);
        Ok(scratch)
    }
}
