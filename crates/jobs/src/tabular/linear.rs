//! Closed-form and Newton fits of linear models on encoded table rows, in f64: ridge
//! regression (as scikit-learn's `Ridge(alpha)`: the intercept is not penalised) and binary
//! logistic regression with an L2 penalty (as `LogisticRegression(C)`), solved by Newton's
//! method. Logistic regression solves `cols + 1` square systems, so it is only tried when
//! [`system_affordable`] says that side is cheap; ridge regression solves that system on a
//! table of more rows than columns, and on a wider table the `rows`-square system of its
//! dual form (the same fit), so that a table of thousands of columns and hundreds of rows
//! keeps its linear candidate without a solve that grows with the cube of the columns.

use crate::metrics::lstsq::{affordable, system_affordable};

/// A fitted linear model: `outputs = x W + b`, with `W` stored `[cols, outputs]` row-major
/// (as a network's linear layer stores it) and a bias per output.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearFit {
    /// The weights, `[cols, outputs]` row-major.
    pub weights: Vec<f64>,
    /// The intercepts, one per output.
    pub bias: Vec<f64>,
}

impl LinearFit {
    /// Outputs per row.
    pub fn width(&self) -> usize {
        self.bias.len()
    }

    /// Input columns.
    pub fn inputs(&self) -> usize {
        self.weights.len() / self.width().max(1)
    }

    /// The model's outputs for each row of row-major `x` (`cols` columns), row by row.
    pub fn outputs(&self, x: &[f32], cols: usize) -> Vec<f64> {
        let k = self.width();
        let mut out = Vec::with_capacity(x.len() / cols.max(1) * k);
        for row in x.chunks_exact(cols.max(1)) {
            let start = out.len();
            out.extend_from_slice(&self.bias);
            for (i, &v) in row.iter().enumerate() {
                let w = &self.weights[i * k..(i + 1) * k];
                out[start..]
                    .iter_mut()
                    .zip(w)
                    .for_each(|(o, w)| *o += f64::from(v) * w);
            }
        }
        out
    }
}

/// Why a linear fit is not available.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LinearSkipped {
    /// The shape is too large for a dense solve.
    #[error("a {0}x{0} solve would take too long")]
    TooCostly(usize),
    /// The system is singular or an input is not finite.
    #[error("the system is singular or holds values that are not finite")]
    Singular,
    /// No rows.
    #[error("there are no rows")]
    Empty,
}

/// Solves `a z = b` for a symmetric positive-definite `a` (`n x n`, row-major) by Cholesky.
pub(super) fn solve_spd(a: Vec<f64>, b: Vec<f64>, n: usize) -> Result<Vec<f64>, LinearSkipped> {
    let factor = cholesky(a, n)?;
    Ok(solve_factored(&factor, b, n))
}

/// The Cholesky factor `L` of a symmetric positive-definite `a` (`n x n`, row-major; `L`
/// in its lower triangle), for [`solve_factored`]; a matrix that is not is singular.
pub(super) fn cholesky(mut a: Vec<f64>, n: usize) -> Result<Vec<f64>, LinearSkipped> {
    for j in 0..n {
        let diagonal = a[j * n + j];
        let mut d = diagonal;
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if !(d > 1e-10 * diagonal.abs() && d.is_finite()) {
            return Err(LinearSkipped::Singular);
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    Ok(a)
}

/// Solves `L L^T z = b` for the Cholesky factor `l` of [`cholesky`].
pub(super) fn solve_factored(l: &[f64], mut b: Vec<f64>, n: usize) -> Vec<f64> {
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i * n + k] * b[k]).sum();
        b[i] = (b[i] - s) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * b[k]).sum();
        b[i] = (b[i] - s) / l[i * n + i];
    }
    b
}

/// The weighted normal equations of `[x, 1]`: `A = sum w_r z_r z_r^T`, `g = sum w_r t_r z_r`
/// with `z_r = [x_r, 1]`; `penalty` is added to the diagonal of the weights (not of the
/// intercept).
fn normal_equations(
    x: &[f32],
    cols: usize,
    weight: impl Fn(usize) -> f64,
    target: impl Fn(usize) -> f64,
    penalty: f64,
) -> (Vec<f64>, Vec<f64>) {
    let n = cols + 1;
    let mut a = vec![0f64; n * n];
    let mut g = vec![0f64; n];
    let mut z = vec![1f64; n];
    for (r, row) in x.chunks_exact(cols.max(1)).enumerate() {
        z.iter_mut()
            .zip(row.iter().take(cols))
            .for_each(|(z, &v)| *z = f64::from(v));
        let (w, t) = (weight(r), target(r));
        for i in 0..n {
            let wi = w * z[i];
            g[i] += wi * t;
            for j in 0..=i {
                a[i * n + j] += wi * z[j];
            }
        }
    }
    for i in 0..n {
        for j in 0..i {
            a[j * n + i] = a[i * n + j];
        }
    }
    (0..cols).for_each(|i| a[i * n + i] += penalty);
    (a, g)
}

