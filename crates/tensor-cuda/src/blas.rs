//! cuBLAS: one handle bound to the backend's stream, and row-major SGEMM.

use crate::error::{CublasStatus, CudaError, cublas};
use crate::loader::{CUBLAS_ENV, CublasHandle, CublasLibrary, SearchEnv, find_cublas};
use cudarc::driver::{CudaContext, CudaStream};
use std::ffi::c_int;
use std::sync::Arc;
use tensor_core::{Gemm, Result, UnavailableKind};

const OP_N: c_int = 0;
const OP_T: c_int = 1;
const DEFAULT_MATH: c_int = 0;
const TF32_TENSOR_OP_MATH: c_int = 3;

/// A cuBLAS handle whose work goes to the backend's stream. Not thread-safe by itself: the
/// backend keeps it behind a mutex.
pub(crate) struct Blas {
    lib: Arc<CublasLibrary>,
    handle: CublasHandle,
    ctx: Arc<CudaContext>,
    tf32: bool,
    version: i32,
}

// SAFETY: the handle is only used while the backend's mutex is held, from one thread at a
// time, with the context bound to that thread.
unsafe impl Send for Blas {}

/// `status` as a result of the cuBLAS call `call`.
fn status(call: &'static str, status: c_int) -> std::result::Result<(), CudaError> {
    if status == 0 {
        Ok(())
    } else {
        Err(CudaError::Cublas {
            call,
            status: CublasStatus(status),
        })
    }
}

impl Blas {
    /// A handle on `stream` from the first cuBLAS found (see `loader::search`) that loads and
    /// creates a working handle; a candidate that fails is passed over for the next.
    pub(crate) fn open(stream: &CudaStream) -> Result<Blas> {
        find_cublas(&SearchEnv::from_process(), CublasLibrary::open, |lib| {
            Blas::new(lib, stream)
        })
        .map_err(|tried| {
            let reason = format!(
                "the CUDA driver works but no usable cuBLAS was found ({}); install cuBLAS \
                 from CUDA 12 or 13 (a toolkit, or `pip install nvidia-cublas-cu12`), add its \
                 folder to LD_LIBRARY_PATH, or set {CUBLAS_ENV} to the library file",
                tried.describe()
            );
            let error = tensor_core::Error::unavailable(UnavailableKind::MissingLibrary, reason);
            match tried.last_error() {
                Some(e) => error.with_source(e),
                None => error,
            }
        })
    }

    /// Creates a handle with `lib` on `stream`'s context, bound to the stream, with plain f32
    /// math.
    fn new(lib: Arc<CublasLibrary>, stream: &CudaStream) -> std::result::Result<Blas, CudaError> {
        let ctx = stream.context().clone();
        ctx.bind_to_thread()
            .map_err(|e| CudaError::driver("binding the CUDA context", e))?;
        let mut handle: CublasHandle = std::ptr::null_mut();
        // SAFETY: `handle` receives a new handle; the context is current on this thread.
        status("cublasCreate_v2", unsafe { (lib.create)(&mut handle) })?;
        // From here on, dropping `blas` destroys the handle.
        let mut blas = Blas {
            lib,
            handle,
            ctx,
            tf32: false,
            version: 0,
        };
        // SAFETY: the handle is live; the stream belongs to the current context.
        unsafe {
            status(
                "cublasSetStream_v2",
                (blas.lib.set_stream)(handle, stream.cu_stream().cast()),
            )?;
            status(
                "cublasSetMathMode",
                (blas.lib.set_math_mode)(handle, DEFAULT_MATH),
            )?;
            let mut version = 0;
            status(
                "cublasGetVersion_v2",
                (blas.lib.get_version)(handle, &mut version),
            )?;
            blas.version = version;
        }
        Ok(blas)
    }

    fn check(&self, call: &'static str, status: c_int) -> Result<()> {
        if status == 0 {
            Ok(())
        } else {
            Err(cublas("gemm", call, status))
        }
    }

    /// The cuBLAS version (e.g. 120405 for 12.4.5).
    pub(crate) fn version(&self) -> i32 {
        self.version
    }

    /// Where cuBLAS was loaded from.
    pub(crate) fn path(&self) -> &str {
        &self.lib.path
    }

    /// Row-major `C = alpha * op(A) * op(B) + beta * C` on device pointers; `m`, `n`, `k` are
    /// non-zero and fit in `i32` (checked by the caller), buffer lengths were checked too.
    ///
    /// cuBLAS is column-major, and a row-major matrix read column-major is its transpose,
    /// so this computes `C^T = op(B)^T * op(A)^T`: B is passed first and the dimensions
    /// swap. A row-major `r x c` matrix is a column-major `c x r` one with leading dimension
    /// `c`.
    pub(crate) fn sgemm(&mut self, spec: &Gemm, tf32: bool, a: u64, b: u64, c: u64) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| crate::error::driver("gemm", "binding the context", e))?;
        if tf32 != self.tf32 {
            let mode = if tf32 {
                TF32_TENSOR_OP_MATH
            } else {
                DEFAULT_MATH
            };
            // SAFETY: the handle is live.
            self.check("cublasSetMathMode", unsafe {
                (self.lib.set_math_mode)(self.handle, mode)
            })?;
            self.tf32 = tf32;
        }
        let dim = |x: usize| x as c_int;
        let (m, n, k) = (spec.m, spec.n, spec.k);
        // First operand: op(B)^T, n x k. Stored B is k x n (no transpose: column-major n x k,
        // ld n) or n x k (transposed: column-major k x n, ld k).
        let (op_b, ld_b) = if spec.trans_b { (OP_T, k) } else { (OP_N, n) };
        // Second operand: op(A)^T, k x m. Stored A is m x k (column-major k x m, ld k) or
        // k x m (transposed: column-major m x k, ld m).
        let (op_a, ld_a) = if spec.trans_a { (OP_T, m) } else { (OP_N, k) };
        let (alpha, beta) = (spec.alpha, spec.beta);
        // SAFETY: the pointers are live device buffers of at least m*k, k*n and m*n floats;
        // alpha and beta are host scalars (the handle's default pointer mode).
        let status = unsafe {
            (self.lib.sgemm)(
                self.handle,
                op_b,
                op_a,
                dim(n),
                dim(m),
                dim(k),
                &alpha,
                b as usize as *const f32,
                dim(ld_b),
                a as usize as *const f32,
                dim(ld_a),
                &beta,
                c as usize as *mut f32,
                dim(n),
            )
        };
        self.check("cublasSgemm_v2", status)
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the handle was created by cublasCreate_v2 and is destroyed once.
            unsafe { (self.lib.destroy)(self.handle) };
        }
    }
}
