//! The closed-form least-squares reference for linear models, with a solver whose cost fits
//! the shape: the normal equations (`cols x cols`) when there are more rows than columns, the
//! minimum-norm solution through the rows' Gram matrix (`rows x rows`) when there are fewer,
//! and no solve at all when either would take too long.

/// Floating-point operations above which the reference is skipped (about 10 s on one core).
const MAX_FLOPS: f64 = 1e10;
/// Bytes of the system matrix above which the reference is skipped.
const MAX_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

/// Whether the reference is solved for `rows x cols` (else it is skipped as too costly,
/// before the rows are read).
pub fn affordable(rows: usize, cols: usize) -> bool {
    let s = cols.min(rows) as f64;
    let flops = rows as f64 * cols as f64 * s + s * s * s / 3.0;
    flops <= MAX_FLOPS && s * s * 8.0 <= MAX_BYTES
}

/// Whether a solver that sums `rows` rows into a `side x side` system and factors it is
/// cheap enough: the same bounds as [`affordable`], for a system whose side is not the
/// smaller of the rows and columns (the normal equations of a table with more columns
/// than rows, e.g. each Newton step of a logistic regression).
pub fn system_affordable(rows: usize, side: usize) -> bool {
    systems_affordable(rows, side, 1)
}

/// Whether `count` such systems (the steps of an iterative solver, each summing `rows` rows
/// into a `side x side` system and factoring it) are cheap enough together.
pub fn systems_affordable(rows: usize, side: usize, count: usize) -> bool {
    let s = side as f64;
    let flops = (rows as f64 * s * s + s * s * s / 3.0) * count as f64;
    flops <= MAX_FLOPS && s * s * 8.0 <= MAX_BYTES
}

/// Least-squares coefficients (bias last).
#[derive(Debug, Clone, PartialEq)]
pub struct LeastSquares {
    /// Weights per column, then the bias.
    pub coef: Vec<f64>,
    /// Fewer rows than columns + 1: many coefficient vectors fit the rows exactly; these are
    /// the ones of smallest norm (in standardised units).
    pub underdetermined: bool,
}

/// Why there is no closed-form reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Skipped {
    /// The system is singular (e.g. duplicated columns or rows).
    Singular,
    /// Solving would take about this many operations or bytes of memory: too long.
    TooCostly {
        /// Side of the square system to solve.
        side: usize,
    },
}

/// Solves `y ~ x w + b` for row-major `x` (`rows x cols`), in f64, on centred and scaled
/// columns (well conditioned for raw features such as years and coordinates).
pub fn least_squares(
    x: &[f32],
    y: &[f32],
    rows: usize,
    cols: usize,
) -> Result<LeastSquares, Skipped> {
    if rows == 0 {
        return Err(Skipped::Singular);
    }
    if !affordable(rows, cols) {
        return Err(Skipped::TooCostly {
            side: cols.min(rows),
        });
    }
    let n = rows as f64;
    let width = cols.max(1);
    let mut mean = vec![0f64; cols];
    for row in x.chunks_exact(width).take(rows) {
        mean.iter_mut()
            .zip(row)
            .for_each(|(m, &v)| *m += f64::from(v) / n);
    }
    let mut scale = vec![0f64; cols];
    for row in x.chunks_exact(width).take(rows) {
        for (k, s) in scale.iter_mut().enumerate() {
            *s += (f64::from(row[k]) - mean[k]).powi(2) / n;
        }
    }
    scale
        .iter_mut()
        .for_each(|s| *s = if *s > 0.0 { s.sqrt() } else { 1.0 });
    let y_mean = y.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    // A row in standardised units; the rows are standardised as they are read, never all
    // held at once (a table of millions of rows would need 8 bytes a cell more).
    let standardise = |row: &[f32], out: &mut Vec<f64>| {
        out.clear();
        out.extend((0..cols).map(|k| (f64::from(row[k]) - mean[k]) / scale[k]));
    };
    let x_rows = || x.chunks_exact(width).take(rows);
    let t: Vec<f64> = y.iter().map(|&v| f64::from(v) - y_mean).collect();
    // Centred columns: the bias is y_mean, and the weights solve the centred problem, which
    // has rank at most rows - 1.
    let underdetermined = rows < cols + 1;
    let w = if cols == 0 {
        Vec::new()
    } else if !underdetermined {
        normal_equations(x_rows(), &t, cols, standardise)?
    } else {
        // Fewer rows than columns: the rows, standardised, are smaller than the system.
        let z: Vec<Vec<f64>> = x_rows()
            .map(|row| {
                let mut z = Vec::with_capacity(cols);
                standardise(row, &mut z);
                z
            })
            .collect();
        minimum_norm(&z, &t, cols)?
    };
    let mut coef: Vec<f64> = w.iter().zip(&scale).map(|(w, s)| w / s).collect();
    let bias = y_mean - coef.iter().zip(&mean).map(|(w, m)| w * m).sum::<f64>();
    coef.push(bias);
    Ok(LeastSquares {
        coef,
        underdetermined,
    })
}