/// Newton steps a logistic regression typically takes to converge (5 to 10 on the
/// development tables), which its cost is checked for: on 500 rows of 2,000 columns each
/// step took 3 to 5 s on 2 cores, so the fits of a bagged job's five folds took 100 s where
/// its networks took 2.
pub const TYPICAL_NEWTON_STEPS: usize = 8;

/// Whether a logistic regression whose Newton steps solve `side`-square systems on `rows`
/// rows is cheap enough, for [`TYPICAL_NEWTON_STEPS`] of them.
fn newton_affordable(rows: usize, side: usize) -> bool {
    crate::metrics::lstsq::systems_affordable(rows, side, TYPICAL_NEWTON_STEPS)
}

/// Whether a logistic regression on the dual variables of `rows` rows of `cols` columns
/// ([`super::logistic_dual`]) is cheap enough: the rows' products once, then two
/// `rows`-square solves a Newton step.
fn dual_newton_affordable(rows: usize, cols: usize) -> bool {
    use crate::metrics::lstsq::systems_affordable;
    affordable(rows, cols) && systems_affordable(rows, rows, 2 * TYPICAL_NEWTON_STEPS)
}

/// Errors when the linear fit of `classes` classes (0: ridge regression) on `rows` rows of
/// `cols` columns would be refused as too costly: checked on every training row before the
/// fit on part of them, so that a fit that wins is never refused when refitted.
pub fn check_cost(rows: usize, cols: usize, classes: usize) -> Result<(), LinearSkipped> {
    let (fits, side) = match classes {
        0 if rows <= cols => (affordable(rows, cols), rows),
        0 => (system_affordable(rows, cols + 1), cols + 1),
        2 if rows <= cols => (dual_newton_affordable(rows, cols), rows),
        2 => (newton_affordable(rows, cols + 1), cols + 1),
        k => (newton_affordable(rows, k * (cols + 1)), k * (cols + 1)),
    };
    match fits {
        true => Ok(()),
        false => Err(LinearSkipped::TooCostly(side)),
    }
}

/// Errors when there are no rows, or a `cols + 1` square system on `rows` rows would take
/// too long.
pub(super) fn check_shape(x: &[f32], rows: usize, cols: usize) -> Result<(), LinearSkipped> {
    check_rows(x, rows, cols)?;
    if !system_affordable(rows, cols + 1) {
        return Err(LinearSkipped::TooCostly(cols + 1));
    }
    Ok(())
}

/// Refuses a fit without rows, or with fewer values in `x` than `rows x cols`.
pub(super) fn check_rows(x: &[f32], rows: usize, cols: usize) -> Result<(), LinearSkipped> {
    if rows == 0 || x.len() < rows * cols {
        return Err(LinearSkipped::Empty);
    }
    Ok(())
}

