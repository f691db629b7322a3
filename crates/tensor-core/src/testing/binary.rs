//! Element-wise operations of two operands with numpy broadcasting, out of place and in
//! place.

use super::compare::*;
use super::data::*;
use super::reference;
use crate::params::{BinaryAssignSpec, BinarySpec};
use crate::{Backend, BinaryOp, Error, Shape};

/// Every binary operation.
pub const OPS: [BinaryOp; 12] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Pow,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Eq,
];

/// Shape pairs covering every kind of broadcast: scalars (rank 0 and `[1]`) on either
/// side, rows, columns, middle axes, both sides broadcasting, rank differences, up to rank
/// 7, empty tensors, and sizes past the parallel thresholds.
pub const PAIRS: &[(&[usize], &[usize])] = &[
    (&[7], &[7]),
    (&[], &[]),
    (&[], &[5, 4]),
    (&[5, 4], &[]),
    (&[1], &[33]),
    (&[33], &[1]),
    (&[4], &[5, 4]),
    (&[1, 4], &[5, 4]),
    (&[5, 1], &[5, 4]),
    (&[5, 4], &[5, 1]),
    (&[1, 1], &[1, 33]),
    (&[33, 1], &[1, 1]),
    (&[5, 1], &[1, 4]),
    (&[3, 1, 4], &[3, 5, 4]),
    (&[3, 1, 4], &[1, 5, 1]),
    (&[4, 1, 3], &[5, 1]),
    (&[3], &[2, 4, 3]),
    (&[2, 1, 1, 3], &[2, 4, 5, 3]),
    (&[2, 4, 5, 3], &[4, 1, 3]),
    (&[2, 3, 4, 5], &[3, 1, 5]),
    (&[1, 1, 7], &[7, 1, 1]),
    (&[7, 1, 1, 33], &[1, 3, 2, 1]),
    (&[2, 1, 3, 1, 2, 1, 2], &[1, 2, 1, 3, 1, 2, 1]),
    (&[0, 4], &[4]),
    (&[0, 1], &[1, 6]),
    (&[3, 0], &[3, 1]),
    (&[1000, 33], &[33]),
    (&[1000, 1], &[1, 33]),
    (&[300, 200], &[300, 1]),
    (&[2, 200, 100], &[200, 1]),
    (&[1, 100], &[2, 200, 1]),
    (&[4099, 257], &[257]),
    (&[4099, 257], &[4099, 1]),
];

/// Operands suited to `op`: positive bases for `Pow`, divisors away from 0, and values on a
/// coarse grid so that comparisons meet ties.
fn operands(name: &str, op: BinaryOp, na: usize, nb: usize) -> (Vec<f32>, Vec<f32>) {
    let mut r = rng(name);
    match op {
        BinaryOp::Pow => (
            uniform(&mut r, na, 0.5, 2.0),
            uniform(&mut r, nb, -2.0, 2.0),
        ),
        BinaryOp::Div => (
            uniform(&mut r, na, -2.0, 2.0),
            uniform(&mut r, nb, 0.5, 2.0),
        ),
        _ => (
            quantised(&mut r, na, -2.0, 2.0, 4.0),
            quantised(&mut r, nb, -2.0, 2.0, 4.0),
        ),
    }
}

/// Runs `out = op(a, b)` and returns `out`.
fn run<B: Backend>(b: &B, op: BinaryOp, a: &[f32], sa: &Shape, bv: &[f32], sb: &Shape) -> Vec<f32> {
    let so = ok("broadcast", sa.broadcast(sb, "test"));
    let (da, db) = (up(b, a), up(b, bv));
    let mut out = nan_buffer(b, so.numel());
    ok(
        &format!("{op:?} of {sa} and {sb}"),
        b.binary(
            BinarySpec {
                op,
                a_shape: sa,
                b_shape: sb,
                out_shape: &so,
            },
            &da,
            &db,
            &mut out,
        ),
    );
    down(b, &out)
}

/// Same-shape operands on every size match the f64 definitions.
pub fn same_shape_matches_f64<B: Backend>(b: &B) {
    for op in OPS {
        for &n in SIZES {
            let (a, bv) = operands("binary", op, n, n);
            let s = Shape::new([n]);
            let want: Vec<_> = a
                .iter()
                .zip(&bv)
                .map(|(&x, &y)| reference::binary(op, x, y))
                .collect();
            assert_close(
                &format!("{op:?} of {n}"),
                &run(b, op, &a, &s, &bv, &s),
                &want,
                ELEMENT_TOL,
            );
        }
    }
}

/// Every kind of broadcast matches an f64 reference computed index by index.
pub fn every_broadcast_matches_f64<B: Backend>(b: &B) {
    for op in OPS {
        for &(ad, bd) in PAIRS {
            let (na, nb) = (ad.iter().product(), bd.iter().product());
            let (a, bv) = operands("broadcast", op, na, nb);
            let (_, want) = reference::broadcast(op, &a, ad, &bv, bd);
            let got = run(b, op, &a, &Shape::new(ad), &bv, &Shape::new(bd));
            assert_close(
                &format!("{op:?} of {ad:?} and {bd:?}"),
                &got,
                &want,
                ELEMENT_TOL,
            );
        }
    }
}

