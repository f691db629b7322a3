//! Reductions along the middle axis of `outer x len x inner`: every axis of tensors of rank
//! 1 to 4, ties, NaN, infinities, empty axes and long sums.

use super::compare::*;
use super::data::*;
use super::reference;
use crate::params::ReduceSpec;
use crate::{Backend, Error, ReduceOp};

/// Every reduction.
pub const OPS: [ReduceOp; 6] = [
    ReduceOp::Sum,
    ReduceOp::Mean,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::ArgMax,
    ReduceOp::ArgMin,
];

/// Tensor shapes of rank 1 to 4 with unit axes, short and long axes, and sizes that take
/// each parallel path (many rows, long rows split into chunks, tall columns).
const SHAPES: &[&[usize]] = &[
    &[1],
    &[7],
    &[1, 1],
    &[1, 33],
    &[33, 1],
    &[7, 33],
    &[5000],
    &[3, 4, 5],
    &[2, 1, 3, 4],
    &[7, 1, 5],
    &[50_003],
    &[40_000, 3],
    &[3, 40_000],
    &[300, 200],
    &[20, 3000, 2],
    &[2000, 1025],
    &[5, 3000, 33],
    &[4, 9, 1000],
    &[(1 << 20) + 3],
];

/// The `(outer, len, inner)` views of `dims`: one per axis, and the whole tensor.
pub fn views(dims: &[usize]) -> Vec<(usize, usize, usize)> {
    let mut v: Vec<_> = (0..dims.len())
        .map(|a| {
            let outer = dims[..a].iter().product();
            let inner = dims[a + 1..].iter().product();
            (outer, dims[a], inner)
        })
        .collect();
    v.push((1, dims.iter().product(), 1));
    v
}

/// Runs one reduction and returns its output.
fn run<B: Backend>(b: &B, op: ReduceOp, x: &B::Storage, view: (usize, usize, usize)) -> Vec<f32> {
    let (outer, len, inner) = view;
    let mut out = nan_buffer(b, outer * inner);
    ok(
        &format!("{op:?} of {view:?}"),
        b.reduce(
            ReduceSpec {
                op,
                outer,
                len,
                inner,
            },
            x,
            &mut out,
        ),
    );
    down(b, &out)
}

/// Checks every reduction of `x` over each view against the f64 reference.
fn check_all<B: Backend>(b: &B, what: &str, x: &[f32], views: &[(usize, usize, usize)]) {
    let xs = up(b, x);
    for &view in views {
        let (outer, len, inner) = view;
        for op in OPS {
            let want = reference::reduce(op, x, outer, len, inner);
            let got = run(b, op, &xs, view);
            assert_close(
                &format!("{op:?} of {what} as {view:?}"),
                &got,
                &want,
                SUM_TOL,
            );
        }
    }
}

/// Every reduction over every axis (and over everything) matches the f64 reference; values
/// on a grid of sixteenths make extremes tie, so positions must be the first.
pub fn every_axis_matches_f64<B: Backend>(b: &B) {
    let mut r = rng("reduce");
    for dims in SHAPES {
        let x = quantised(&mut r, dims.iter().product(), -4.0, 4.0, 16.0);
        check_all(b, &format!("{dims:?}"), &x, &views(dims));
    }
}

/// Argmax and argmin point at the first extreme when most values tie, whatever the split.
pub fn arg_reductions_pick_the_first_tie<B: Backend>(b: &B) {
    let mut r = rng("ties");
    for &view in &[
        (1, 7, 1),
        (33, 1, 1),
        (1, 1025, 1),
        (3, 50_000, 1),
        (2000, 2000, 1),
        (1, 7, 3),
        (1, 100_000, 2),
        (5, 3000, 33),
        (1, 5000, 64),
    ] {
        let (outer, len, inner) = view;
        let x = levels(&mut r, outer * len * inner, 3);
        let xs = up(b, &x);
        for op in [ReduceOp::ArgMax, ReduceOp::ArgMin] {
            let want = reference::reduce(op, &x, outer, len, inner);
            assert_close(
                &format!("{op:?} of {view:?}"),
                &run(b, op, &xs, view),
                &want,
                0.0,
            );
        }
    }
    let xs = up(b, &vec![2.5; 100_000]);
    for op in [ReduceOp::ArgMax, ReduceOp::ArgMin] {
        assert_eq!(
            run(b, op, &xs, (1, 100_000, 1)),
            [0.0],
            "{op:?} of a constant row"
        );
    }
}

/// NaN wins: max and min are NaN and argmax and argmin point at the first NaN, wherever
/// the NaNs are (first, last, in one chunk of a long axis or several); sums are NaN.
pub fn nan_propagates<B: Backend>(b: &B) {
    let mut r = rng("reduce NaN");
    for &(outer, len, inner) in &[
        (1, 7, 1),
        (4, 33, 1),
        (3, 9, 5),
        (1, 100_000, 1),
        (2, 50_000, 3),
        (1, 1025, 1),
    ] {
        let n = outer * len * inner;
        let mut x = quantised(&mut r, n, -4.0, 4.0, 16.0);
        // The first and last position of the first slice, and scattered ones.
        x[0] = f32::NAN;
        x[(len - 1) * inner] = f32::NAN;
        sprinkle(&mut x, &[f32::NAN], (n / 50).max(2), &mut r);
        check_all(b, "values with NaN", &x, &[(outer, len, inner)]);
        let mut x = quantised(&mut r, n, -4.0, 4.0, 16.0);
        sprinkle(&mut x, &[f32::NAN], 2, &mut r);
        check_all(b, "values with two NaNs", &x, &[(outer, len, inner)]);
    }
}