/// Ridge regression in its dual form, for fewer rows than columns: on the centred rows
/// `Xc` and targets `yc` (which leaves the intercept unpenalised), `w = Xc^T a` with
/// `(Xc Xc^T + alpha I) a = yc`, a `rows`-square system; the intercept is
/// `mean(y) - mean(x) w`. The same minimiser as the normal equations.
fn ridge_dual(
    x: &[f32],
    y: &[f32],
    rows: usize,
    cols: usize,
    alpha: f64,
) -> Result<LinearFit, LinearSkipped> {
    if !affordable(rows, cols) {
        return Err(LinearSkipped::TooCostly(rows));
    }
    let n = rows as f64;
    let mut mean = vec![0f64; cols];
    for row in x.chunks_exact(cols).take(rows) {
        mean.iter_mut()
            .zip(row)
            .for_each(|(m, &v)| *m += f64::from(v) / n);
    }
    let centred: Vec<f64> = x
        .chunks_exact(cols)
        .take(rows)
        .flat_map(|row| row.iter().zip(&mean).map(|(&v, m)| f64::from(v) - m))
        .collect();
    let y_mean = y[..rows].iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let mut k = vec![0f64; rows * rows];
    for i in 0..rows {
        let a = &centred[i * cols..(i + 1) * cols];
        for j in 0..=i {
            let b = &centred[j * cols..(j + 1) * cols];
            let dot: f64 = a.iter().zip(b).map(|(a, b)| a * b).sum();
            k[i * rows + j] = dot;
            k[j * rows + i] = dot;
        }
        k[i * rows + i] += alpha;
    }
    let yc: Vec<f64> = y[..rows].iter().map(|&v| f64::from(v) - y_mean).collect();
    let a = solve_spd(k, yc, rows)?;
    let mut weights = vec![0f64; cols];
    for (row, &ai) in centred.chunks_exact(cols).zip(&a) {
        weights.iter_mut().zip(row).for_each(|(w, v)| *w += ai * v);
    }
    let bias = y_mean - mean.iter().zip(&weights).map(|(m, w)| m * w).sum::<f64>();
    if !bias.is_finite() || weights.iter().any(|w| !w.is_finite()) {
        return Err(LinearSkipped::Singular);
    }
    Ok(LinearFit {
        weights,
        bias: vec![bias],
    })
}

/// Ridge regression of `y` on `x` (`rows x cols`): minimises
/// `sum (y - x w - b)^2 + alpha |w|^2`.
pub fn ridge(
    x: &[f32],
    y: &[f32],
    rows: usize,
    cols: usize,
    alpha: f64,
) -> Result<LinearFit, LinearSkipped> {
    check_rows(x, rows, cols)?;
    if rows <= cols && alpha > 0.0 {
        return ridge_dual(x, y, rows, cols, alpha);
    }
    check_shape(x, rows, cols)?;
    let (a, g) = normal_equations(x, cols, |_| 1.0, |r| f64::from(y[r]), alpha);
    let z = solve_spd(a, g, cols + 1)?;
    Ok(LinearFit {
        weights: z[..cols].to_vec(),
        bias: vec![z[cols]],
    })
}

/// Newton steps of [`logistic`] at most; each solves one `(cols + 1)`-square system.
pub(super) const NEWTON_STEPS: usize = 30;

