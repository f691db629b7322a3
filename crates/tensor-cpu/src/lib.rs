//! The CPU backend of Iron Learn.
//!
//! [`CpuBackend`] implements [`tensor_core::Backend`] with buffers in host memory: rayon
//! spreads element-wise work over threads once a tensor is large enough for that to pay,
//! and the `gemm` crate runs matrix products without materialising transposes.
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
mod fused;
mod gemm;
mod parallel;
mod reduce;
mod unary;

pub use backend::CpuBackend;