/// `(Zᵀ Z) w = Zᵀ t`, `Z`'s rows made one at a time from `x_rows` by `standardise`.
fn normal_equations<'a>(
    x_rows: impl Iterator<Item = &'a [f32]>,
    t: &[f64],
    cols: usize,
    standardise: impl Fn(&[f32], &mut Vec<f64>),
) -> Result<Vec<f64>, Skipped> {
    let mut a = vec![0f64; cols * cols];
    let mut rhs = vec![0f64; cols];
    let mut row = Vec::with_capacity(cols);
    for (x_row, &target) in x_rows.zip(t) {
        standardise(x_row, &mut row);
        for i in 0..cols {
            rhs[i] += row[i] * target;
            for j in 0..cols {
                a[i * cols + j] += row[i] * row[j];
            }
        }
    }
    solve(a, rhs, cols).ok_or(Skipped::Singular)
}

/// The smallest `w` with `Z w = t` in the least-squares sense: `w = Zᵀ a` with
/// `(Z Zᵀ + ε I) a = t`. Centring makes `Z Zᵀ` singular (its rows sum to zero), so a ridge of
/// `1e-10` times its mean diagonal picks the pseudo-inverse solution without changing the fit.
fn minimum_norm(z: &[Vec<f64>], t: &[f64], cols: usize) -> Result<Vec<f64>, Skipped> {
    let rows = z.len();
    let mut g = vec![0f64; rows * rows];
    for i in 0..rows {
        for j in 0..=i {
            let v: f64 = z[i].iter().zip(&z[j]).map(|(a, b)| a * b).sum();
            g[i * rows + j] = v;
            g[j * rows + i] = v;
        }
    }
    let trace: f64 = (0..rows).map(|i| g[i * rows + i]).sum();
    let ridge = 1e-10 * (trace / rows as f64).max(1e-300);
    (0..rows).for_each(|i| g[i * rows + i] += ridge);
    let a = solve(g, t.to_vec(), rows).ok_or(Skipped::Singular)?;
    let mut w = vec![0f64; cols];
    for (row, &ai) in z.iter().zip(&a) {
        w.iter_mut().zip(row).for_each(|(w, &v)| *w += ai * v);
    }
    Ok(w)
}