/// Binary logistic regression of the 0/1 labels `y` on `x`: minimises
/// `C sum log-loss + |w|^2 / 2` (scikit-learn's `LogisticRegression(C)`), by Newton's method.
pub fn logistic(
    x: &[f32],
    y: &[f32],
    rows: usize,
    cols: usize,
    c: f64,
) -> Result<LinearFit, LinearSkipped> {
    check_shape(x, rows, cols)?;
    let mut fit = LinearFit {
        weights: vec![0.0; cols],
        bias: vec![0.0],
    };
    let penalty = 1.0 / c;
    for _ in 0..NEWTON_STEPS {
        let p: Vec<f64> = fit
            .outputs(x, cols)
            .iter()
            .map(|&s| 1.0 / (1.0 + (-s).exp()))
            .collect();
        // The Newton step solves H d = -grad, written as the weighted least squares of the
        // working response; H = X^T S X + I / C (weights only), grad = X^T (p - y) + w / C.
        let (h, mut grad) = normal_equations(
            x,
            cols,
            |r| (p[r] * (1.0 - p[r])).max(1e-12),
            |r| {
                let s = (p[r] * (1.0 - p[r])).max(1e-12);
                (f64::from(y[r]) - p[r]) / s
            },
            penalty,
        );
        grad.iter_mut()
            .zip(&fit.weights)
            .for_each(|(g, w)| *g -= penalty * w);
        let step = solve_spd(h, grad, cols + 1)?;
        let size: f64 = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        fit.weights.iter_mut().zip(&step).for_each(|(w, s)| *w += s);
        fit.bias[0] += step[cols];
        if !size.is_finite() {
            return Err(LinearSkipped::Singular);
        }
        if size < 1e-9 {
            break;
        }
    }
    Ok(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact data: ridge with no penalty recovers the coefficients.
    #[test]
    fn ridge_without_penalty_recovers_a_plane() {
        let x: Vec<f32> = (0..40).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
        let y: Vec<f32> = x.chunks(2).map(|r| 2.0 * r[0] - 0.5 * r[1] + 3.0).collect();
        let fit = ridge(&x, &y, 20, 2, 0.0).unwrap();
        assert!((fit.weights[0] - 2.0).abs() < 1e-9, "{fit:?}");
        assert!((fit.weights[1] + 0.5).abs() < 1e-9, "{fit:?}");
        assert!((fit.bias[0] - 3.0).abs() < 1e-9, "{fit:?}");
    }

    /// One column: the ridge slope is sxy / (sxx + alpha) on centred data.
    #[test]
    fn ridge_shrinks_as_the_closed_form_says() {
        let x = [1.0f32, 2.0, 3.0, 4.0];
        let y = [1.0f32, 3.0, 2.0, 5.0];
        let fit = ridge(&x, &y, 4, 1, 2.0).unwrap();
        // mean x 2.5, mean y 2.75; sxx = 5, sxy = 1.5*1.75 + .5*.25 + .5*(-.75) + 1.5*2.25 = 5.5
        let slope = 5.5 / (5.0 + 2.0);
        assert!((fit.weights[0] - slope).abs() < 1e-12, "{fit:?}");
        assert!(
            (fit.bias[0] - (2.75 - 2.5 * slope)).abs() < 1e-12,
            "{fit:?}"
        );
    }

    /// At the optimum the penalised gradient is zero.
    #[test]
    fn logistic_reaches_a_zero_gradient() {
        let x: Vec<f32> = (0..60)
            .map(|i| ((i * 13) % 17) as f32 / 4.0 - 2.0)
            .collect();
        let y: Vec<f32> = x
            .chunks(2)
            .enumerate()
            .map(|(i, r)| f32::from(r[0] - 0.3 * r[1] + 0.2 * ((i % 3) as f32 - 1.0) > 0.0))
            .collect();
        let c = 1.0;
        let fit = logistic(&x, &y, 30, 2, c).unwrap();
        let out = fit.outputs(&x, 2);
        let mut grad = [0f64; 3];
        for (r, s) in out.iter().enumerate() {
            let e = 1.0 / (1.0 + (-s).exp()) - f64::from(y[r]);
            grad[0] += c * e * f64::from(x[2 * r]);
            grad[1] += c * e * f64::from(x[2 * r + 1]);
            grad[2] += c * e;
        }
        grad[0] += fit.weights[0];
        grad[1] += fit.weights[1];
        assert!(grad.iter().all(|g| g.abs() < 1e-8), "{grad:?}");
    }

    /// More columns than rows: the dual form's fit is the normal equations' fit.
    #[test]
    fn wide_ridge_in_its_dual_form_is_the_normal_equations_fit() {
        let (rows, cols) = (7, 19);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 29 + 3) % 23) as f32 / 5.0 - 2.0)
            .collect();
        let y: Vec<f32> = (0..rows).map(|r| (r * r % 5) as f32 + 1.5).collect();
        let fit = ridge(&x, &y, rows, cols, 0.7).unwrap();
        let (a, g) = normal_equations(&x, cols, |_| 1.0, |r| f64::from(y[r]), 0.7);
        let z = solve_spd(a, g, cols + 1).unwrap();
        for (w, z) in fit.weights.iter().zip(&z) {
            assert!((w - z).abs() < 1e-9, "{fit:?} {z:?}");
        }
        assert!((fit.bias[0] - z[cols]).abs() < 1e-9, "{fit:?} {z:?}");
    }

    /// A logistic regression of 4 rows on 3,200 columns would factor 3,201-square systems
    /// (each ~1e10 operations, up to 30 of them): refused before any is summed.
    #[test]
    fn a_logistic_fit_on_far_more_columns_than_rows_is_refused_as_too_costly() {
        let (rows, cols) = (4, 3200);
        let x: Vec<f32> = (0..rows * cols).map(|i| (i % 7) as f32).collect();
        let y = [0.0f32, 1.0, 0.0, 1.0];
        let refused = Err(LinearSkipped::TooCostly(cols + 1));
        assert_eq!(logistic(&x, &y, rows, cols, 1.0), refused);
        // Ridge regression solves its 4-square dual system instead.
        let fit = ridge(&x, &y, rows, cols, 1.0).unwrap();
        assert_eq!(fit.weights.len(), cols);
    }

    #[test]
    fn duplicated_columns_without_penalty_are_singular_and_no_rows_refused() {
        let x = [1.0f32, 1.0, 2.0, 2.0, 3.0, 3.0];
        let y = [1.0f32, 2.0, 3.0];
        assert_eq!(ridge(&x, &y, 3, 2, 0.0), Err(LinearSkipped::Singular));
        assert_eq!(ridge(&[], &[], 0, 2, 1.0), Err(LinearSkipped::Empty));
    }
}
