//! Binary logistic regression of a table with more columns than rows, by Newton's method on
//! its dual variables: the weights are `w = X^T a` (the optimum of an L2 penalty lies in the
//! rows' span), so that each step solves systems of the rows' size instead of the columns'.
//!
//! With `f = K a + b` (`K = X X^T`), `p = sigmoid(f)`, `S = diag(p (1 - p))` and the penalty
//! `lambda = 1 / C`, the Newton step of `sum log-loss + lambda |w|^2 / 2` (the intercept not
//! penalised) solves
//!
//! ```text
//! (K + lambda S^-1) da + 1 db = -S^-1 (p - y + lambda a),   1^T (a + da) = 0,
//! ```
//!
//! two solves with one Cholesky factor of the symmetric positive-definite
//! `M = K + lambda S^-1`. It reaches the
//! minimiser of the primal fit ([`super::linear::logistic`]), which tests compare.

use super::linear::{LinearFit, LinearSkipped, NEWTON_STEPS, check_rows, cholesky, solve_factored};

/// The logistic regression of `y` (0 or 1) on the `rows x cols` rows `x`, with `C = c`.
pub fn logistic_dual(
    x: &[f32],
    y: &[f32],
    rows: usize,
    cols: usize,
    c: f64,
) -> Result<LinearFit, LinearSkipped> {
    check_rows(x, rows, cols)?;
    let lambda = 1.0 / c;
    let k = gram(x, rows, cols);
    let (mut a, mut b) = (vec![0.0f64; rows], 0.0f64);
    // Newton steps at most, as the primal fit's.
    for _ in 0..NEWTON_STEPS {
        let f: Vec<f64> = (0..rows)
            .map(|i| b + (0..rows).map(|j| k[i * rows + j] * a[j]).sum::<f64>())
            .collect();
        let p: Vec<f64> = f.iter().map(|&v| 1.0 / (1.0 + (-v).exp())).collect();
        let s: Vec<f64> = p.iter().map(|&p| (p * (1.0 - p)).max(1e-12)).collect();
        let mut m = k.clone();
        (0..rows).for_each(|i| m[i * rows + i] += lambda / s[i]);
        let r: Vec<f64> = (0..rows)
            .map(|i| -(p[i] - f64::from(y[i]) + lambda * a[i]) / s[i])
            .collect();
        let factor = cholesky(m, rows)?;
        let mr = solve_factored(&factor, r, rows);
        let m1 = solve_factored(&factor, vec![1.0; rows], rows);
        let (sum_mr, sum_m1, sum_a) = (
            mr.iter().sum::<f64>(),
            m1.iter().sum::<f64>(),
            a.iter().sum::<f64>(),
        );
        let db = (sum_mr + sum_a) / sum_m1;
        let da: Vec<f64> = mr.iter().zip(&m1).map(|(r, o)| r - o * db).collect();
        let size = da.iter().map(|d| d.abs()).fold(db.abs(), f64::max);
        a.iter_mut().zip(&da).for_each(|(a, d)| *a += d);
        b += db;
        if !size.is_finite() {
            return Err(LinearSkipped::Singular);
        }
        if size < 1e-12 {
            break;
        }
    }
    let mut weights = vec![0.0f64; cols];
    for (row, &ai) in x.chunks_exact(cols.max(1)).zip(&a) {
        weights
            .iter_mut()
            .zip(row)
            .for_each(|(w, &v)| *w += ai * f64::from(v));
    }
    Ok(LinearFit {
        weights,
        bias: vec![b],
    })
}

/// `X X^T` of the `rows x cols` rows `x`, in `f64`.
fn gram(x: &[f32], rows: usize, cols: usize) -> Vec<f64> {
    let mut k = vec![0.0f64; rows * rows];
    for i in 0..rows {
        let xi = &x[i * cols..(i + 1) * cols];
        for j in 0..=i {
            let xj = &x[j * cols..(j + 1) * cols];
            let dot: f64 = xi
                .iter()
                .zip(xj)
                .map(|(&u, &v)| f64::from(u) * f64::from(v))
                .sum();
            k[i * rows + j] = dot;
            k[j * rows + i] = dot;
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tabular::linear::logistic;

    /// On 12 rows of 8 columns (few enough for the primal fit too), the dual fit's weights
    /// and intercept are the primal's.
    #[test]
    fn the_dual_fit_is_the_primal_one() {
        let (rows, cols) = (12, 8);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| (((i * 37) % 23) as f32 / 11.0) - 1.0)
            .collect();
        let y: Vec<f32> = (0..rows).map(|i| ((i * 5) % 3 == 0) as u8 as f32).collect();
        let primal = logistic(&x, &y, rows, cols, 0.7).unwrap();
        let dual = logistic_dual(&x, &y, rows, cols, 0.7).unwrap();
        for (p, d) in primal.weights.iter().zip(&dual.weights) {
            assert!((p - d).abs() < 1e-7, "{primal:?} against {dual:?}");
        }
        assert!(
            (primal.bias[0] - dual.bias[0]).abs() < 1e-7,
            "{primal:?} against {dual:?}"
        );
    }
}
