//! The fused operations of the hot paths, one module per operation.
//!
//! Each module holds everything the core knows of its operation: the trait of one method
//! that a backend implements (`BiasActOp::bias_act`), the struct of what it reads, its
//! default composition from primitives (`bias_act::composed`, which a backend without a
//! kernel of its own names, and which the conformance suite checks every kernel against),
//! and its forwarding through a [`BackendWrapper`]. [`FusedOps`] is every operation's trait
//! together; [`Backend`](crate::Backend) asks for it.
//!
//! Every method is required, so a backend names, for each operation, its own kernel or the
//! default composition; a backend that wraps another implements [`BackendWrapper`] and
//! gets every operation forwarded to the backend it wraps, so that none can be lost by
//! omission (`testing::forwarding` checks a wrapper's calls reach the inner kernels).
//!
//! # Adding a fused operation
//!
//! The list in [`for_each_fused_op!`](crate::for_each_fused_op) drives everything else: it
//! declares the operation's module here, in the conformance suite and in each backend
//! crate, adds its trait to [`FusedOps`], its checks to the suite and it to the wrapper
//! test. An operation `foo` with a CPU and a CUDA kernel is six files:
//!
//! 1. `tensor-core/src/fused/foo.rs`: `FooOp`, its parameter struct, `composed`, the
//!    forwarding for wrappers and the composition for `testing::Composed`;
//! 2. one line in `for_each_fused_op!` (this file): `foo: FooOp { checks.. }`;
//! 3. `tensor-core/src/testing/foo.rs`: the named checks against f64 and against
//!    `composed`, and `probe` (one call on fixed inputs, for the wrapper test);
//! 4. `tensor-cpu/src/fused/foo.rs`: `impl FooOp for CpuBackend` and its kernel;
//! 5. `tensor-cuda/src/fused/foo.rs`: `impl FooOp for CudaBackend` and its launch;
//! 6. `tensor-cuda/src/kernels/table.rs`: the kernel's line (entry point and parameters),
//!
//! and the kernel's source, `tensor-cuda/kernels/foo.cu`, with its generated PTX
//! (`cargo xtask build-kernels`). A backend may name `composed` instead of writing a kernel;
//! the compiler refuses a backend crate that lacks the operation's file.

mod compose;

/// Calls the macro `$callback` with the list of fused operations, each as
/// `name: Trait { conformance checks }`, in trait order, after any `extra` token trees
/// (operations checked as a pair list the pair's checks under the first of the two):
/// `$callback! { extra.., [ bias_act: BiasActOp { matches_f64, .. }, .. ] }`.
///
/// The one list of fused operations: the core, the conformance suite and each backend crate
/// declare their per-operation modules from it (see [`fused`](crate::fused)).
#[macro_export]
macro_rules! for_each_fused_op {
    ($callback:path $(, $extra:tt)*) => {
        $callback! { $($extra,)* [
            bias_act: BiasActOp {
                matches_f64, agrees_with_composition, refuses_wrong_lengths
            },
            gemm_bias_act: GemmBiasActOp {
                bias_act_matches_f64, act_grad_matches_f64, agree_with_composition,
                refuse_bad_calls
            },
            relu_mlp_mse_pass: ReluMlpMsePassOp {
                matches_f64, input_gradient_is_optional, refuses_bad_shapes
            },
            gemm_act_grad: GemmActGradOp {},
            act_backward: ActBackwardOp {
                matches_f64, agrees_with_composition, refuses_wrong_lengths
            },
            loss_grad: LossGradOp {
                matches_f64, empty_batch_loss_is_nan, agrees_with_composition,
                refuses_wrong_lengths
            },
            adam_step: AdamStepOp {
                matches_f64, agrees_with_composition, refuses_wrong_lengths
            },
            sgd_step: SgdStepOp {
                matches_f64, agrees_with_composition, refuses_wrong_lengths
            },
            fourier_features: FourierFeaturesOp {
                matches_f64, agrees_with_composition, refuses_wrong_lengths
            },
            hashgrid_forward: HashGridForwardOp {
                forward_matches_f64, backward_matches_f64, backward_is_the_adjoint,
                backward_matches_finite_differences, edge_coordinates, dense_and_hashed_levels,
                empty_batch, agrees_with_the_default, bad_buffers_are_errors
            },
            hashgrid_backward: HashGridBackwardOp {},
        ] }
    };
}

/// Declares each operation's module, re-exports its trait, and defines [`FusedOps`] and
/// [`FUSED_OPS`].
macro_rules! declare_fused_ops {
    ([ $($name:ident: $op:ident { $($check:ident),* $(,)? }),* $(,)? ]) => {
        $( pub mod $name; )*
        pub use self::{$($name::$op),*};

        /// Every fused operation: implemented by every type that implements each
        /// operation's trait (see [`fused`](crate::fused)). Models ask for
        /// [`Backend`](crate::Backend), which includes it.
        pub trait FusedOps: crate::Primitives $(+ $op)* {}

        impl<B: crate::Primitives $(+ $op)*> FusedOps for B {}

        /// The fused operations, in trait order, by method name.
        pub const FUSED_OPS: &[&str] = &[$(stringify!($name)),*];

        /// Every operation's trait, for calling fused operations on a concrete backend:
        /// `use tensor_core::fused::traits::*;` (generic code asks for
        /// [`Backend`](crate::Backend), which brings them).
        pub mod traits {
            pub use super::{$($op),*};
        }
    };
}

for_each_fused_op!(declare_fused_ops);

/// A backend that hands its work to another: a timer, a counter, a tracer. Implementing it
/// (besides [`Primitives`](crate::Primitives), which the wrapper writes out) forwards every
/// fused operation to [`inner`](Self::inner) through [`around`](Self::around), so that a
/// new operation reaches the inner kernel without an edit to the wrapper.
pub trait BackendWrapper: crate::Primitives {
    /// The backend that does the work, on the same buffers.
    type Inner: crate::Backend<Storage = Self::Storage, Index = Self::Index>;

    /// The wrapped backend.
    fn inner(&self) -> &Self::Inner;

    /// Runs one fused operation on the inner backend: `op` is its method name and `detail`
    /// its main dimensions and settings (as `Tanh 40000x256`). The default runs it as is;
    /// a wrapper overrides this to time, count or trace its calls.
    fn around<R>(
        &self,
        op: &'static str,
        detail: std::fmt::Arguments<'_>,
        run: impl FnOnce(&Self::Inner) -> R,
    ) -> R {
        let _ = (op, detail);
        run(self.inner())
    }
}
