//! [`CudaBackend`]: construction, device description and the [`Primitives`] implementation,
//! which forwards to the operations in `ops/` (the fused operations are in `fused/`, one file
//! each).

use crate::blas::Blas;
use crate::counters::CounterCells;
use crate::device::{self, DeviceInfo};
use crate::kernels::{Arg, Cfg, K, Kernels};
use crate::loader;
use crate::storage::{CudaIndex, CudaStorage};
use crate::workspace::Workspace;
use cudarc::driver::{CudaContext, CudaStream};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tensor_core::params::{
    BinaryAssignSpec, BinarySpec, BlockCopy, GatherSpec, ReduceSpec, SliceCopy,
};
use tensor_core::{Counters, Error, Gemm, Primitives, Result, UnaryOp, UnavailableKind};

/// Options for [`CudaBackend::with_options`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CudaOptions {
    tf32: bool,
}

impl CudaOptions {
    /// The defaults: plain f32 GEMM.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether GEMM may use TF32 tensor cores (faster, about 3 decimal digits less precise
    /// in the products; see [`CudaBackend::set_tf32`]).
    pub fn with_tf32(mut self, enabled: bool) -> Self {
        self.tf32 = enabled;
        self
    }
}

/// Everything one device needs, shared by the clones of a backend. Fields drop in order:
/// the cuBLAS handle and the modules go before the stream and context they use.
pub(crate) struct Inner {
    pub(crate) blas: Mutex<Blas>,
    pub(crate) kernels: Kernels,
    pub(crate) workspace: Mutex<Workspace>,
    pub(crate) counters: CounterCells,
    pub(crate) tf32: AtomicBool,
    pub(crate) info: DeviceInfo,
    pub(crate) cublas_version: i32,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) ctx: Arc<CudaContext>,
}

impl Inner {
    /// Launches kernel `k` on the backend's stream.
    pub(crate) fn launch(&self, op: &'static str, k: K, cfg: Cfg, args: &[Arg<'_>]) -> Result<()> {
        self.kernels
            .launch(&self.stream, &self.counters, op, k, cfg, args)
    }

    /// A one-dimensional launch configuration over `n` items.
    pub(crate) fn linear(&self, n: usize) -> Cfg {
        Cfg::linear(n as u64, self.info.sm_count, 8)
    }

    /// The workspace, locked for one operation.
    pub(crate) fn workspace(&self) -> MutexGuard<'_, Workspace> {
        self.workspace
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The cuBLAS handle, locked for one call.
    pub(crate) fn blas(&self) -> MutexGuard<'_, Blas> {
        self.blas
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The CUDA backend: one device, one stream, a stream-ordered memory pool, PTX kernels and
/// cuBLAS. Cloning is cheap (the state is shared); every clone queues work on the same
/// stream, so operations run in the order they are called.
#[derive(Clone)]
pub struct CudaBackend {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudaBackend")
            .field("ordinal", &self.inner.info.ordinal)
            .field("name", &self.inner.info.name)
            .finish()
    }
}

/// The message of a panic caught while talking to the driver.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs `f`, turning a panic (cudarc panics when a library or symbol is missing) into
/// [`Error::DeviceUnavailable`].
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(Error::unavailable(
            UnavailableKind::DriverFailed,
            format!("{what}: {}", panic_message(payload.as_ref())),
        ))
    })
}

impl CudaBackend {
    /// Opens CUDA device `ordinal` with the default options (plain f32 GEMM).
    ///
    /// Fails with [`Error::DeviceUnavailable`], never a panic, when there is no NVIDIA
    /// driver, no device with that ordinal, no cuBLAS, or a driver too old for the kernels;
    /// its `kind` says which, its `reason` what was looked for, and its `source` holds the
    /// driver's or cuBLAS's own error ([`CudaError`](crate::CudaError)) when there is one.
    pub fn new(ordinal: usize) -> Result<Self> {
        Self::with_options(ordinal, CudaOptions::default())
    }

    /// Opens CUDA device `ordinal` with `options`.
    pub fn with_options(ordinal: usize, options: CudaOptions) -> Result<Self> {
        loader::probe_driver()?;
        guarded("the CUDA driver failed", || {
            let dev = device::open(ordinal)?;
            let kernels = Kernels::load(&dev.ctx)?;
            let blas = Blas::open(&dev.stream)?;
            let cublas_version = blas.version();
            Ok(CudaBackend {
                inner: Arc::new(Inner {
                    blas: Mutex::new(blas),
                    kernels,
                    workspace: Mutex::new(Workspace::default()),
                    counters: CounterCells::default(),
                    tf32: AtomicBool::new(options.tf32),
                    info: dev.info,
                    cublas_version,
                    stream: dev.stream,
                    ctx: dev.ctx,
                }),
            })
        })
    }

    /// The number of CUDA devices; [`Error::DeviceUnavailable`] when there is no driver.
    pub fn device_count() -> Result<usize> {
        loader::probe_driver()?;
        guarded("the CUDA driver failed", device::count)
    }

    /// Whether a CUDA device can be used (a driver and at least one device).
    pub fn is_available() -> bool {
        Self::device_count().is_ok_and(|n| n > 0)
    }

    /// Lets GEMM use TF32 tensor cores (`true`) or keeps it in plain f32 (`false`, the
    /// default). TF32 rounds the inputs of each product to 10 mantissa bits: expect relative
    /// errors around 1e-3 instead of 1e-6. Applies to every clone of this backend.
    pub fn set_tf32(&self, enabled: bool) {
        self.inner.tf32.store(enabled, Ordering::Relaxed);
    }

    /// Whether GEMM may use TF32 tensor cores.
    pub fn tf32(&self) -> bool {
        self.inner.tf32.load(Ordering::Relaxed)
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.inner.info.ordinal
    }

