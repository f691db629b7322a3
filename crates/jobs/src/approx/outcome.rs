//! What a function fit hands back: the fitted network, its figures (`metrics.json`) and the
//! files it wrote.

use nn::Mlp;
use serde::Serialize;
use std::path::PathBuf;
use tensor_core::Backend;
use train::RunMetrics;

/// How well the function was fitted: its sign's accuracy, or the errors in its units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FunctionFit {
    /// A classifier of the function's sign.
    Sign {
        /// Share of the kept points whose sign is predicted right.
        accuracy: f64,
        /// The share of the more common sign (what always guessing it scores).
        baseline_accuracy: f64,
    },
    /// A regression of the function's values, errors in its units.
    Values {
        /// Mean squared error.
        mse: f64,
        /// Mean absolute error.
        mae: f64,
        /// The largest absolute error over the kept points.
        max_error: f32,
        /// Coefficient of determination.
        r2: f64,
    },
}

/// The figures of a function fit, as its `metrics.json` holds them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApproxMetrics {
    /// Sample points trained on.
    pub points_used: usize,
    /// Sample points left out (undefined, infinite, or far outside the rest near a pole).
    pub points_left_out: usize,
    /// How well the kept points are fitted.
    #[serde(flatten)]
    pub fit: FunctionFit,
    /// The figures of every run: loss, steps, seconds, parameters.
    #[serde(flatten)]
    pub run: RunMetrics,
}

/// A finished function fit.
pub struct ApproxOutcome<B: Backend> {
    /// The trained network (raw outputs: standardised values, or the logit of a positive
    /// sign; the run folder's model file holds the transforms).
    pub model: Mlp<B>,
    /// Its figures.
    pub metrics: ApproxMetrics,
    /// The function as typed.
    pub function: String,
    /// The interval fitted.
    pub range: (f64, f64),
    /// `300 steps in 2.1 s`: the run's length and time.
    pub summary: String,
    /// Why training ended (completed, or stopped by the stop flag).
    pub stop_reason: nn::StopReason,
    /// The run folder.
    pub dir: PathBuf,
    /// The files the fit wrote into it besides the run's own record and checkpoint.
    pub files: Vec<PathBuf>,
}

impl<B: Backend> ApproxOutcome<B> {
    /// `sin(x) on [-3, 3]: MSE 1.2e-4, MAE ..., max error ..., R^2 0.99990`, or for a sign
    /// `sign of x on [-3, 3]: accuracy 0.9950 (majority class 0.5000)`.
    pub fn fit_line(&self) -> String {
        let (f, (a, b)) = (&self.function, self.range);
        match self.metrics.fit {
            FunctionFit::Sign {
                accuracy,
                baseline_accuracy,
            } => format!(
                "sign of {f} on [{a}, {b}]: accuracy {accuracy:.4} (majority class {baseline_accuracy:.4})"
            ),
            FunctionFit::Values {
                mse,
                mae,
                max_error,
                r2,
            } => format!(
                "{f} on [{a}, {b}]: MSE {mse:.3e}, MAE {mae:.3e}, max error {max_error:.3e}, R^2 {r2:.5}"
            ),
        }
    }

    /// `300 steps in 2.1 s; results in runs/approx-...`.
    pub fn line(&self) -> String {
        format!("{}; results in {}", self.summary, self.dir.display())
    }
}
