//! Quality figures of a trained model on its test rows, as typed records that serialise to
//! the entries of `metrics.json`: regression errors ([`regression`]) with the mean-predictor
//! baseline and the closed-form least-squares reference ([`RegressionReport`], [`lstsq`]),
//! binary figures ([`binary_classification`]) and the per-class report of classifiers
//! ([`ClassReport`]).

mod classes;
mod coefficients;
pub mod lstsq;
mod picture;
mod regression_report;

pub use classes::{ClassFigures, ClassReport, predicted_classes};
pub use coefficients::Coefficients;
pub use picture::{EXACT_PSNR, PictureScores, SPECKLE_LEVELS, UNDER_TRAINED, under_trained};
pub use regression_report::{Reference, RegressionReport};

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
    /// Coefficient of determination; NaN (`null` in JSON) when the truth is constant, where
    /// it is undefined.
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
        r2: if tot > 0.0 { 1.0 - se / tot } else { f64::NAN },
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

/// Predictions of least-squares coefficients (bias last).
pub fn linear_predict(coef: &[f64], x: &[f32], cols: usize) -> Vec<f32> {
    x.chunks_exact(cols.max(1))
        .map(|r| {
            let s: f64 = r.iter().zip(coef).map(|(&v, &w)| v as f64 * w).sum();
            (s + coef[cols]) as f32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
