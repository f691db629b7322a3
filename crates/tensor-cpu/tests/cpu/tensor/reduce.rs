//! `Tensor`'s reductions: over each axis and over everything, with and without `keep_dim`,
//! the named methods, the `_into` form, and empty axes.

use crate::common::*;
use tensor_core::ReduceSpec;
use tensor_core::{Primitives, ReduceOp, Shape, Tensor};

const OPS: &[ReduceOp] = &[
    ReduceOp::Sum,
    ReduceOp::Mean,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::ArgMax,
    ReduceOp::ArgMin,
];

/// Tensors of rank 1 to 4, with unit axes.
const SHAPES: &[&[usize]] = &[&[7], &[1, 33], &[33, 1], &[3, 4, 5], &[2, 1, 3, 4]];

/// `reduce` along each axis and over everything, with and without `keep_dim`, has the
/// right shape and exactly the values of the backend's reduction of the matching
/// `outer x len x inner` view (whose values the conformance suite checks).
#[test]
fn reductions_have_their_shapes_and_the_backend_values() {
    let cpu = cpu();
    let mut r = rng(20);
    for dims in SHAPES {
        let n: usize = dims.iter().product();
        let xv = uniform(&mut r, n, -4.0, 4.0);
        let x = Tensor::from_slice(&cpu, &xv, *dims).unwrap();
        for axis in (0..dims.len()).map(Some).chain([None]) {
            let (outer, len, inner) = match axis {
                Some(a) => (
                    dims[..a].iter().product(),
                    dims[a],
                    dims[a + 1..].iter().product(),
                ),
                None => (1, n, 1),
            };
            for &op in OPS {
                let mut want = vec![0.0; outer * inner];
                cpu.reduce(
                    ReduceSpec {
                        op,
                        outer,
                        len,
                        inner,
                    },
                    &xv,
                    &mut want,
                )
                .unwrap();
                for keep_dim in [false, true] {
                    let what = format!("{op:?} of {dims:?} along {axis:?}, keep_dim {keep_dim}");
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
                    assert_bits_eq(&host(&got), &want, &what);
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
fn empty_axes_sum_to_zero_average_to_nan_and_have_no_extremes() {
    let x = Tensor::zeros(&cpu(), [3, 0]).unwrap();
    assert_eq!(host(&x.sum(Some(1)).unwrap()), [0.0, 0.0, 0.0]);
    assert_eq!(host(&x.sum(None).unwrap()), [0.0]);
    assert_eq!(x.sum(Some(0)).unwrap().dims(), [0]);
    assert!(host(&x.mean(Some(1)).unwrap()).iter().all(|v| v.is_nan()));
    assert!(x.mean(None).unwrap().to_scalar().unwrap().is_nan());
    for op in [
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::ArgMax,
        ReduceOp::ArgMin,
    ] {
        let err = x.reduce(op, Some(1), false).unwrap_err();
        assert!(
            matches!(err, tensor_core::Error::InvalidArgument { .. }),
            "{op:?}: {err}"
        );
    }
}
