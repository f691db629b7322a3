//! The fused operations of the hot paths, one module per operation.
//!
//! Each module holds everything the core knows of its operation: the trait of one method
//! that a backend implements (`BiasActOp::bias_act`), the struct of what it reads, and its
//! default composition from primitives (`bias_act::composed`, which a backend without a
//! kernel of its own names, and which the conformance suite checks every kernel against,
//! through `testing::Composed`). [`FusedOps`] is every operation's trait together;
//! [`Backend`](crate::Backend) asks for it.
//!
//! Every method is required, so a backend names, for each operation, its own kernel or the
//! default composition: a backend crate without an operation's module does not implement
//! its trait, and the compiler refuses it where it is used as a `Backend`.
//!
//! # Adding a fused operation
//!
//! An operation `foo` with a CPU and a CUDA kernel is these files and lines:
//!
//! 1. `tensor-core/src/fused/foo.rs`: `FooOp`, its parameter struct, `composed`, and
//!    (behind the `testing` feature) `impl FooOp for testing::Composed<B>`, which names
//!    `composed`;
//! 2. this file: `pub mod foo;`, `pub use foo::FooOp;`, `FooOp` in [`FusedOps`]'s
//!    supertraits and its blanket implementation's bound, `"foo"` in [`FUSED_OPS`] and
//!    `FooOp` in [`traits`]; the parameter struct's re-export in `params.rs`;
//! 3. `tensor-core/src/testing/foo.rs`: the named checks against f64 and against
//!    `composed`; its module line in `testing/mod.rs` and its checks in
//!    `conformance_tests!` (behind the `testing` feature);
//! 4. `tensor-cpu/src/fused/foo.rs`: `impl FooOp for CpuBackend` and its kernel, and
//!    `mod foo;` in `tensor-cpu/src/fused/mod.rs`;
//! 5. `tensor-cuda/src/fused/foo.rs`: `impl FooOp for CudaBackend` and its launch, and
//!    `mod foo;` in `tensor-cuda/src/fused/mod.rs`;
//! 6. `tensor-cuda/src/kernels/table.rs`: the kernel's line (entry point and parameters),
//!
//! and the kernel's source, `tensor-cuda/kernels/foo.cu`, with its generated PTX
//! (`cargo xtask build-kernels`). A backend may name `composed` instead of writing a kernel;
//! the compiler refuses a backend crate that lacks the operation's implementation.

mod compose;

pub mod act_backward;
pub mod adam_step;
pub mod bias_act;
pub mod fourier_features;
pub mod gemm_act_grad;
pub mod gemm_bias_act;
pub mod hashgrid_backward;
pub mod hashgrid_forward;
pub mod loss_grad;
pub mod relu_mlp_mse_pass;
pub mod sgd_step;

pub use act_backward::ActBackwardOp;
pub use adam_step::AdamStepOp;
pub use bias_act::BiasActOp;
pub use fourier_features::FourierFeaturesOp;
pub use gemm_act_grad::GemmActGradOp;
pub use gemm_bias_act::GemmBiasActOp;
pub use hashgrid_backward::HashGridBackwardOp;
pub use hashgrid_forward::HashGridForwardOp;
pub use loss_grad::LossGradOp;
pub use relu_mlp_mse_pass::ReluMlpMsePassOp;
pub use sgd_step::SgdStepOp;

/// Every fused operation: implemented by every type that implements each operation's trait
/// (see [`fused`](crate::fused)). Models ask for [`Backend`](crate::Backend), which includes
/// it, so a backend that lacks one of the traits is not a backend.
pub trait FusedOps:
    crate::Primitives
    + BiasActOp
    + GemmBiasActOp
    + ReluMlpMsePassOp
    + GemmActGradOp
    + ActBackwardOp
    + LossGradOp
    + AdamStepOp
    + SgdStepOp
    + FourierFeaturesOp
    + HashGridForwardOp
    + HashGridBackwardOp
{
}

impl<B> FusedOps for B where
    B: crate::Primitives
        + BiasActOp
        + GemmBiasActOp
        + ReluMlpMsePassOp
        + GemmActGradOp
        + ActBackwardOp
        + LossGradOp
        + AdamStepOp
        + SgdStepOp
        + FourierFeaturesOp
        + HashGridForwardOp
        + HashGridBackwardOp
{
}

/// The fused operations, in the order of [`FusedOps`]'s traits, by method name.
pub const FUSED_OPS: &[&str] = &[
    "bias_act",
    "gemm_bias_act",
    "relu_mlp_mse_pass",
    "gemm_act_grad",
    "act_backward",
    "loss_grad",
    "adam_step",
    "sgd_step",
    "fourier_features",
    "hashgrid_forward",
    "hashgrid_backward",
];

/// Every operation's trait, for calling fused operations on a concrete backend:
/// `use tensor_core::fused::traits::*;` (generic code asks for [`Backend`](crate::Backend),
/// which brings them).
pub mod traits {
    pub use super::{
        ActBackwardOp, AdamStepOp, BiasActOp, FourierFeaturesOp, GemmActGradOp, GemmBiasActOp,
        HashGridBackwardOp, HashGridForwardOp, LossGradOp, ReluMlpMsePassOp, SgdStepOp,
    };
}
