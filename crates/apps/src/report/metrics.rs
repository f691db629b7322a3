//! Quality figures for regression and classification, and the least-squares reference.

use serde::Serialize;

/// Regression errors on a test set.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct RegressionMetrics {
    /// Mean squared error.
    pub mse: f64,
    /// Root of the mean squared error.
    pub rmse: f64,
    /// Mean absolute error.
    pub mae: f64,
    /// Coefficient of determination.
    pub r2: f64,
}

/// Errors of `pred` against `truth`.
pub fn regression(pred: &[f32], truth: &[f32]) -> RegressionMetrics {
    let n = truth.len().max(1) as f64;
    let mean = truth.iter().map(|&t| t as f64).sum::<f64>() / n;
    let (mut se, mut ae, mut tot) = (0.0, 0.0, 0.0);
    for (&p, &t) in pred.iter().zip(truth) {
        let d = p as f64 - t as f64;
        se += d * d;
        ae += d.abs();
        tot += (t as f64 - mean).powi(2);
    }
    let mse = se / n;
    RegressionMetrics {
        mse,
        rmse: mse.sqrt(),
        mae: ae / n,
        r2: if tot > 0.0 { 1.0 - se / tot } else { 0.0 },
    }
}

/// Binary classification figures (positive class: 1).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct ClassificationMetrics {
    /// Share of rows classified right.
    pub accuracy: f64,
    /// Of the rows predicted positive, the share that are.
    pub precision: f64,
    /// Of the positive rows, the share predicted positive.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Accuracy of always answering the majority class of the truth.
    pub baseline_accuracy: f64,
    /// Confusion matrix [[true negatives, false positives], [false negatives, true positives]].
    pub confusion: [[usize; 2]; 2],
}

/// Figures for predicted labels against true labels (both 0 or 1).
pub fn binary_classification(pred: &[f32], truth: &[f32]) -> ClassificationMetrics {
    let mut c = [[0usize; 2]; 2];
    for (&p, &t) in pred.iter().zip(truth) {
        c[(t >= 0.5) as usize][(p >= 0.5) as usize] += 1;
    }
    let total = (c[0][0] + c[0][1] + c[1][0] + c[1][1]).max(1) as f64;
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let tp = c[1][1];
    let precision = ratio(tp, tp + c[0][1]);
    let recall = ratio(tp, tp + c[1][0]);
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    let positives = c[1][0] + c[1][1];
    let negatives = c[0][0] + c[0][1];
    ClassificationMetrics {
        accuracy: (c[0][0] + tp) as f64 / total,
        precision,
        recall,
        f1,
        baseline_accuracy: positives.max(negatives) as f64 / total,
        confusion: c,
    }
}

/// Accuracy of multi-class predictions (class indices as f32).
pub fn multiclass_accuracy(pred: &[f32], truth: &[f32]) -> f64 {
    let right = pred.iter().zip(truth).filter(|(p, t)| p == t).count();
    right as f64 / truth.len().max(1) as f64
}

/// Least-squares coefficients (bias last) of `y ~ x * w + b`, solved in f64 through the
/// normal equations of centred and scaled columns (well conditioned even for raw features
/// such as years and coordinates); `None` when the system is singular.
pub fn least_squares(x: &[f32], y: &[f32], rows: usize, cols: usize) -> Option<Vec<f64>> {
    if rows == 0 {
        return None;
    }
    let n = rows as f64;
    let mut mean = vec![0f64; cols];
    for r in x.chunks_exact(cols.max(1)).take(rows) {
        mean.iter_mut()
            .zip(r)
            .for_each(|(m, &v)| *m += v as f64 / n);
    }
    let mut scale = vec![0f64; cols];
    for r in x.chunks_exact(cols.max(1)).take(rows) {
        for c in 0..cols {
            scale[c] += (r[c] as f64 - mean[c]).powi(2) / n;
        }
    }
    scale
        .iter_mut()
        .for_each(|s| *s = if *s > 0.0 { s.sqrt() } else { 1.0 });
    let y_mean = y.iter().map(|&v| v as f64).sum::<f64>() / n;
    let mut a = vec![0f64; cols * cols];
    let mut rhs = vec![0f64; cols];
    let mut z = vec![0f64; cols];
    for (r, &t) in x.chunks_exact(cols.max(1)).zip(y).take(rows) {
        for c in 0..cols {
            z[c] = (r[c] as f64 - mean[c]) / scale[c];
        }
        for i in 0..cols {
            rhs[i] += z[i] * (t as f64 - y_mean);
            for j in 0..cols {
                a[i * cols + j] += z[i] * z[j];
            }
        }
    }
    let w = if cols == 0 {
        Vec::new()
    } else {
        solve(a, rhs, cols)?
    };
    let mut coef: Vec<f64> = w.iter().zip(&scale).map(|(w, s)| w / s).collect();
    let bias = y_mean - coef.iter().zip(&mean).map(|(w, m)| w * m).sum::<f64>();
    coef.push(bias);
    Some(coef)
}

/// Predictions of least-squares coefficients (bias last).
pub fn linear_predict(coef: &[f64], x: &[f32], cols: usize) -> Vec<f32> {
    x.chunks_exact(cols.max(1))
        .map(|r| {
            let s: f64 = r.iter().zip(coef).map(|(&v, &w)| v as f64 * w).sum();
            (s + coef[cols]) as f32
        })
        .collect()
}

/// Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<f64>, mut b: Vec<f64>, d: usize) -> Option<Vec<f64>> {
    for col in 0..d {
        let pivot =
            (col..d).max_by(|&i, &j| a[i * d + col].abs().total_cmp(&a[j * d + col].abs()))?;
        if a[pivot * d + col].abs() < 1e-300 {
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

    #[test]
    fn least_squares_recovers_exact_coefficients() {
        // y = 2 x0 - 3 x1 + 0.5
        let x = [0.0, 1.0, 1.0, 0.0, 2.0, 5.0, -1.0, 3.0, 4.0, -2.0];
        let y: Vec<f32> = x.chunks(2).map(|r| 2.0 * r[0] - 3.0 * r[1] + 0.5).collect();
        let c = least_squares(&x, &y, 5, 2).unwrap();
        assert!(
            (c[0] - 2.0).abs() < 1e-6 && (c[1] + 3.0).abs() < 1e-6 && (c[2] - 0.5).abs() < 1e-6
        );
        let m = regression(&linear_predict(&c, &x, 2), &y);
        assert!(m.mse < 1e-10 && (m.r2 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn classification_figures_match_hand_counts() {
        let truth = [1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let pred = [1.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let m = binary_classification(&pred, &truth);
        assert_eq!(m.confusion, [[3, 1], [1, 1]]);
        assert!((m.accuracy - 4.0 / 6.0).abs() < 1e-12);
        assert!((m.precision - 0.5).abs() < 1e-12 && (m.recall - 0.5).abs() < 1e-12);
        assert!((m.f1 - 0.5).abs() < 1e-12);
        assert!((m.baseline_accuracy - 4.0 / 6.0).abs() < 1e-12);
    }
}