/// `binary_assign` gives the same bits as `binary` wherever the result has the left
/// operand's shape.
pub fn in_place_matches_out_of_place<B: Backend>(b: &B) {
    for op in OPS {
        for &(ad, bd) in PAIRS {
            if reference::broadcast_dims(ad, bd).as_deref() != Some(ad) {
                continue;
            }
            let (na, nb) = (ad.iter().product(), bd.iter().product());
            let (a, bv) = operands("in place", op, na, nb);
            let (sa, sb) = (Shape::new(ad), Shape::new(bd));
            let out = run(b, op, &a, &sa, &bv, &sb);
            let (mut da, db) = (up(b, &a), up(b, &bv));
            ok(
                "binary_assign",
                b.binary_assign(
                    BinaryAssignSpec {
                        op,
                        a_shape: &sa,
                        b_shape: &sb,
                    },
                    &mut da,
                    &db,
                ),
            );
            assert_same_bits(
                &format!("{op:?}= of {ad:?} and {bd:?}"),
                &down(b, &da),
                &out,
            );
        }
    }
}

/// Every pair of special values follows IEEE arithmetic: NaN propagates (through
/// `Maximum` and `Minimum` too), comparisons with NaN are false, `inf - inf` is NaN.
pub fn special_values_follow_ieee<B: Backend>(b: &B) {
    let n = SPECIALS.len();
    let (sa, sb) = (Shape::new([n, 1]), Shape::new([n]));
    for op in OPS {
        let (_, want) = reference::broadcast(op, SPECIALS, &[n, 1], SPECIALS, &[n]);
        let got = run(b, op, SPECIALS, &sa, SPECIALS, &sb);
        assert_close(
            &format!("{op:?} of every pair of {SPECIALS:?}"),
            &got,
            &want,
            ELEMENT_TOL,
        );
    }
}

/// Shapes that do not broadcast, result shapes that are not the broadcast, and buffers of
/// the wrong length are refused.
pub fn refuses_bad_shapes_and_lengths<B: Backend>(b: &B) {
    let add = BinaryOp::Add;
    let s23 = Shape::new([2, 3]);
    let (a, mut out) = (up(b, &[1.0; 6]), up(b, &[0.0; 6]));
    let b4 = up(b, &[1.0; 4]);
    let r = b.binary(
        BinarySpec {
            op: add,
            a_shape: &s23,
            b_shape: &Shape::new([4]),
            out_shape: &s23,
        },
        &a,
        &b4,
        &mut out,
    );
    assert_error("[2, 3] + [4]", r, |e| matches!(e, Error::Broadcast { .. }));
    let r = b.binary(
        BinarySpec {
            op: add,
            a_shape: &s23,
            b_shape: &s23,
            out_shape: &Shape::new([3, 2]),
        },
        &a,
        &a,
        &mut out,
    );
    assert_error("[2, 3] + [2, 3] into [3, 2]", r, |e| {
        matches!(e, Error::ShapeMismatch { .. })
    });
    let (short, long) = (up(b, &[1.0; 5]), up(b, &[1.0; 7]));
    assert_buffer_error(
        "a of 5",
        "binary",
        b.binary(
            BinarySpec {
                op: add,
                a_shape: &s23,
                b_shape: &s23,
                out_shape: &s23,
            },
            &short,
            &a,
            &mut out,
        ),
    );
    assert_buffer_error(
        "b of 7",
        "binary",
        b.binary(
            BinarySpec {
                op: add,
                a_shape: &s23,
                b_shape: &s23,
                out_shape: &s23,
            },
            &a,
            &long,
            &mut out,
        ),
    );
    let mut out7 = up(b, &[0.0; 7]);
    assert_buffer_error(
        "out of 7",
        "binary",
        b.binary(
            BinarySpec {
                op: add,
                a_shape: &s23,
                b_shape: &s23,
                out_shape: &s23,
            },
            &a,
            &a,
            &mut out7,
        ),
    );

    let mut row = up(b, &[1.0; 3]);
    let r = b.binary_assign(
        BinaryAssignSpec {
            op: add,
            a_shape: &Shape::new([3]),
            b_shape: &s23,
        },
        &mut row,
        &a,
    );
    assert_error("[3] += [2, 3]", r, |e| {
        matches!(e, Error::ShapeMismatch { .. })
    });
    let mut m = up(b, &[1.0; 6]);
    let r = b.binary_assign(
        BinaryAssignSpec {
            op: add,
            a_shape: &s23,
            b_shape: &Shape::new([4]),
        },
        &mut m,
        &b4,
    );
    assert_error("[2, 3] += [4]", r, |e| matches!(e, Error::Broadcast { .. }));
    let r = b.binary_assign(
        BinaryAssignSpec {
            op: add,
            a_shape: &s23,
            b_shape: &s23,
        },
        &mut m,
        &short,
    );
    assert_buffer_error("[2, 3] += 5 elements", "binary_assign", r);
    let mut m7 = up(b, &[1.0; 7]);
    let r = b.binary_assign(
        BinaryAssignSpec {
            op: add,
            a_shape: &s23,
            b_shape: &s23,
        },
        &mut m7,
        &a,
    );
    assert_buffer_error("7 elements as [2, 3]", "binary_assign", r);
}