/// Infinities are ordinary extremes (an axis of `-inf` has its max, `-inf`, at 0); a sum
/// of `inf` and `-inf` is NaN.
pub fn infinities_are_extremes<B: Backend>(b: &B) {
    let mut r = rng("reduce inf");
    let views = [(1, 7, 1), (5, 33, 2), (1, 50_000, 1), (3, 4099, 3)];
    for &(outer, len, inner) in &views {
        let n = outer * len * inner;
        let mut x = quantised(&mut r, n, -4.0, 4.0, 16.0);
        sprinkle(
            &mut x,
            &[f32::INFINITY, f32::NEG_INFINITY],
            (n / 100).max(2),
            &mut r,
        );
        check_all(b, "values with infinities", &x, &[(outer, len, inner)]);
        check_all(
            b,
            "-inf",
            &vec![f32::NEG_INFINITY; n],
            &[(outer, len, inner)],
        );
        check_all(b, "+inf", &vec![f32::INFINITY; n], &[(outer, len, inner)]);
    }
}

/// An empty axis gives 0 for a sum and NaN for a mean, and is refused for max, min, argmax
/// and argmin; an empty output is fine for every reduction.
pub fn empty_axes_and_outputs<B: Backend>(b: &B) {
    let empty = up(b, &[]);
    for (outer, inner) in [(1, 1), (2, 3), (1000, 1)] {
        for (op, want) in [(ReduceOp::Sum, 0.0), (ReduceOp::Mean, f32::NAN)] {
            let mut out = up(b, &vec![7.0; outer * inner]);
            ok(
                "reduce",
                b.reduce(
                    ReduceSpec {
                        op,
                        outer,
                        len: 0,
                        inner,
                    },
                    &empty,
                    &mut out,
                ),
            );
            let what = format!("{op:?} of {outer}x0x{inner}");
            assert_same_bits(&what, &down(b, &out), &vec![want; outer * inner]);
        }
        for op in [
            ReduceOp::Max,
            ReduceOp::Min,
            ReduceOp::ArgMax,
            ReduceOp::ArgMin,
        ] {
            let mut out = up(b, &vec![7.0; outer * inner]);
            let result = b.reduce(
                ReduceSpec {
                    op,
                    outer,
                    len: 0,
                    inner,
                },
                &empty,
                &mut out,
            );
            let what = format!("{op:?} of {outer}x0x{inner}");
            assert_error(&what, result, |e| {
                matches!(e, Error::InvalidArgument { op: "reduce", .. })
            });
        }
    }
    for op in OPS {
        for (outer, len, inner) in [(0, 5, 3), (3, 5, 0), (0, 0, 0)] {
            let x = up(b, &vec![1.0; outer * len * inner]);
            let mut out = up(b, &[]);
            ok(
                "reduce",
                b.reduce(
                    ReduceSpec {
                        op,
                        outer,
                        len,
                        inner,
                    },
                    &x,
                    &mut out,
                ),
            );
        }
    }
}

/// Long sums keep their precision (within 2e-6 of the total, where a running `f32` sum
/// drifts by 1e-3), for a full reduction and for two long columns.
pub fn long_sums_do_not_drift<B: Backend>(b: &B) {
    let n = (1 << 22) + 6;
    let x: Vec<f32> = (0..n).map(|i| 1.0 + (i % 7) as f32 * 1e-3).collect();
    let xs = up(b, &x);
    for (view, op) in [
        ((1, n, 1), ReduceOp::Sum),
        ((1, n / 2, 2), ReduceOp::Sum),
        ((1, n, 1), ReduceOp::Mean),
    ] {
        let (outer, len, inner) = view;
        let want = reference::reduce(op, &x, outer, len, inner);
        assert_close(
            &format!("{op:?} of {view:?}"),
            &run(b, op, &xs, view),
            &want,
            2e-6,
        );
    }
}

/// An input or output of the wrong length is refused.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    let x = up(b, &[1.0; 24]);
    for (x_len, out_len) in [(23, 6), (25, 6), (24, 5), (24, 7)] {
        let x = up(b, &vec![1.0; x_len]);
        let mut out = up(b, &vec![0.0; out_len]);
        let r = b.reduce(
            ReduceSpec {
                op: ReduceOp::Sum,
                outer: 2,
                len: 4,
                inner: 3,
            },
            &x,
            &mut out,
        );
        assert_buffer_error(&format!("reduce of {x_len} into {out_len}"), "reduce", r);
    }
    let mut out = up(b, &[0.0; 6]);
    ok(
        "reduce 2x4x3",
        b.reduce(
            ReduceSpec {
                op: ReduceOp::Max,
                outer: 2,
                len: 4,
                inner: 3,
            },
            &x,
            &mut out,
        ),
    );
}
