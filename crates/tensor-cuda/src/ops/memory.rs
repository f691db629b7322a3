//! Allocation, transfers between host and device, device-to-device copies and fill.

use crate::backend::Inner;
use crate::error::{check_len, driver, product};
use crate::kernels::{Arg, K, u};
use crate::storage::{CudaIndex, CudaStorage};
use tensor_core::{Error, Result};

impl Inner {
    /// Waits for the stream; reports errors of earlier asynchronous work.
    pub(crate) fn synchronize(&self, op: &'static str) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| driver(op, "synchronizing the stream", e))
    }

    /// A pool allocation of `len` floats (at least one, see [`CudaStorage`]).
    pub(crate) fn alloc(&self, op: &'static str, len: usize) -> Result<CudaStorage> {
        let n = len.max(1);
        let bytes = product(op, n, 4)?;
        // SAFETY: the contents are unspecified until written, as `Backend::alloc` documents.
        let buf = unsafe { self.stream.alloc::<f32>(n) }
            .map_err(|e| driver(op, &format!("allocating {len} floats ({bytes} bytes)"), e))?;
        self.counters.allocation();
        Ok(CudaStorage { buf, len })
    }

    /// Copies `data` into `dst`, which has the same length.
    pub(crate) fn upload_into(&self, data: &[f32], dst: &mut CudaStorage) -> Result<()> {
        check_len("upload_into", "dst", dst.len, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        self.stream
            .memcpy_htod(data, &mut dst.buf.slice_mut(0..data.len()))
            .map_err(|e| driver("upload", "copying to the device", e))?;
        self.counters.upload(std::mem::size_of_val(data));
        Ok(())
    }

    /// Copies a buffer to the host and waits for the copy.
    pub(crate) fn download(&self, src: &CudaStorage) -> Result<Vec<f32>> {
        let mut out = vec![0.0f32; src.len];
        if src.len == 0 {
            return Ok(out);
        }
        self.stream
            .memcpy_dtoh(&src.buf.slice(0..src.len), out.as_mut_slice())
            .map_err(|e| driver("download", "copying to the host", e))?;
        self.synchronize("download")?;
        self.counters
            .download(std::mem::size_of_val(out.as_slice()));
        Ok(out)
    }

    /// A new index buffer, with its largest value and a host copy kept for bounds checks.
    pub(crate) fn upload_indices(&self, indices: &[u32]) -> Result<CudaIndex> {
        let n = indices.len().max(1);
        product("upload_indices", n, 4)?;
        // SAFETY: written below before any use (an empty buffer is never read).
        let mut buf = unsafe { self.stream.alloc::<u32>(n) }
            .map_err(|e| driver("upload_indices", "allocating an index buffer", e))?;
        self.counters.allocation();
        if !indices.is_empty() {
            self.stream
                .memcpy_htod(indices, &mut buf.slice_mut(0..indices.len()))
                .map_err(|e| driver("upload_indices", "copying to the device", e))?;
            self.counters.upload(std::mem::size_of_val(indices));
        }
        Ok(CudaIndex {
            buf,
            len: indices.len(),
            max: indices.iter().copied().max(),
            host: indices.to_vec(),
        })
    }

    /// `dst[dst_offset..][..len] = src[src_offset..][..len]`, a device-to-device copy.
    pub(crate) fn copy_slice(
        &self,
        src: &CudaStorage,
        src_offset: usize,
        dst: &mut CudaStorage,
        dst_offset: usize,
        len: usize,
    ) -> Result<()> {
        let end = |offset: usize, total: usize| {
            offset
                .checked_add(len)
                .filter(|&e| e <= total)
                .ok_or(Error::OutOfBounds {
                    op: "copy_slice",
                    index: offset.saturating_add(len),
                    len: total,
                })
        };
        let src_end = end(src_offset, src.len)?;
        let dst_end = end(dst_offset, dst.len)?;
        if len == 0 {
            return Ok(());
        }
        self.stream
            .memcpy_dtod(
                &src.buf.slice(src_offset..src_end),
                &mut dst.buf.slice_mut(dst_offset..dst_end),
            )
            .map_err(|e| driver("copy_slice", "copying on the device", e))
    }

    /// Sets every element of `dst` to `value` with the fill kernel.
    pub(crate) fn fill(&self, op: &'static str, dst: &mut CudaStorage, value: f32) -> Result<()> {
        if dst.len == 0 {
            return Ok(());
        }
        self.launch(
            op,
            K::Fill,
            self.linear(dst.len),
            &[Arg::Ptr(dst.ptr()), u(dst.len), Arg::F32(value)],
        )
    }
}
