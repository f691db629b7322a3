//! Device buffers: [`CudaStorage`] (f32 values) and [`CudaIndex`] (u32 row indices).

use cudarc::driver::{CudaContext, CudaSlice, CudaView, DevicePtr};

/// A buffer of `f32` in device memory, allocated from the stream-ordered pool and freed
/// back to it (`cuMemFreeAsync` on the backend's stream) when dropped.
///
/// An empty buffer still owns a one-element allocation, since the pool has no empty blocks.
#[derive(Debug)]
pub struct CudaStorage {
    pub(crate) buf: CudaSlice<f32>,
    pub(crate) len: usize,
}

impl CudaStorage {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements as a cudarc view, for code that launches its own kernels on the
    /// backend's stream ([`CudaBackend::stream`](crate::CudaBackend::stream)).
    pub fn as_view(&self) -> CudaView<'_, f32> {
        self.buf.slice(0..self.len)
    }

    /// The device address of the first element.
    pub(crate) fn ptr(&self) -> u64 {
        device_address(&self.buf)
    }
}

/// A buffer of `u32` row indices in device memory, with the largest index remembered on the
/// host so that gathers can be checked without reading the device.
#[derive(Debug)]
pub struct CudaIndex {
    pub(crate) buf: CudaSlice<u32>,
    pub(crate) len: usize,
    /// The largest index, `None` when empty.
    pub(crate) max: Option<u32>,
    /// A host copy, consulted only when `max` alone cannot prove a gather in bounds.
    pub(crate) host: Vec<u32>,
}

impl CudaIndex {
    /// The number of indices.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no indices.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The largest index, `None` when empty.
    pub fn max(&self) -> Option<u32> {
        self.max
    }

    /// The device address of the first index.
    pub(crate) fn ptr(&self) -> u64 {
        device_address(&self.buf)
    }

    /// The first index in `start..start + count` that is not below `rows`, if any.
    pub(crate) fn first_out_of_range(
        &self,
        start: usize,
        count: usize,
        rows: usize,
    ) -> Option<u32> {
        match self.max {
            Some(m) if (m as usize) < rows => None,
            None => None,
            Some(_) => self.host[start..start + count]
                .iter()
                .copied()
                .find(|&i| i as usize >= rows),
        }
    }
}

impl Drop for CudaStorage {
    fn drop(&mut self) {
        bind_before_free(self.buf.context());
    }
}

impl Drop for CudaIndex {
    fn drop(&mut self) {
        bind_before_free(self.buf.context());
    }
}

/// Makes `ctx` current on this thread before a buffer is freed (`cuMemFreeAsync` needs a
/// current context, and a buffer may be dropped on a thread that never ran an operation).
/// `bind_to_thread` first returns, and clears, any error an earlier free recorded; there is
/// nobody to report it to here, so a second call then binds.
pub(crate) fn bind_before_free(ctx: &CudaContext) {
    if ctx.bind_to_thread().is_err() {
        let _ = ctx.bind_to_thread();
    }
}

/// The device address of a slice. Event tracking is off for every buffer of this crate, so
/// the returned guard has nothing to record.
fn device_address<T>(buf: &CudaSlice<T>) -> u64 {
    let (ptr, _guard) = buf.device_ptr(buf.stream());
    ptr
}
