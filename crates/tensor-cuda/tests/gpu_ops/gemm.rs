//! Matrix products through cuBLAS: every transpose combination, alpha and beta, TF32.

use crate::common::*;
use tensor_core::{Backend, Gemm};

/// `(m, n, k)` shapes: scalars, thin and wide matrices, sizes that are not multiples of any
/// tile.
const SHAPES: [(usize, usize, usize); 7] = [
    (1, 1, 1),
    (7, 33, 5),
    (33, 7, 1000),
    (128, 257, 64),
    (1000, 1, 33),
    (1, 1000, 7),
    (300, 200, 100),
];

/// Element `(i, j)` of op(A) for a row-major A stored `m x k` (or `k x m` when transposed).
fn at(a: &[f32], trans: bool, rows: usize, cols: usize, i: usize, j: usize) -> f32 {
    if trans {
        a[j * rows + i]
    } else {
        a[i * cols + j]
    }
}

/// Checks C within `rel` of the magnitude `|alpha| sum |a||b| + |beta c|` of each element.
#[allow(clippy::too_many_arguments)]
fn check(
    spec: Gemm,
    a: &[f32],
    b: &[f32],
    c0: &[f32],
    got: &[f32],
    want: &[f32],
    rel: f64,
    what: &str,
) {
    for i in 0..spec.m {
        for j in 0..spec.n {
            let mass: f64 = (0..spec.k)
                .map(|l| {
                    f64::from(at(a, spec.trans_a, spec.m, spec.k, i, l).abs())
                        * f64::from(at(b, spec.trans_b, spec.k, spec.n, l, j).abs())
                })
                .sum::<f64>()
                * f64::from(spec.alpha.abs())
                + if spec.beta == 0.0 {
                    0.0
                } else {
                    f64::from((spec.beta * c0[i * spec.n + j]).abs())
                };
            let k = i * spec.n + j;
            assert!(
                close(got[k], want[k], 0.0, rel * mass + 1e-30),
                "{what}: C[{i}, {j}] gpu {} cpu {} (scale {mass})",
                got[k],
                want[k]
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gemm_matches_the_cpu_for_every_transpose_and_scaling() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("gemm");
    for (m, n, k) in SHAPES {
        for (trans_a, trans_b) in [(false, false), (true, false), (false, true), (true, true)] {
            for (alpha, beta) in [(1.0, 0.0), (0.5, 2.0), (-1.5, 1.0)] {
                let spec = Gemm {
                    m,
                    n,
                    k,
                    trans_a,
                    trans_b,
                    alpha,
                    beta,
                };
                let a = uniform(&mut rng, m * k, -1.0, 1.0);
                let b = uniform(&mut rng, k * n, -1.0, 1.0);
                let c0 = uniform(&mut rng, m * n, -1.0, 1.0);
                let (ga, gb) = (g.upload(&a).unwrap(), g.upload(&b).unwrap());
                let mut gc = g.upload(&c0).unwrap();
                g.gemm(spec, &ga, &gb, &mut gc).unwrap();
                let got = g.download(&gc).unwrap();
                let want = cpu_gemm(&c, spec, &a, &b, &c0);
                check(spec, &a, &b, &c0, &got, &want, 1e-4, &format!("{spec:?}"));
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn beta_zero_overwrites_nan_and_empty_k_scales_c() {
    let g = gpu();
    let (m, n, k) = (5, 6, 4);
    let a = g.upload(&vec![1.0; m * k]).unwrap();
    let b = g.upload(&vec![2.0; k * n]).unwrap();
    let mut c = g.upload(&vec![f32::NAN; m * n]).unwrap();
    let spec = Gemm {
        m,
        n,
        k,
        trans_a: false,
        trans_b: false,
        alpha: 1.0,
        beta: 0.0,
    };
    g.gemm(spec, &a, &b, &mut c).unwrap();
    assert_eq!(g.download(&c).unwrap(), vec![8.0; m * n]);

    let empty = g.alloc(0).unwrap();
    let mut c = g.upload(&vec![3.0; m * n]).unwrap();
    let spec = Gemm {
        m,
        n,
        k: 0,
        trans_a: false,
        trans_b: false,
        alpha: 1.0,
        beta: 0.5,
    };
    g.gemm(spec, &empty, &empty, &mut c).unwrap();
    assert_eq!(g.download(&c).unwrap(), vec![1.5; m * n]);
    let mut c = g.upload(&vec![f32::NAN; m * n]).unwrap();
    g.gemm(Gemm { beta: 0.0, ..spec }, &empty, &empty, &mut c)
        .unwrap();
    assert_eq!(g.download(&c).unwrap(), vec![0.0; m * n]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tf32_is_opt_in_and_close_to_f32() {
    let (g, c) = (gpu(), cpu());
    assert!(!g.tf32(), "TF32 must be off by default");
    let mut rng = rng("tf32");
    let (m, n, k) = (256, 256, 512);
    let a = uniform(&mut rng, m * k, -1.0, 1.0);
    let b = uniform(&mut rng, k * n, -1.0, 1.0);
    let spec = Gemm {
        m,
        n,
        k,
        trans_a: false,
        trans_b: true,
        alpha: 1.0,
        beta: 0.0,
    };
    let want = cpu_gemm(&c, spec, &a, &b, &vec![0.0; m * n]);
    let (ga, gb) = (g.upload(&a).unwrap(), g.upload(&b).unwrap());
    let mut gc = g.alloc(m * n).unwrap();
    g.set_tf32(true);
    g.gemm(spec, &ga, &gb, &mut gc).unwrap();
    let tf32 = g.download(&gc).unwrap();
    g.set_tf32(false);
    check(spec, &a, &b, &[], &tf32, &want, 3e-3, "TF32");
    g.gemm(spec, &ga, &gb, &mut gc).unwrap();
    check(
        spec,
        &a,
        &b,
        &[],
        &g.download(&gc).unwrap(),
        &want,
        1e-4,
        "f32 after TF32",
    );
}