    /// The device's product name.
    pub fn device_name(&self) -> &str {
        &self.inner.info.name
    }

    /// The compute capability (major, minor), e.g. (9, 0) for an H100.
    pub fn compute_capability(&self) -> (i32, i32) {
        self.inner.info.compute_capability
    }

    /// Device memory in bytes.
    pub fn total_memory(&self) -> usize {
        self.inner.info.total_memory
    }

    /// The cuBLAS version in use (e.g. 120405) and the file it was loaded from.
    pub fn cublas_version(&self) -> (i32, String) {
        (
            self.inner.cublas_version,
            self.inner.blas().path().to_string(),
        )
    }

    /// Problems found while opening the device that leave it usable but not as configured,
    /// one line each: so far, a driver that refused to keep freed memory in the pool (then
    /// allocations return memory to the driver at each synchronisation and cost more).
    /// Programs may show them; the backend prints nothing itself.
    pub fn warnings(&self) -> &[String] {
        &self.inner.info.warnings
    }

    /// The stream every operation of this backend runs on, for timing with CUDA events or
    /// launching other kernels in order with the backend's work.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// The CUDA context (the device's primary context).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }
}

impl Primitives for CudaBackend {
    type Storage = CudaStorage;
    type Index = CudaIndex;

    fn name(&self) -> String {
        let i = &self.inner.info;
        let (major, minor) = i.compute_capability;
        format!(
            "CUDA device {}: {} (sm_{major}{minor}, {:.1} GiB, cuBLAS {}.{}{})",
            i.ordinal,
            i.name,
            i.total_memory as f64 / f64::from(1u32 << 30),
            self.inner.cublas_version / 10_000,
            self.inner.cublas_version / 100 % 100,
            if i.pooled { "" } else { ", no memory pool" }
        )
    }

    fn counters(&self) -> Counters {
        self.inner.counters.snapshot()
    }

    fn synchronize(&self) -> Result<()> {
        self.inner.synchronize("synchronize")
    }

    fn device_time_ms(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        let op = "device_time_ms";
        let timed = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let event = |what| {
            let s = &self.inner.stream;
            s.record_event(timed)
                .map_err(|e| crate::error::driver(op, what, e))
        };
        let start = event("cuEventRecord")?;
        work()?;
        let end = event("cuEventRecord")?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| crate::error::driver(op, "cuEventElapsedTime", e))?;
        Ok(Some(f64::from(ms)))
    }

    fn alloc(&self, len: usize) -> Result<CudaStorage> {
        self.inner.alloc("alloc", len)
    }

    fn storage_len(&self, storage: &CudaStorage) -> usize {
        storage.len
    }

    fn upload(&self, data: &[f32]) -> Result<CudaStorage> {
        let mut dst = self.inner.alloc("upload", data.len())?;
        self.inner.upload_into(data, &mut dst)?;
        Ok(dst)
    }

    fn upload_into(&self, data: &[f32], dst: &mut CudaStorage) -> Result<()> {
        self.inner.upload_into(data, dst)
    }

    fn download(&self, storage: &CudaStorage) -> Result<Vec<f32>> {
        self.inner.download(storage)
    }

    fn upload_indices(&self, indices: &[u32]) -> Result<CudaIndex> {
        self.inner.upload_indices(indices)
    }

    fn index_len(&self, index: &CudaIndex) -> usize {
        index.len
    }

    fn fill(&self, dst: &mut CudaStorage, value: f32) -> Result<()> {
        self.inner.fill("fill", dst, value)
    }

    fn copy_slice(&self, r: SliceCopy, src: &CudaStorage, dst: &mut CudaStorage) -> Result<()> {
        self.inner
            .copy_slice(src, r.src_offset, dst, r.dst_offset, r.len)
    }

    fn copy_block(&self, b: BlockCopy, src: &CudaStorage, dst: &mut CudaStorage) -> Result<()> {
        self.inner
            .copy_block(src, b.src_cols, dst, b.dst_cols, b.col_offset, b.rows)
    }

    fn transpose(
        &self,
        src: &CudaStorage,
        rows: usize,
        cols: usize,
        dst: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.transpose(src, rows, cols, dst)
    }

    fn gemm(
        &self,
        spec: Gemm,
        a: &CudaStorage,
        b: &CudaStorage,
        c: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.gemm(spec, self.tf32(), a, b, c)
    }

    fn unary(&self, op: UnaryOp, x: &CudaStorage, out: &mut CudaStorage) -> Result<()> {
        self.inner.unary(op, x, out)
    }

    fn unary_assign(&self, op: UnaryOp, x: &mut CudaStorage) -> Result<()> {
        self.inner.unary_assign(op, x)
    }

    fn binary(
        &self,
        s: BinarySpec<'_>,
        a: &CudaStorage,
        b: &CudaStorage,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .binary(s.op, a, s.a_shape, b, s.b_shape, out, s.out_shape)
    }

    fn binary_assign(
        &self,
        s: BinaryAssignSpec<'_>,
        a: &mut CudaStorage,
        b: &CudaStorage,
    ) -> Result<()> {
        self.inner.binary_assign(s.op, a, s.a_shape, b, s.b_shape)
    }

    fn reduce(&self, s: ReduceSpec, x: &CudaStorage, out: &mut CudaStorage) -> Result<()> {
        self.inner.reduce(s.op, x, s.outer, s.len, s.inner, out)
    }

    fn gather_rows(
        &self,
        s: GatherSpec,
        src: &CudaStorage,
        index: &CudaIndex,
        dst: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .gather_rows(src, s.src_rows, s.cols, index, s.start, s.count, dst)
    }
}