/// Gaussian elimination with partial pivoting; `None` when singular.
fn solve(mut a: Vec<f64>, mut b: Vec<f64>, d: usize) -> Option<Vec<f64>> {
    let largest = a.iter().fold(0f64, |m, v| m.max(v.abs()));
    for col in 0..d {
        let pivot =
            (col..d).max_by(|&i, &j| a[i * d + col].abs().total_cmp(&a[j * d + col].abs()))?;
        if a[pivot * d + col].abs() <= 1e-13 * largest || a[pivot * d + col] == 0.0 {
            return None;
        }
        for j in 0..d {
            a.swap(col * d + j, pivot * d + j);
        }
        b.swap(col, pivot);
        for r in col + 1..d {
            let f = a[r * d + col] / a[col * d + col];
            for j in col..d {
                a[r * d + j] -= f * a[col * d + j];
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = vec![0f64; d];
    for r in (0..d).rev() {
        let s: f64 = (r + 1..d).map(|j| a[r * d + j] * x[j]).sum();
        x[r] = (b[r] - s) / a[r * d + r];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{linear_predict, regression};

    #[test]
    fn overdetermined_systems_recover_exact_coefficients() {
        // y = 2 x0 - 3 x1 + 0.5
        let x = [0.0, 1.0, 1.0, 0.0, 2.0, 5.0, -1.0, 3.0, 4.0, -2.0];
        let y: Vec<f32> = x.chunks(2).map(|r| 2.0 * r[0] - 3.0 * r[1] + 0.5).collect();
        let fit = least_squares(&x, &y, 5, 2).unwrap();
        let c = &fit.coef;
        assert!(!fit.underdetermined);
        assert!(
            (c[0] - 2.0).abs() < 1e-6 && (c[1] + 3.0).abs() < 1e-6 && (c[2] - 0.5).abs() < 1e-6
        );
        let m = regression(&linear_predict(c, &x, 2), &y);
        assert!(m.mse < 1e-10 && (m.r2 - 1.0).abs() < 1e-9);
    }

    /// Fewer rows than columns: the fit passes through every training row, and the weights
    /// (in standardised units) are the minimum-norm ones, i.e. a combination of the rows.
    #[test]
    fn underdetermined_systems_get_the_minimum_norm_exact_fit() {
        let (rows, cols) = (6, 40);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 7919 % 113) as f32 / 17.0).sin())
            .collect();
        let y: Vec<f32> = (0..rows).map(|r| r as f32 * 0.7 - 1.0).collect();
        let fit = least_squares(&x, &y, rows, cols).unwrap();
        assert!(fit.underdetermined);
        let pred = linear_predict(&fit.coef, &x, cols);
        for (p, t) in pred.iter().zip(&y) {
            assert!((p - t).abs() < 1e-4, "{p} vs {t}");
        }
        // Minimum norm: the standardised weights lie in the span of the standardised rows,
        // so projecting them onto that span changes nothing.
        let n = rows as f64;
        let xs = &x;
        let col = |k: usize| (0..rows).map(move |r| f64::from(xs[r * cols + k]));
        let mean: Vec<f64> = (0..cols).map(|k| col(k).sum::<f64>() / n).collect();
        let sd: Vec<f64> = (0..cols)
            .map(|k| {
                let m = mean[k];
                (col(k).map(|v| (v - m).powi(2)).sum::<f64>() / n).sqrt()
            })
            .collect();
        let z: Vec<Vec<f64>> = (0..rows)
            .map(|r| {
                (0..cols)
                    .map(|k| (f64::from(x[r * cols + k]) - mean[k]) / sd[k])
                    .collect()
            })
            .collect();
        let w: Vec<f64> = (0..cols).map(|k| fit.coef[k] * sd[k]).collect();
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
        let mut g = vec![0f64; rows * rows];
        for i in 0..rows {
            for j in 0..rows {
                g[i * rows + j] = dot(&z[i], &z[j]) + if i == j { 1e-9 } else { 0.0 };
            }
        }
        let zw: Vec<f64> = z.iter().map(|row| dot(row, &w)).collect();
        let a = solve(g, zw, rows).unwrap();
        let projected: Vec<f64> = (0..cols)
            .map(|k| (0..rows).map(|r| a[r] * z[r][k]).sum())
            .collect();
        let off: f64 = w.iter().zip(&projected).map(|(p, q)| (p - q).powi(2)).sum();
        assert!(off.sqrt() < 1e-6 * dot(&w, &w).sqrt(), "{off}");
    }

    #[test]
    fn huge_systems_are_skipped_not_solved() {
        let (rows, cols) = (100_000, 20_000);
        // No data is touched before the cost check, so empty slices are enough.
        assert_eq!(
            least_squares(&[], &[], rows, cols),
            Err(Skipped::TooCostly { side: 20_000 })
        );
        let x = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0];
        let y = [1.0, 2.0, 3.0];
        assert_eq!(least_squares(&x, &y, 3, 2), Err(Skipped::Singular));
    }
}
