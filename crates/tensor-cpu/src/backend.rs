//! The `CpuBackend` type: buffers, transfers and counters.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tensor_core::check::buffer_len;
use tensor_core::params::{
    BinaryAssignSpec, BinarySpec, BlockCopy, GatherSpec, ReduceSpec, SliceCopy,
};
use tensor_core::{Counters, Gemm, Primitives, Result, UnaryOp};

#[derive(Debug, Default)]
struct AtomicCounters {
    allocations: AtomicU64,
    bytes_uploaded: AtomicU64,
    bytes_downloaded: AtomicU64,
    launches: AtomicU64,
}

/// Tensors in host memory, computed with rayon and `matrixmultiply`.
///
/// Cloning is cheap; clones share their counters.
#[derive(Debug, Clone, Default)]
pub struct CpuBackend {
    counters: Arc<AtomicCounters>,
}

impl CpuBackend {
    /// A CPU backend using rayon's global thread pool. Its kernels run the vector path of
    /// [`crate::simd_path`]; where `IRON_LEARN_SIMD` asks for a path this CPU lacks, the
    /// path detected from the CPU ([`CpuBackend::try_new`] refuses instead).
    pub fn new() -> Self {
        Self::default()
    }

    /// [`CpuBackend::new`], or the one-line reason `IRON_LEARN_SIMD` is refused (a name
    /// that is no path, or a path this CPU lacks).
    pub fn try_new() -> Result<Self> {
        crate::simd::simd_path()?;
        Ok(Self::new())
    }

    pub(crate) fn count_alloc(&self) {
        self.counters.allocations.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an operation and flushes subnormals while it runs (see [`crate::subnormals`]):
    /// every operation starts here and keeps the scope until it returns.
    pub(crate) fn begin_op(&self) -> crate::subnormals::FlushScope {
        self.counters.launches.fetch_add(1, Ordering::Relaxed);
        crate::subnormals::FlushScope::enter()
    }

    pub(crate) fn count_up(&self, bytes: usize) {
        self.counters
            .bytes_uploaded
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn count_down(&self, bytes: usize) {
        self.counters
            .bytes_downloaded
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Counters {
        Counters {
            allocations: self.counters.allocations.load(Ordering::Relaxed),
            bytes_uploaded: self.counters.bytes_uploaded.load(Ordering::Relaxed),
            bytes_downloaded: self.counters.bytes_downloaded.load(Ordering::Relaxed),
            launches: self.counters.launches.load(Ordering::Relaxed),
        }
    }
}

impl Primitives for CpuBackend {
    type Storage = Vec<f32>;
    type Index = Vec<u32>;

    fn name(&self) -> String {
        let threads = rayon::current_num_threads();
        let plural = if threads == 1 { "" } else { "s" };
        format!("cpu ({threads} thread{plural}, {})", crate::simd::active())
    }

    fn runs_side_by_side(&self) -> bool {
        rayon::current_num_threads() > 1
    }

    fn run_beside<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        // A pool of one thread: its operations run on that thread, never waiting for the
        // shared pool's threads, which the jobs beside it keep busy.
        match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        }
    }

    fn counters(&self) -> Counters {
        self.snapshot()
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn alloc(&self, len: usize) -> Result<Vec<f32>> {
        self.count_alloc();
        Ok(vec![0.0; len])
    }

    fn storage_len(&self, storage: &Vec<f32>) -> usize {
        storage.len()
    }

    fn upload(&self, data: &[f32]) -> Result<Vec<f32>> {
        self.count_alloc();
        self.count_up(std::mem::size_of_val(data));
        Ok(data.to_vec())
    }

    fn host_slice<'a>(&self, storage: &'a Vec<f32>) -> Option<&'a [f32]> {
        Some(storage)
    }

    fn upload_vec(&self, data: Vec<f32>) -> Result<Vec<f32>> {
        self.count_alloc();
        self.count_up(std::mem::size_of_val(data.as_slice()));
        Ok(data)
    }

    fn download_vec(&self, storage: Vec<f32>) -> Result<Vec<f32>> {
        self.count_down(std::mem::size_of_val(storage.as_slice()));
        Ok(storage)
    }

    fn upload_into(&self, data: &[f32], dst: &mut Vec<f32>) -> Result<()> {
        buffer_len("upload_into", "dst", dst.len(), data.len())?;
        self.count_up(std::mem::size_of_val(data));
        dst.copy_from_slice(data);
        Ok(())
    }

    fn download(&self, storage: &Vec<f32>) -> Result<Vec<f32>> {
        self.count_down(std::mem::size_of_val(storage.as_slice()));
        Ok(storage.clone())
    }

    fn upload_indices(&self, indices: &[u32]) -> Result<Vec<u32>> {
        self.count_alloc();
        self.count_up(std::mem::size_of_val(indices));
        Ok(indices.to_vec())
    }

    fn index_len(&self, index: &Vec<u32>) -> usize {
        index.len()
    }

    fn fill(&self, dst: &mut Vec<f32>, value: f32) -> Result<()> {
        let _flush = self.begin_op();
        crate::parallel::for_chunks_mut(dst, |_, c| c.fill(value));
        Ok(())
    }

    fn copy_slice(&self, range: SliceCopy, src: &Vec<f32>, dst: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        let SliceCopy {
            src_offset,
            dst_offset,
            len,
        } = range;
        crate::copy::copy_slice(src, src_offset, dst, dst_offset, len)
    }

    fn copy_block(&self, block: BlockCopy, src: &Vec<f32>, dst: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        let BlockCopy {
            rows,
            src_cols,
            dst_cols,
            col_offset,
        } = block;
        crate::copy::copy_block(src, src_cols, dst, dst_cols, col_offset, rows)
    }

    fn transpose(
        &self,
        src: &Vec<f32>,
        rows: usize,
        cols: usize,
        dst: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        crate::copy::transpose(src, rows, cols, dst)
    }

    fn gemm(&self, spec: Gemm, a: &Vec<f32>, b: &Vec<f32>, c: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        crate::gemm::gemm(spec, a, b, c)
    }

    fn unary(&self, op: UnaryOp, x: &Vec<f32>, out: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        buffer_len("unary", "out", out.len(), x.len())?;
        crate::unary::unary(op, x, out);
        Ok(())
    }

    fn unary_assign(&self, op: UnaryOp, x: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        crate::unary::unary_assign(op, x);
        Ok(())
    }

    fn binary(
        &self,
        spec: BinarySpec<'_>,
        a: &Vec<f32>,
        b: &Vec<f32>,
        out: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        let BinarySpec {
            op,
            a_shape,
            b_shape,
            out_shape,
        } = spec;
        crate::binary::binary(op, a, a_shape, b, b_shape, out, out_shape)
    }

    fn binary_assign(
        &self,
        spec: BinaryAssignSpec<'_>,
        a: &mut Vec<f32>,
        b: &Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        crate::binary::binary_assign(spec.op, a, spec.a_shape, b, spec.b_shape)
    }

    fn reduce(&self, spec: ReduceSpec, x: &Vec<f32>, out: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        let ReduceSpec {
            op,
            outer,
            len,
            inner,
        } = spec;
        crate::reduce::reduce(op, x, outer, len, inner, out)
    }

    fn gather_rows(
        &self,
        spec: GatherSpec,
        src: &Vec<f32>,
        index: &Vec<u32>,
        dst: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        let GatherSpec {
            src_rows,
            cols,
            start,
            count,
        } = spec;
        crate::copy::gather_rows(src, src_rows, cols, index, start, count, dst)
    }
}
