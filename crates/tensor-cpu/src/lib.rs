//! The CPU backend of Iron Learn.
//!
//! [`CpuBackend`] implements [`tensor_core::Backend`] with buffers in host memory: rayon
//! spreads element-wise work over threads once a tensor is large enough for that to pay,
//! `matrixmultiply` runs matrix products without materialising transposes (vector kernels
//! of this crate take over, without packing, when one dimension is long and the other two
//! are at most 64, as in a small MLP over a large batch), and [`math`] provides
//! vectorisable sine, cosine, exponential and friends.
//!
//! The vector kernels are written once and compiled for AVX2, AVX-512 and aarch64 NEON;
//! [`simd_path`] says which runs, chosen from the CPU or forced with `IRON_LEARN_SIMD`
//! (`scalar`, `avx2`, `avx512`, `neon`).
//!
//! Work runs on rayon's current pool (install a pool to choose the thread count); tensors
//! below 32768 elements, and products below about 2M multiply-adds, stay on the calling
//! thread. Results are bit-identical whatever the number of threads: sums use fixed
//! chunks added in order, and matrix products are split on block boundaries.
//!
//! Operations read subnormal floats as zero and write zero for a subnormal result (x86's
//! FTZ and DAZ, aarch64's FZ), so weights that weight decay drives towards zero cannot slow
//! a long run: the calling thread's float mode is restored when an operation returns, and
//! the rayon workers an operation uses are set to flush for good ([`flushing_subnormals`]
//! says whether a thread flushes).
//!
//! ```
//! use tensor_core::Tensor;
//! use tensor_cpu::CpuBackend;
//!
//! let cpu = CpuBackend::new();
//! let a = Tensor::from_slice(&cpu, &[1.0, 2.0, 3.0, 4.0], [2, 2])?;
//! let b = Tensor::from_slice(&cpu, &[1.0, 0.0, 0.0, 1.0], [2, 2])?;
//! assert_eq!(a.matmul(&b)?.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
//! let row = Tensor::from_slice(&cpu, &[10.0, 20.0], [2])?;
//! assert_eq!((&a + &row)?.to_vec()?, vec![11.0, 22.0, 13.0, 24.0]);
//! # Ok::<(), tensor_core::Error>(())
//! ```

#![warn(missing_docs)]

mod backend;
mod binary;
mod copy;
mod fourier;
mod fused;
mod gemm;
mod gemv;
mod hashgrid;
mod kernel;
pub mod math;
mod mlp_pass;
mod parallel;
mod pool;
mod reduce;
mod simd;
mod skinny;
mod subnormals;
mod unary;

pub use backend::CpuBackend;
pub use pool::on_pool_worker;
pub use simd::{SIMD_VAR, SimdPath, simd_path};
pub use subnormals::flushing_subnormals;
