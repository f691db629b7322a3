//! The CUDA backend of Iron Learn.
//!
//! [`CudaBackend`] implements [`tensor_core::Backend`] on one NVIDIA GPU:
//!
//! - **Loading.** The driver (`libcuda`) and cuBLAS are opened at run time, so this crate
//!   builds and its CPU tests pass on machines with no CUDA toolkit and no GPU, and the same
//!   binary runs on machines with CUDA 12 or 13. The driver is looked for as `libcuda.so.1`
//!   first, and a CUDA toolkit's stub `libcuda.so` that would hide it is detected and
//!   reported. cuBLAS is looked for as `$IRON_LEARN_CUBLAS`, then `libcublas.so.13`,
//!   `libcublas.so.12` and `libcublas.so` on the loader path, under `$CUDA_HOME`,
//!   `$CUDA_PATH` and `/usr/local/cuda`, in NVIDIA's Python wheels (`nvidia/cu13/lib`,
//!   `nvidia/cublas/lib` in the `site-packages` of virtual and conda environments, of the
//!   `python3` on `PATH`, the user's, pyenv's and the system's) and finally among the files
//!   `ldconfig -p` lists; a candidate that does not load, lacks an entry point or cannot
//!   create a handle is passed over for the next.
//! - **Errors.** With no driver, no device, no cuBLAS or a driver too old for the kernels,
//!   [`CudaBackend::new`] returns
//!   [`Error::DeviceUnavailable`](tensor_core::Error::DeviceUnavailable), never a panic:
//!   its `kind` ([`UnavailableKind`](tensor_core::UnavailableKind)) says which, its `reason`
//!   what was looked for, and its `source` keeps the driver's or cuBLAS's own error as a
//!   [`CudaError`]. Failures while running an operation are
//!   [`Error::Device`](tensor_core::Error::Device) with a [`CudaError`] source (the
//!   driver's `CUresult`, or a [`CublasStatus`]). What to do about them (such as running on
//!   the CPU) is left to the program. A memory-pool setting the driver refuses is not an
//!   error but one of [`CudaBackend::warnings`].
//! - **Memory.** Buffers ([`CudaStorage`], [`CudaIndex`]) come from the device's
//!   stream-ordered pool (`cuMemAllocAsync`), whose release threshold is raised so that freed
//!   blocks are reused rather than returned to the driver.
//! - **One stream.** Every kernel, copy and cuBLAS call goes to one stream, so operations run
//!   in call order and no operation can race an allocation. Only [`Backend::download`](tensor_core::Primitives::download)
//!   (and [`Backend::synchronize`](tensor_core::Primitives::synchronize)) wait for the device.
//! - **Kernels.** The `kernels/*.cu` files listed in the kernel manifest
//!   (`src/manifest.rs`), compiled to PTX for `compute_70` by `cargo xtask build-kernels`,
//!   declared as PTX ISA 7.0 (so drivers from CUDA 11.0 on load them) and embedded in the
//!   library; the driver compiles them for the device when the backend is created, and each
//!   kernel is found by name through a `match` on its variant. Reductions are block-level trees; bias +
//!   activation, activation backward, loss + gradient (the loss reduced on the device),
//!   Adam/AdamW, SGD and Fourier features are single fused kernels.
//! - **GEMM.** cuBLAS SGEMM, row-major through the usual operand swap; plain f32 by
//!   default, TF32 tensor cores on request ([`CudaBackend::set_tf32`]).
//! - **Counters.** [`Backend::counters`](tensor_core::Primitives::counters) reports bytes uploaded and downloaded, pool
//!   allocations, and kernel launches (cuBLAS calls included), so tests can check that a
//!   training step moves nothing to the host.
//!
//! ```no_run
//! use tensor_core::{Primitives, Tensor};
//! use tensor_cuda::CudaBackend;
//!
//! let gpu = match CudaBackend::new(0) {
//!     Ok(gpu) => gpu,
//!     Err(e) => {
//!         eprintln!("{e}"); // "device unavailable: no NVIDIA driver: ..."
//!         return Ok(());
//!     }
//! };
//! println!("{}", gpu.name());
//! let a = Tensor::from_slice(&gpu, &[1.0, 2.0, 3.0, 4.0], [2, 2])?;
//! let b = Tensor::from_slice(&gpu, &[1.0, 0.0, 0.0, 1.0], [2, 2])?;
//! let c = a.matmul(&b)?.relu()?;
//! assert_eq!(c.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
//! let before = gpu.counters();
//! let d = (&c + &c)?; // runs on the device, nothing is copied to the host
//! assert_eq!(gpu.counters().bytes_downloaded, before.bytes_downloaded);
//! # drop(d);
//! # Ok::<(), tensor_core::Error>(())
//! ```

#![warn(missing_docs)]

mod backend;
mod blas;
mod codes;
mod counters;
mod device;
mod error;
mod fused;
mod kernels;
mod loader;
mod manifest;
#[cfg(feature = "nccl")]
pub mod nccl;
mod ops;
mod storage;
mod workspace;

pub use backend::{CudaBackend, CudaOptions};
pub use error::{CublasStatus, CudaError};
pub use loader::CUBLAS_ENV;
pub use storage::{CudaIndex, CudaStorage};

/// The cudarc version this crate is built on, re-exported for code that works with
/// [`CudaBackend::stream`] or [`CudaStorage::as_view`].
pub use cudarc;
