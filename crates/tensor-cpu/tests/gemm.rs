//! Matrix products: all four transpose combinations with alpha and beta, on shapes that take
//! each path of the CPU GEMM (plain loop for tiny products, one `matrixmultiply` call, rows
//! or columns split over threads). Tolerance: `SUM_TOL` relative to
//! `|alpha| sum_p |a_ip b_pj| + |beta c_ij|` (see `common/mod.rs`).

mod common;

use common::*;
use tensor_core::{Error, Tensor};

/// (m, k, n): single elements, rows and columns, odd sizes, XOR-sized, medium, large enough
/// to split by rows (m >= n) and by columns (m < n), and an empty shared dimension.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 5, 1),
    (1, 33, 7),
    (7, 33, 1),
    (7, 33, 5),
    (4, 2, 3),
    (4, 3, 1),
    (1, 1000, 1),
    (64, 64, 64),
    (129, 257, 131),
    (300, 100, 200),
    (70, 300, 400),
    (1000, 70, 3),
    (3, 0, 4),
    // Matrix-vector products (n = 1), on one thread and split over threads, with the
    // shared dimension spanning several blocks of rows.
    (300, 37, 1),
    (5000, 129, 1),
    (129, 5000, 1),
];

const SCALARS: &[(f32, f32)] = &[(1.0, 0.0), (0.5, 2.0), (-1.5, 1.0)];

/// `alpha op(A) op(B) + beta C` in f64, and the error scale of each element.
#[allow(clippy::too_many_arguments)]
fn reference(
    (m, k, n): (usize, usize, usize),
    a: &[f32],
    b: &[f32],
    c: &[f32],
    ta: bool,
    tb: bool,
    alpha: f32,
    beta: f32,
) -> (Vec<f64>, Vec<f64>) {
    let at = |i: usize, p: usize| a[if ta { p * m + i } else { i * k + p }] as f64;
    let bt = |p: usize, j: usize| b[if tb { j * k + p } else { p * n + j }] as f64;
    let (mut want, mut scale) = (Vec::new(), Vec::new());
    for i in 0..m {
        for j in 0..n {
            let (mut dot, mut abs) = (0.0, 0.0);
            for p in 0..k {
                dot += at(i, p) * bt(p, j);
                abs += (at(i, p) * bt(p, j)).abs();
            }
            let cij = if beta == 0.0 {
                0.0
            } else {
                beta as f64 * c[i * n + j] as f64
            };
            want.push(alpha as f64 * dot + cij);
            scale.push((alpha.abs() as f64 * abs + cij.abs()).max(1e-30));
        }
    }
    (want, scale)
}

#[test]
fn all_transposes_with_alpha_and_beta_match_f64() {
    let mut r = rng(30);
    for &(m, k, n) in SHAPES {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            for &(alpha, beta) in SCALARS {
                let a_dims = if ta { [k, m] } else { [m, k] };
                let b_dims = if tb { [n, k] } else { [k, n] };
                let a = rand_tensor(&mut r, &a_dims, -1.0, 1.0);
                let b = rand_tensor(&mut r, &b_dims, -1.0, 1.0);
                let mut c = rand_tensor(&mut r, &[m, n], -1.0, 1.0);
                if beta == 0.0 {
                    // beta = 0 overwrites whatever was there, NaN included.
                    c.fill(f32::NAN).unwrap();
                }
                let (want, scale) = reference(
                    (m, k, n),
                    &host(&a),
                    &host(&b),
                    &host(&c),
                    ta,
                    tb,
                    alpha,
                    beta,
                );
                Tensor::matmul_into(&a, &b, &mut c, ta, tb, alpha, beta).unwrap();
                let what = format!("{m}x{k}x{n} ta={ta} tb={tb} alpha={alpha} beta={beta}");
                assert_close_scaled(&host(&c), &want, &scale, SUM_TOL, &what);
            }
        }
    }
}

#[test]
fn matmul_and_matmul_t_agree_with_explicit_transposes() {
    let mut r = rng(31);
    let a = rand_tensor(&mut r, &[37, 19], -1.0, 1.0);
    let b = rand_tensor(&mut r, &[37, 23], -1.0, 1.0);
    let at_b = a.matmul_t(&b, true, false).unwrap();
    assert_eq!(at_b.dims(), [19, 23]);
    let explicit = a.transpose().unwrap().matmul(&b).unwrap();
    let (want, scale) = reference(
        (19, 37, 23),
        &host(&a),
        &host(&b),
        &[],
        true,
        false,
        1.0,
        0.0,
    );
    assert_close_scaled(&host(&at_b), &want, &scale, SUM_TOL, "A^T B");
    assert_close_scaled(&host(&explicit), &want, &scale, SUM_TOL, "transpose(A) B");
    let bt = b.transpose().unwrap();
    let a_bt = a.transpose().unwrap().matmul_t(&bt, false, true).unwrap();
    assert_close_scaled(&host(&a_bt), &want, &scale, SUM_TOL, "A^T (B^T)^T");
}

#[test]
fn small_exact_products() {
    let cpu = cpu();
    let a = Tensor::from_slice(&cpu, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
    let b = Tensor::from_slice(&cpu, &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0], [3, 2]).unwrap();
    assert_eq!(host(&a.matmul(&b).unwrap()), [58.0, 64.0, 139.0, 154.0]);
    let x = Tensor::from_slice(&cpu, &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0], [4, 2]).unwrap();
    let w = Tensor::from_slice(&cpu, &[1.0, -1.0, 2.0, 0.5], [2, 2]).unwrap();
    assert_eq!(
        host(&x.matmul(&w).unwrap()),
        [0.0, 0.0, 2.0, 0.5, 1.0, -1.0, 3.0, -0.5]
    );
    // An empty shared dimension gives beta * C (zeros when beta is 0).
    let e1 = Tensor::zeros(&cpu, [2, 0]).unwrap();
    let e2 = Tensor::zeros(&cpu, [0, 3]).unwrap();
    assert_eq!(host(&e1.matmul(&e2).unwrap()), [0.0; 6]);
    let mut c = Tensor::full(&cpu, [2, 3], 2.0).unwrap();
    Tensor::matmul_into(&e1, &e2, &mut c, false, false, 1.0, 0.5).unwrap();
    assert_eq!(host(&c), [1.0; 6]);
}

#[test]
fn matmul_into_checks_the_output_shape() {
    let mut r = rng(32);
    let a = rand_tensor(&mut r, &[3, 4], -1.0, 1.0);
    let b = rand_tensor(&mut r, &[4, 5], -1.0, 1.0);
    let mut wrong = Tensor::zeros(&cpu(), [5, 3]).unwrap();
    let err = Tensor::matmul_into(&a, &b, &mut wrong, false, false, 1.0, 0.0).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    assert!(
        err.to_string().contains("[3, 5]") && err.to_string().contains("[5, 3]"),
        "{err}"
    );
}
