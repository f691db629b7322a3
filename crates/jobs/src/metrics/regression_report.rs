//! [`RegressionReport`]: the test errors of a regression beside the mean-predictor baseline
//! and the closed-form least-squares fit.

use super::lstsq::{self, LeastSquares, Skipped};
use super::{RegressionMetrics, linear_predict, regression};
use io::Dataset;
use serde::{Serialize, Serializer};

/// The closed-form least-squares reference: its test errors, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// The fit's test errors; `underdetermined` when it is the minimum-norm one of many.
    Fitted {
        /// Test errors of the least-squares coefficients.
        errors: RegressionMetrics,
        /// Fewer training rows than columns + 1.
        underdetermined: bool,
    },
    /// No reference could be computed.
    Skipped(Skipped),
}

/// The figures of a regression on its test rows; serialises to the `metrics.json` entries
/// of regressions (`test_mse`, `baseline_test_mse`, `closed_form_test_mse`, ...).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegressionReport {
    /// The model's errors.
    #[serde(flatten, serialize_with = "prefixed")]
    pub errors: RegressionMetrics,
    /// Test MSE of predicting the mean of the training targets.
    pub baseline_test_mse: f64,
    /// Test R² of that prediction.
    pub baseline_test_r2: f64,
    /// Test MSE of the least-squares fit, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_form_test_mse: Option<f64>,
    /// The least-squares reference.
    #[serde(skip)]
    pub reference: Reference,
    /// The mean predictor's errors.
    #[serde(skip)]
    pub baseline: RegressionMetrics,
}

/// The model's errors as `test_mse`, `test_rmse`, `test_mae`, `test_r2`.
fn prefixed<S: Serializer>(m: &RegressionMetrics, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(4))?;
    map.serialize_entry("test_mse", &m.mse)?;
    map.serialize_entry("test_rmse", &m.rmse)?;
    map.serialize_entry("test_mae", &m.mae)?;
    map.serialize_entry("test_r2", &m.r2)?;
    map.end()
}

impl RegressionReport {
    /// The errors of `pred` (in the targets' units) on `test`, with the baseline and the
    /// least-squares reference fitted on `train`.
    pub fn new(pred: &[f32], train: &Dataset, test: &Dataset) -> Self {
        let errors = regression(pred, &test.y);
        let n = train.y.len().max(1) as f64;
        let mean = train.y.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let baseline = regression(&vec![mean as f32; test.y.len()], &test.y);
        let reference = match lstsq::least_squares(&train.x, &train.y, train.rows, train.n_features)
        {
            Ok(LeastSquares {
                coef,
                underdetermined,
            }) => Reference::Fitted {
                errors: regression(&linear_predict(&coef, &test.x, test.n_features), &test.y),
                underdetermined,
            },
            Err(why) => Reference::Skipped(why),
        };
        let closed_form_test_mse = match &reference {
            Reference::Fitted { errors, .. } => Some(errors.mse),
            Reference::Skipped(_) => None,
        };
        RegressionReport {
            errors,
            baseline_test_mse: baseline.mse,
            baseline_test_r2: baseline.r2,
            closed_form_test_mse,
            reference,
            baseline,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset(x: Vec<f32>, y: Vec<f32>) -> Dataset {
        Dataset::new(x, y.clone(), y.len(), Vec::new(), Vec::new()).unwrap()
    }

    /// An exact line: the least-squares reference has no error, the baseline the variance
    /// of the test targets around the training mean; the JSON keys are `metrics.json`'s.
    #[test]
    fn a_line_is_fitted_exactly_by_the_reference() {
        let train = dataset(vec![0.0, 1.0, 2.0, 3.0], vec![1.0, 3.0, 5.0, 7.0]);
        let test = dataset(vec![4.0, 5.0], vec![9.0, 11.0]);
        let r = RegressionReport::new(&[9.5, 10.5], &train, &test);
        assert!((r.errors.mse - 0.25).abs() < 1e-9);
        assert!(r.closed_form_test_mse.unwrap() < 1e-8);
        // The training mean is 4: errors 5 and 7.
        assert!((r.baseline_test_mse - 37.0).abs() < 1e-9);
        let m = serde_json::to_value(&r).unwrap();
        assert_eq!(m["test_mse"], serde_json::json!(r.errors.mse));
        assert_eq!(m["baseline_test_mse"], serde_json::json!(37.0));
        assert_eq!(m.as_object().unwrap().len(), 7, "{m}");
    }
}
