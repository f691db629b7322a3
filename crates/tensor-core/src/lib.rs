//! Core types of Iron Learn: [`Shape`] with numpy broadcasting, the [`Backend`] trait that
//! every device implements, and the generic [`Tensor`].
//!
//! Models are written against `Tensor<B: Backend>`; the program picks the backend once.
//!
//! ```
//! use tensor_core::{Shape, Error};
//! let a = Shape::new([4, 1, 3]);
//! let b = Shape::new([5, 1]);
//! assert_eq!(a.broadcast(&b, "add")?, Shape::new([4, 5, 3]));
//! assert!(Shape::new([2, 3]).broadcast(&Shape::new([4]), "add").is_err());
//! # Ok::<(), Error>(())
//! ```

#![warn(missing_docs)]

mod activation;
mod backend;
pub mod check;
mod error;
pub mod fused;
pub mod hashgrid;
pub mod mlp_pass;
mod op;
pub mod params;
mod shape;
mod tensor;
#[cfg(feature = "testing")]
pub mod testing;

pub use activation::{Activation, sigmoid};
pub use backend::{Backend, Counters, Primitives};
pub use error::{BackendError, Error, Result, UnavailableKind};
pub use fused::FusedOps;
pub use fused::traits::*;
pub use hashgrid::{FeatureLayout, HashGridConfig, HashGridLevel, HashGridScale, HashGridSpec};
pub use op::{AdamStep, BinaryOp, Gemm, LossKind, ReduceOp, SgdStep, UnaryOp};
pub use params::{
    AdamMoments, BiasAct, BinaryAssignSpec, BinarySpec, BlockCopy, FourierFeatures, GatherSpec,
    GemmActGrad, GemmBiasAct, HashGridLookup, HashGridScatter, LossGrad, ReduceSpec, SliceCopy,
};
pub use shape::Shape;
pub use tensor::Tensor;

/// Re-exported so that dependents seed the same generator (`ChaCha8Rng`).
pub use rand;
/// Re-exported so that dependents seed the same generator (`ChaCha8Rng`).
pub use rand_chacha;
