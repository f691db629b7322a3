//! Matrix products: every transpose, the BLAS meaning of `alpha` and `beta`, empty
//! dimensions, NaN and infinities.

use super::compare::*;
use super::data::*;
use super::reference;
use crate::{Backend, Gemm};

/// `(m, k, n)`: single elements, vectors, odd sizes, XOR-sized, products large enough to be
/// blocked and split over threads (by rows, by columns, and along a long shared dimension, as
/// weight gradients are), matrix-vector products, and products with one long dimension and
/// two short ones (MLP layers over a batch), with partial tiles in each direction.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 7, 1),
    (7, 1, 33),
    (33, 7, 1),
    (1, 33, 7),
    (7, 33, 5),
    (4, 2, 3),
    (1, 1000, 1),
    (64, 64, 64),
    (129, 257, 131),
    (300, 100, 200),
    (70, 300, 400),
    (1000, 70, 3),
    (300, 37, 1),
    (129, 5000, 1),
    (24, 17000, 8),
    (1000, 64, 64),
    (777, 32, 19),
    (1537, 64, 3),
    (1031, 3, 64),
    (37, 64, 2050),
    (5, 13, 777),
    (64, 1000, 64),
    (33, 17000, 37),
];

const TRANSPOSES: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

fn spec(m: usize, n: usize, k: usize, ta: bool, tb: bool, alpha: f32, beta: f32) -> Gemm {
    Gemm {
        m,
        n,
        k,
        trans_a: ta,
        trans_b: tb,
        alpha,
        beta,
    }
}

/// Runs one GEMM from host data and returns `C`.
fn run<B: Backend>(b: &B, s: Gemm, a: &[f32], bm: &[f32], c: &[f32]) -> Vec<f32> {
    let (da, db) = (up(b, a), up(b, bm));
    let mut dc = up(b, c);
    ok(&format!("gemm {s:?}"), b.gemm(s, &da, &db, &mut dc));
    down(b, &dc)
}

/// Runs one GEMM and checks it against the f64 reference.
fn check<B: Backend>(b: &B, s: Gemm, a: &[f32], bm: &[f32], c: &[f32]) {
    let got = run(b, s, a, bm, c);
    assert_close(
        &format!("gemm {s:?}"),
        &got,
        &reference::gemm(s, a, bm, c),
        SUM_TOL,
    );
}

/// Every transpose combination with `alpha`/`beta` of (1, 0), (0.5, 1) and (-1.5, 0.25) on
/// every shape matches the f64 product.
pub fn every_transpose_matches_f64<B: Backend>(b: &B) {
    let mut r = rng("gemm");
    for &(m, k, n) in SHAPES {
        for (ta, tb) in TRANSPOSES {
            for (alpha, beta) in [(1.0, 0.0), (0.5, 1.0), (-1.5, 0.25)] {
                let a = uniform(&mut r, m * k, -1.0, 1.0);
                let bm = uniform(&mut r, k * n, -1.0, 1.0);
                let c = uniform(&mut r, m * n, -1.0, 1.0);
                check(b, spec(m, n, k, ta, tb, alpha, beta), &a, &bm, &c);
            }
        }
    }
}

/// `beta == 0` does not read `C`: NaN and infinities there are overwritten.
pub fn beta_zero_does_not_read_c<B: Backend>(b: &B) {
    let mut r = rng("gemm beta 0");
    for &(m, k, n) in SHAPES {
        let a = uniform(&mut r, m * k, -1.0, 1.0);
        let bm = uniform(&mut r, k * n, -1.0, 1.0);
        let mut c = vec![f32::NAN; m * n];
        if let Some(v) = c.last_mut() {
            *v = f32::INFINITY;
        }
        for (ta, tb) in TRANSPOSES {
            check(b, spec(m, n, k, ta, tb, 1.0, 0.0), &a, &bm, &c);
        }
    }
}

