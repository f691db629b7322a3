//! Reductions (sum, mean, max, min, argmax, argmin) over each axis and over everything,
//! with and without `keep_dim`, against f64 references. Sums are compared to
//! `SUM_TOL` relative to the sum of absolute values (see `common/mod.rs`); extremes and
//! positions exactly.

mod common;

use common::*;
use tensor_core::{ReduceOp, Shape, Tensor};

const OPS: &[ReduceOp] = &[
    ReduceOp::Sum,
    ReduceOp::Mean,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::ArgMax,
    ReduceOp::ArgMin,
];

/// Shapes of rank 1 to 4, with unit axes, and large enough (in total, along the reduced
/// axis, or across it) to take each parallel path.
const SHAPES: &[&[usize]] = &[
    &[1],
    &[1, 1],
    &[1, 33],
    &[33, 1],
    &[7, 33],
    &[5000],
    &[3, 4, 5],
    &[2, 1, 3, 4],
    &[50_000],
    &[40_000, 3],
    &[3, 40_000],
    &[300, 200],
    &[20, 3000, 2],
];

/// `op` along `axis` (or all) in f64: the values and, for sums, the scale of the error.
fn reference(op: ReduceOp, x: &[f32], dims: &[usize], axis: Option<usize>) -> (Vec<f64>, Vec<f64>) {
    let (outer, len, inner) = match axis {
        Some(a) => (
            dims[..a].iter().product(),
            dims[a],
            dims[a + 1..].iter().product(),
        ),
        None => (1, x.len(), 1),
    };
    let mut want = Vec::new();
    let mut scale = Vec::new();
    for o in 0..outer {
        for i in 0..inner {
            let vals: Vec<f32> = (0..len).map(|l| x[(o * len + l) * inner + i]).collect();
            let abs_sum: f64 = vals.iter().map(|v| v.abs() as f64).sum();
            let sum: f64 = vals.iter().map(|&v| v as f64).sum();
            let first = |better: fn(f32, f32) -> bool| {
                let mut at = 0;
                for (l, &v) in vals.iter().enumerate() {
                    if better(v, vals[at]) {
                        at = l;
                    }
                }
                at
            };
            let (v, s) = match op {
                ReduceOp::Sum => (sum, abs_sum),
                ReduceOp::Mean => (sum / len as f64, abs_sum / len as f64),
                ReduceOp::Max => (vals[first(|a, b| a > b)] as f64, 0.0),
                ReduceOp::Min => (vals[first(|a, b| a < b)] as f64, 0.0),
                ReduceOp::ArgMax => (first(|a, b| a > b) as f64, 0.0),
                ReduceOp::ArgMin => (first(|a, b| a < b) as f64, 0.0),
            };
            want.push(v);
            scale.push(s);
        }
    }
    (want, scale)
}

/// Values quantised to sixteenths so that extremes tie and positions must be the first.
fn data(r: &mut tensor_core::rand_chacha::ChaCha8Rng, n: usize) -> Vec<f32> {
    uniform(r, n, -4.0, 4.0)
        .into_iter()
        .map(|v| (v * 16.0).round() / 16.0)
        .collect()
}

#[test]
fn every_reduction_over_every_axis_matches_f64() {
    let mut r = rng(20);
    for dims in SHAPES {
        let xv = data(&mut r, dims.iter().product());
        let x = Tensor::from_slice(&cpu(), &xv, *dims).unwrap();
        let axes = (0..dims.len()).map(Some).chain([None]);
        for axis in axes {
            for &op in OPS {
                let what = format!("{op:?} of {dims:?} along {axis:?}");
                let (want, scale) = reference(op, &xv, dims, axis);
                for keep_dim in [false, true] {
                    let got = x.reduce(op, axis, keep_dim).unwrap();
                    let mut shape = dims.to_vec();
                    match (axis, keep_dim) {
                        (Some(a), true) => shape[a] = 1,
                        (Some(a), false) => {
                            shape.remove(a);
                        }
                        (None, true) => shape.iter_mut().for_each(|d| *d = 1),
                        (None, false) => shape.clear(),
                    }
                    assert_eq!(got.shape(), &Shape::new(shape), "{what}");
                    assert_close_scaled(&host(&got), &want, &scale, SUM_TOL, &what);
                }
            }
        }
    }
}

#[test]
fn named_reductions_and_reduce_into() {
    let mut r = rng(21);
    let x = rand_tensor(&mut r, &[6, 7], -1.0, 1.0);
    for (t, op) in [
        (x.sum(Some(1)), ReduceOp::Sum),
        (x.mean(Some(0)), ReduceOp::Mean),
        (x.max(None), ReduceOp::Max),
        (x.min(Some(1)), ReduceOp::Min),
        (x.argmax(Some(0)), ReduceOp::ArgMax),
        (x.argmin(None), ReduceOp::ArgMin),
    ] {
        let t = t.unwrap();
        let axis = match t.dims() {
            [6] => Some(1),
            [7] => Some(0),
            _ => None,
        };
        let direct = x.reduce(op, axis, false).unwrap();
        assert_bits_eq(&host(&t), &host(&direct), &format!("{op:?}"));
        let mut out = Tensor::full(&cpu(), t.dims(), f32::NAN).unwrap();
        x.reduce_into(op, axis, &mut out).unwrap();
        assert_bits_eq(&host(&out), &host(&direct), &format!("{op:?} into"));
    }
}

#[test]
fn sum_of_empty_axis_is_zero_and_other_reductions_refuse() {
    let x = Tensor::zeros(&cpu(), [3, 0]).unwrap();
    assert_eq!(host(&x.sum(Some(1)).unwrap()), [0.0, 0.0, 0.0]);
    assert_eq!(host(&x.sum(None).unwrap()), [0.0]);
    assert_eq!(x.sum(Some(0)).unwrap().dims(), [0]);
    for op in [
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::ArgMax,
        ReduceOp::ArgMin,
        ReduceOp::Mean,
    ] {
        let err = x.reduce(op, Some(1), false).unwrap_err();
        assert!(
            matches!(err, tensor_core::Error::InvalidArgument { .. }),
            "{op:?}: {err}"
        );
    }
}

#[test]
fn large_sums_are_accurate() {
    // A million values of mixed sign: f64 accumulation keeps the total to f32 rounding.
    let mut r = rng(22);
    let xv = uniform(&mut r, 1_000_000, -1.0, 1.0);
    let x = Tensor::from_slice(&cpu(), &xv, [1000, 1000]).unwrap();
    let want: f64 = xv.iter().map(|&v| v as f64).sum();
    let got = x.sum(None).unwrap().to_scalar().unwrap() as f64;
    assert!(
        (got - want).abs() <= 1e-6 * want.abs().max(1.0),
        "{got} vs {want}"
    );
}
