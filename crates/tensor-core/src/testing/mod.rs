//! The backend conformance suite: every [`Backend`](crate::Backend) operation checked
//! against f64 references and against the contract written on the trait (exact buffer
//! lengths, empty inputs, NaN and infinities, the BLAS meaning of GEMM's scalars, the loss
//! of an empty batch), and every fused operation against its default composition too.
//!
//! Enabled by the `testing` feature. A backend's test crate runs the whole suite with one
//! line, which expands to one `#[test]` per check, grouped by operation family (so a
//! failure reads `conformance::reduce::nan_propagates`):
//!
//! ```ignore
//! mod conformance {
//!     tensor_core::conformance_tests!(tensor_cpu::CpuBackend::new());
//! }
//! ```
//!
//! Attributes before the expression go on every test, e.g. for a device that may be
//! missing: `conformance_tests!(#[ignore = "needs a CUDA GPU"] gpu())`. The expression is
//! evaluated afresh for each check.
//!
//! Each family has its module, whose public functions `fn check<B: Backend>(b: &B)` are the
//! checks, with the inputs and references they need; [`reference`](mod@reference) holds the f64
//! references of the primitives, [`compare`] the tolerances and assertions, [`data`] the
//! seeded inputs (awkward sizes 0, 1, 7, 33, 1000+, special values), and [`Composed`] a
//! backend's primitives with the default fused compositions. A fused operation's module
//! is named after the operation (an operation checked with its pair, such as
//! `gemm_act_grad` with `gemm_bias_act`, has none). Every family's checks are listed in
//! [`conformance_tests!`](crate::conformance_tests).

pub mod act_backward;
pub mod adam_step;
pub mod bias_act;
pub mod binary;
pub mod compare;
mod composed;
pub mod data;
pub mod fourier_features;
pub mod gather;
pub mod gemm;
pub mod gemm_bias_act;
pub mod hashgrid_forward;
pub mod loss_grad;
pub mod memory;
pub mod reduce;
pub mod reference;
pub mod relu_mlp_mse_pass;
pub mod sgd_step;
pub mod subnormals;
pub mod unary;

pub use composed::Composed;

/// Expands to the conformance suite for the backend made by an expression: one `#[test]`
/// per check, in one module per operation family, plus a private function `__backend`
/// that evaluates the expression. Attributes written before the expression (such as
/// `#[ignore = "needs a GPU"]`) go on every test. See [`testing`](crate::testing).
///
/// The list below is the suite: each family's module in [`testing`](crate::testing) and
/// the checks (public functions `fn check<B: Backend>(b: &B)`) of it that run. A fused
/// operation checked with its pair lists the pair's checks under the first of the two.
#[macro_export]
macro_rules! conformance_tests {
    (@attrs [$($attrs:tt)*] #[$attr:meta] $($rest:tt)*) => {
        $crate::conformance_tests!(@attrs [$($attrs)* #[$attr]] $($rest)*);
    };
    (@attrs [$($attrs:tt)*] $make:expr $(,)?) => {
        $crate::conformance_tests! { @families { $($attrs)* } $make;
            memory {
                buffers_have_the_asked_length,
                upload_download_round_trip,
                upload_into_needs_the_exact_length,
                fill_sets_every_element,
                counters_see_transfers,
                copy_slice_copies_its_range,
                copy_block_writes_its_columns,
                transpose_moves_every_element,
            }
            gather {
                gather_rows_picks_the_indexed_rows,
                gather_rows_refuses_bad_rows_and_ranges,
            }
            gemm {
                every_transpose_matches_f64,
                beta_zero_does_not_read_c,
                alpha_zero_does_not_read_a_or_b,
                nan_and_inf_propagate,
                empty_dimensions,
                refuses_wrong_lengths,
            }
            unary {
                every_op_matches_f64,
                in_place_matches_out_of_place,
                special_values_follow_the_definitions,
                trig_of_scattered_huge_arguments,
                refuses_wrong_lengths,
            }
            binary {
                same_shape_matches_f64,
                every_broadcast_matches_f64,
                in_place_matches_out_of_place,
                special_values_follow_ieee,
                refuses_bad_shapes_and_lengths,
            }
            reduce {
                every_axis_matches_f64,
                arg_reductions_pick_the_first_tie,
                nan_propagates,
                infinities_are_extremes,
                empty_axes_and_outputs,
                long_sums_do_not_drift,
                refuses_wrong_lengths,
            }
            subnormals {
                unary_ops_take_subnormal_inputs,
                binary_ops_take_subnormal_inputs,
                gemm_takes_subnormal_inputs,
                adam_step_takes_subnormal_inputs,
            }
            bias_act {
                matches_f64,
                agrees_with_composition,
                refuses_wrong_lengths,
            }
            gemm_bias_act {
                bias_act_matches_f64,
                act_grad_matches_f64,
                agree_with_composition,
                refuse_bad_calls,
            }
            relu_mlp_mse_pass {
                matches_f64,
                input_gradient_is_optional,
                refuses_bad_shapes,
            }
            act_backward {
                matches_f64,
                agrees_with_composition,
                refuses_wrong_lengths,
            }
            loss_grad {
                matches_f64,
                empty_batch_loss_is_nan,
                agrees_with_composition,
                refuses_wrong_lengths,
            }
            adam_step {
                matches_f64,
                agrees_with_composition,
                refuses_wrong_lengths,
            }
            sgd_step {
                matches_f64,
                agrees_with_composition,
                refuses_wrong_lengths,
            }
            fourier_features {
                matches_f64,
                agrees_with_composition,
                refuses_wrong_lengths,
            }
            hashgrid_forward {
                forward_matches_f64,
                backward_matches_f64,
                backward_is_the_adjoint,
                backward_matches_finite_differences,
                edge_coordinates,
                dense_and_hashed_levels,
                empty_batch,
                agrees_with_the_default,
                bad_buffers_are_errors,
            }
        }
    };
    (@families $attrs:tt $make:expr; $($family:ident { $($check:ident),* $(,)? })*) => {
        /// The backend under test, made afresh for each check.
        fn __backend() -> impl $crate::Backend {
            $make
        }
        $(
            mod $family {
                $( $crate::conformance_tests!(@test $attrs $family $check); )*
            }
        )*
    };
    (@test { $($attr:tt)* } $family:ident $check:ident) => {
        #[test]
        $($attr)*
        fn $check() {
            $crate::testing::$family::$check(&super::__backend());
        }
    };
    ($($input:tt)*) => {
        $crate::conformance_tests!(@attrs [] $($input)*);
    };
}
