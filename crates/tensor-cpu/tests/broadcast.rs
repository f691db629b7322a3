//! Broadcasting binary operations against an f64 reference computed index by index, for
//! every legal kind of broadcast. Tolerance: element-wise (see `common/mod.rs`).

mod common;

use common::*;
use tensor_core::{BinaryOp, Shape, Tensor};

/// Pairs of shapes that broadcast: scalar, row, column, middle axes, rank 3 and 4, both
/// sides broadcasting, mixed ranks, empty, and sizes above the parallel threshold.
const PAIRS: &[(&[usize], &[usize])] = &[
    (&[], &[5, 4]),
    (&[5, 4], &[]),
    (&[], &[]),
    (&[1], &[5, 4]),
    (&[4], &[5, 4]),
    (&[1, 4], &[5, 4]),
    (&[5, 1], &[5, 4]),
    (&[5, 4], &[5, 1]),
    (&[1, 1], &[1, 33]),
    (&[33, 1], &[1, 1]),
    (&[3, 1, 4], &[3, 5, 4]),
    (&[2, 1, 1, 3], &[2, 4, 5, 3]),
    (&[2, 4, 5, 3], &[4, 1, 3]),
    (&[4, 1, 3], &[5, 1]),
    (&[5, 1], &[1, 4]),
    (&[3, 1, 4], &[1, 5, 1]),
    (&[7, 1, 1, 33], &[1, 3, 2, 1]),
    (&[3], &[2, 4, 3]),
    (&[0, 4], &[4]),
    (&[0, 1], &[1, 6]),
    (&[300, 200], &[200]),
    (&[300, 200], &[300, 1]),
    (&[300, 1], &[1, 200]),
    (&[2, 200, 100], &[200, 1]),
    (&[1, 100], &[2, 200, 1]),
];

const OPS: &[BinaryOp] = &[
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Pow,
    BinaryOp::Gt,
    BinaryOp::Le,
    BinaryOp::Eq,
];

/// `op(a, b)` broadcast, computed in f64 element by element, with error scales.
fn reference(
    op: BinaryOp,
    a: &[f32],
    ad: &[usize],
    b: &[f32],
    bd: &[usize],
) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let out = broadcast_dims(ad, bd).expect("shapes broadcast");
    let n: usize = out.iter().product();
    let mut want = Vec::with_capacity(n);
    let mut scale = Vec::with_capacity(n);
    for i in 0..n {
        let idx = unravel(i, &out);
        let x = a[broadcast_offset(&idx, ad)];
        let y = b[broadcast_offset(&idx, bd)];
        let (xf, yf) = (x as f64, y as f64);
        let v = match op {
            BinaryOp::Add => xf + yf,
            BinaryOp::Sub => xf - yf,
            BinaryOp::Mul => xf * yf,
            BinaryOp::Div => xf / yf,
            BinaryOp::Maximum => xf.max(yf),
            BinaryOp::Minimum => xf.min(yf),
            BinaryOp::Pow => xf.powf(yf),
            BinaryOp::Gt => (x > y) as u8 as f64,
            BinaryOp::Ge => (x >= y) as u8 as f64,
            BinaryOp::Lt => (x < y) as u8 as f64,
            BinaryOp::Le => (x <= y) as u8 as f64,
            BinaryOp::Eq => (x == y) as u8 as f64,
        };
        want.push(v);
        scale.push(v.abs().max(xf.abs() + yf.abs()));
    }
    (out, want, scale)
}

fn inputs(r: &mut tensor_core::rand_chacha::ChaCha8Rng, dims: &[usize]) -> Vec<f32> {
    let n = dims.iter().product();
    uniform(r, n, 0.5, 2.0)
        .into_iter()
        .map(|v| (v * 8.0).round() / 8.0)
        .collect()
}

#[test]
fn every_broadcast_kind_matches_f64() {
    let mut r = rng(10);
    for &(ad, bd) in PAIRS {
        let (av, bv) = (inputs(&mut r, ad), inputs(&mut r, bd));
        let a = Tensor::from_slice(&cpu(), &av, ad).unwrap();
        let b = Tensor::from_slice(&cpu(), &bv, bd).unwrap();
        for &op in OPS {
            let (out_dims, want, scale) = reference(op, &av, ad, &bv, bd);
            let what = format!("{op:?} of {ad:?} and {bd:?}");
            let got = a.binary(op, &b).unwrap();
            assert_eq!(got.dims(), out_dims.as_slice(), "{what}");
            let got = host(&got);
            assert_close_scaled(&got, &want, &scale, ELEMENT_TOL, &what);
            let mut out = Tensor::full(&cpu(), out_dims.clone(), f32::NAN).unwrap();
            a.binary_into(op, &b, &mut out).unwrap();
            assert_bits_eq(&host(&out), &got, &what);
            if out_dims.as_slice() == ad {
                let mut c = a.try_clone().unwrap();
                c.binary_assign(op, &b).unwrap();
                assert_bits_eq(&host(&c), &got, &format!("{what}, in place"));
            }
        }
    }
}

#[test]
fn operators_broadcast() {
    let mut r = rng(11);
    let m = rand_tensor(&mut r, &[6, 5], -2.0, 2.0);
    let row = rand_tensor(&mut r, &[5], 0.5, 2.0);
    let col = rand_tensor(&mut r, &[6, 1], 0.5, 2.0);
    let (mv, rv, cv) = (host(&m), host(&row), host(&col));
    for (got, op, other, od) in [
        (&m + &row, BinaryOp::Add, &rv, &[5usize][..]),
        (&m - &col, BinaryOp::Sub, &cv, &[6, 1][..]),
        (&m * &row, BinaryOp::Mul, &rv, &[5][..]),
        (&m / &col, BinaryOp::Div, &cv, &[6, 1][..]),
    ] {
        let (_, want, scale) = reference(op, &mv, &[6, 5], other, od);
        assert_close_scaled(
            &host(&got.unwrap()),
            &want,
            &scale,
            ELEMENT_TOL,
            &format!("{op:?}"),
        );
    }
    // Broadcasting the other way round: column op matrix.
    let got = host(&(&col - &m).unwrap());
    let (_, want, scale) = reference(BinaryOp::Sub, &cv, &[6, 1], &mv, &[6, 5]);
    assert_close_scaled(&got, &want, &scale, ELEMENT_TOL, "col - m");
}

#[test]
fn in_place_updates_accept_broadcast_operands_only() {
    let mut r = rng(12);
    let mut m = rand_tensor(&mut r, &[4, 3], -1.0, 1.0);
    let before = host(&m);
    let bias = rand_tensor(&mut r, &[3], -1.0, 1.0);
    m.add_assign(&bias).unwrap();
    let bv = host(&bias);
    let want: Vec<f64> = before
        .iter()
        .enumerate()
        .map(|(i, &v)| v as f64 + bv[i % 3] as f64)
        .collect();
    assert_elementwise(&host(&m), &want, 1.0, "matrix += row");
    // The result of broadcasting must be the left operand's shape.
    let mut row = bias.try_clone().unwrap();
    let err = row.add_assign(&m).unwrap_err();
    assert!(
        matches!(err, tensor_core::Error::ShapeMismatch { .. }),
        "{err}"
    );
    assert_eq!(row.shape(), &Shape::new([3]));
}
