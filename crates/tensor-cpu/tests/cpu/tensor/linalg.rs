//! `Tensor`'s matrix products: the transpose flags mean what explicit transposes do, small
//! products are exact, and output shapes are checked. Tolerance: `SUM_TOL` relative to
//! `|alpha| sum_p |a_ip b_pj| + |beta c_ij|` (see `common.rs`).

use crate::common::*;
use tensor_core::{Error, Tensor};

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