/// `alpha == 0` does not read `A` or `B`: with NaN and infinities in them, `C` becomes
/// `beta * C` (zeros when `beta` is 0 too).
pub fn alpha_zero_does_not_read_a_or_b<B: Backend>(b: &B) {
    let mut r = rng("gemm alpha 0");
    for &(m, k, n) in SHAPES.iter().chain(&[(3, 0, 4)]) {
        let mut a = uniform(&mut r, m * k, -1.0, 1.0);
        let mut bm = uniform(&mut r, k * n, -1.0, 1.0);
        sprinkle(&mut a, &[f32::NAN, f32::INFINITY], 3, &mut r);
        sprinkle(&mut bm, &[f32::NEG_INFINITY, f32::NAN], 3, &mut r);
        let c = uniform(&mut r, m * n, -1.0, 1.0);
        for (ta, tb) in TRANSPOSES {
            for beta in [0.0, 1.0, -2.0] {
                let s = spec(m, n, k, ta, tb, 0.0, beta);
                let got = run(b, s, &a, &bm, &c);
                let want: Vec<f32> = c
                    .iter()
                    .map(|&v| if beta == 0.0 { 0.0 } else { beta * v })
                    .collect();
                assert_same_bits(&format!("gemm {s:?}"), &got, &want);
            }
        }
    }
}

/// With `alpha != 0`, NaN and infinities in `A` and `B` reach exactly the elements of `C`
/// they touch, as in f64 arithmetic (an infinity times 0 is NaN).
pub fn nan_and_inf_propagate<B: Backend>(b: &B) {
    let mut r = rng("gemm specials");
    for &(m, k, n) in SHAPES {
        for (ta, tb) in TRANSPOSES {
            let mut a = uniform(&mut r, m * k, 0.5, 1.0);
            let mut bm = uniform(&mut r, k * n, -1.0, 1.0);
            sprinkle(&mut a, &[f32::NAN], 1, &mut r);
            sprinkle(&mut bm, &[f32::INFINITY, 0.0], 2, &mut r);
            let c = uniform(&mut r, m * n, -1.0, 1.0);
            for (alpha, beta) in [(1.0, 0.0), (-0.5, 1.0)] {
                check(b, spec(m, n, k, ta, tb, alpha, beta), &a, &bm, &c);
            }
        }
    }
}

/// Empty dimensions: nothing to write when `m` or `n` is 0; `C = beta * C` when `k` is 0
/// (zeros, even over NaN, when `beta` is 0).
pub fn empty_dimensions<B: Backend>(b: &B) {
    for &(m, k, n) in &[(0, 3, 4), (3, 4, 0), (0, 0, 0), (3, 0, 4), (1000, 0, 7)] {
        for (ta, tb) in TRANSPOSES {
            for beta in [0.0, 0.5, 1.0] {
                let mut c: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
                if let Some(v) = c.first_mut() {
                    *v = f32::NAN;
                }
                let s = spec(m, n, k, ta, tb, 1.0, beta);
                let got = run(b, s, &vec![1.0; m * k], &vec![1.0; k * n], &c);
                let want: Vec<f32> = c
                    .iter()
                    .map(|&v| if beta == 0.0 { 0.0 } else { beta * v })
                    .collect();
                assert_same_bits(&format!("gemm {s:?}"), &got, &want);
            }
        }
    }
}

/// Buffers of any length but `m * k`, `k * n` and `m * n` are refused.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    let s = spec(2, 3, 4, false, false, 1.0, 0.0);
    let (a, bm, mut c) = (up(b, &[1.0; 8]), up(b, &[1.0; 12]), up(b, &[0.0; 6]));
    ok("gemm 2x4x3", b.gemm(s, &a, &bm, &mut c));
    for (la, lb, lc) in [
        (7, 12, 6),
        (9, 12, 6),
        (8, 11, 6),
        (8, 13, 6),
        (8, 12, 5),
        (8, 12, 7),
    ] {
        let (a, bm, mut c) = (
            up(b, &vec![1.0; la]),
            up(b, &vec![1.0; lb]),
            up(b, &vec![0.0; lc]),
        );
        let what = format!("gemm 2x4x3 with buffers of {la}, {lb} and {lc}");
        assert_buffer_error(&what, "gemm", b.gemm(s, &a, &bm, &mut c));
    }
}
