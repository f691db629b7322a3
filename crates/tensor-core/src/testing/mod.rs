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
//! backend's primitives with the default fused compositions. A primitive family's checks
//! are listed in [`conformance_tests!`](crate::conformance_tests); a fused operation's
//! module is named after the operation, and its checks are listed with it in
//! [`for_each_fused_op!`](crate::for_each_fused_op).

pub mod binary;
pub mod compare;
mod composed;
pub mod data;
pub mod forwarding;
pub mod gather;
pub mod gemm;
pub mod memory;
pub mod reduce;
pub mod reference;
pub mod subnormals;
pub mod unary;

/// Declares the checks module of each fused operation, `testing/NAME.rs`.
macro_rules! declare_fused_checks {
    ([ $($name:ident: $op:ident { $($check:ident),* $(,)? }),* $(,)? ]) => {
        $( pub mod $name; )*
    };
}

crate::for_each_fused_op!(declare_fused_checks);

pub use composed::Composed;

/// Expands to the conformance suite for the backend made by an expression: one `#[test]`
/// per check, in one module per operation family, plus a private function `__backend`
/// that evaluates the expression. Attributes written before the expression (such as
/// `#[ignore = "needs a GPU"]`) go on every test. See [`testing`](crate::testing).
#[macro_export]
macro_rules! conformance_tests {
    (@attrs [$($attrs:tt)*] #[$attr:meta] $($rest:tt)*) => {
        $crate::conformance_tests!(@attrs [$($attrs)* #[$attr]] $($rest)*);
    };
    (@attrs [$($attrs:tt)*] $make:expr $(,)?) => {
        $crate::for_each_fused_op! { $crate::__conformance_expand, {
            { $($attrs)* } $make;
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
        } }
    };
    ($($input:tt)*) => {
        $crate::conformance_tests!(@attrs [] $($input)*);
    };
}

/// Implementation detail of [`conformance_tests!`](crate::conformance_tests): the modules,
/// the primitives' families and then each fused operation's (from
/// [`for_each_fused_op!`](crate::for_each_fused_op)).
#[doc(hidden)]
#[macro_export]
macro_rules! __conformance_expand {
    (
        { $attrs:tt $make:expr; $($family:ident { $($check:ident),* $(,)? })* },
        [ $($op:ident: $op_trait:ident { $($op_check:ident),* $(,)? }),* $(,)? ]
    ) => {
        /// The backend under test, made afresh for each check.
        fn __backend() -> impl $crate::Backend {
            $make
        }
        $(
            mod $family {
                $( $crate::__conformance_test!($attrs $family $check); )*
            }
        )*
        $(
            mod $op {
                $( $crate::__conformance_test!($attrs $op $op_check); )*
            }
        )*
    };
}

/// Implementation detail of [`conformance_tests!`](crate::conformance_tests): one test.
#[doc(hidden)]
#[macro_export]
macro_rules! __conformance_test {
    ({ $($attr:tt)* } $family:ident $check:ident) => {
        #[test]
        $($attr)*
        fn $check() {
            $crate::testing::$family::$check(&super::__backend());
        }
    };
}
