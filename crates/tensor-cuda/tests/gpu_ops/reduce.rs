//! Reductions along an axis and over everything.

use crate::common::*;
use tensor_core::{Backend, Error, ReduceOp};

const OPS: [ReduceOp; 6] = [
    ReduceOp::Sum,
    ReduceOp::Mean,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::ArgMax,
    ReduceOp::ArgMin,
];

/// `(outer, len, inner)` shapes: full reductions (outer = inner = 1) short and very long,
/// row reductions (inner = 1) with few and many rows, column reductions (inner > 1) narrow,
/// wide and tall, and a length-1 axis.
const SHAPES: [(usize, usize, usize); 16] = [
    (1, 1, 1),
    (1, 7, 1),
    (33, 1, 1),
    (7, 1, 5),
    (1, 1000, 1),
    (1, 1025, 1),
    (1, (1 << 20) + 3, 1),
    (3, 50_000, 1),
    (2000, 2000, 1),
    (60_000, 10, 1),
    (1, 7, 3),
    (1, 100_000, 2),
    (5, 3000, 33),
    (4, 9, 1000),
    (1, 5000, 64),
    (100, 3, 100),
];

/// Checks one reduction result against the CPU: Sum and Mean within 1e-4 of the value plus
/// 1e-6 of the sum of magnitudes; the others exactly.
fn check(op: ReduceOp, x: &[f32], shape: (usize, usize, usize), got: &[f32], want: &[f32]) {
    let (outer, len, inner) = shape;
    for o in 0..outer {
        for i in 0..inner {
            let k = o * inner + i;
            let ok = match op {
                ReduceOp::Sum | ReduceOp::Mean => {
                    let mut mass: f64 = (0..len)
                        .map(|l| f64::from(x[(o * len + l) * inner + i].abs()))
                        .sum();
                    if op == ReduceOp::Mean {
                        mass /= len as f64;
                    }
                    close(got[k], want[k], 1e-4, 1e-6 * mass + 1e-30)
                }
                _ => got[k] == want[k],
            };
            assert!(
                ok,
                "{op:?} of {outer}x{len}x{inner} at ({o}, {i}): gpu {} cpu {}",
                got[k], want[k]
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn reductions_match_the_cpu_for_every_shape() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("reduce");
    for shape in SHAPES {
        let (outer, len, inner) = shape;
        let x = uniform(&mut rng, outer * len * inner, -1.0, 1.0);
        let xs = g.upload(&x).unwrap();
        let mut out = g.alloc(outer * inner).unwrap();
        for op in OPS {
            g.reduce(op, &xs, outer, len, inner, &mut out).unwrap();
            let got = g.download(&out).unwrap();
            let want = cpu_reduce(&c, op, &x, outer, len, inner);
            check(op, &x, shape, &got, &want);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn arg_reductions_return_the_first_index_on_ties() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("argmax ties");
    for shape in SHAPES {
        let (outer, len, inner) = shape;
        // Three levels: every row has many ties for its extremes.
        let x = levels(&mut rng, outer * len * inner, 3);
        let xs = g.upload(&x).unwrap();
        let mut out = g.alloc(outer * inner).unwrap();
        for op in [ReduceOp::ArgMax, ReduceOp::ArgMin] {
            g.reduce(op, &xs, outer, len, inner, &mut out).unwrap();
            let got = g.download(&out).unwrap();
            let want = cpu_reduce(&c, op, &x, outer, len, inner);
            check(op, &x, shape, &got, &want);
        }
    }
    // A constant row: index 0.
    let xs = g.upload(&vec![2.5; 100_000]).unwrap();
    let mut out = g.alloc(1).unwrap();
    g.reduce(ReduceOp::ArgMax, &xs, 1, 100_000, 1, &mut out)
        .unwrap();
    assert_eq!(g.download(&out).unwrap(), vec![0.0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sums_of_large_inputs_keep_their_precision() {
    let (g, c) = (gpu(), cpu());
    let x: Vec<f32> = (0..(1 << 22))
        .map(|i| 1.0 + (i % 7) as f32 * 1e-3)
        .collect();
    let xs = g.upload(&x).unwrap();
    let mut out = g.alloc(1).unwrap();
    g.reduce(ReduceOp::Sum, &xs, 1, x.len(), 1, &mut out)
        .unwrap();
    let got = g.download(&out).unwrap()[0];
    let want = cpu_reduce(&c, ReduceOp::Sum, &x, 1, x.len(), 1)[0];
    assert!(close(got, want, 1e-6, 0.0), "gpu {got} cpu {want}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn empty_axes_and_outputs() {
    let g = gpu();
    let empty = g.alloc(0).unwrap();
    let mut out = g.upload(&[7.0; 6]).unwrap();
    g.reduce(ReduceOp::Sum, &empty, 2, 0, 3, &mut out).unwrap();
    assert_eq!(g.download(&out).unwrap(), vec![0.0; 6]);
    let err = g.reduce(ReduceOp::Max, &empty, 2, 0, 3, &mut out);
    assert!(matches!(err, Err(Error::InvalidArgument { .. })), "{err:?}");
    let mut nothing = g.alloc(0).unwrap();
    g.reduce(ReduceOp::Sum, &empty, 0, 5, 3, &mut nothing)
        .unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn concurrent_reductions_from_clones_do_not_mix_partials() {
    let g = gpu();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let g = g.clone();
            std::thread::spawn(move || {
                // Long rows: two passes through the shared workspace.
                let x = vec![t as f32 + 1.0; 300_000];
                let xs = g.upload(&x).unwrap();
                let mut out = g.alloc(1).unwrap();
                for _ in 0..50 {
                    g.reduce(ReduceOp::Sum, &xs, 1, x.len(), 1, &mut out)
                        .unwrap();
                    let got = g.download(&out).unwrap()[0];
                    assert_eq!(got, 300_000.0 * (t as f32 + 1.0), "thread {t}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
