//! Divergence: a training loss that is no longer finite (the trainer's own guard) or that has
//! exploded far above the loss of a model that predicts zeros stops the run, naming the step.

use nn::Loss;

/// How many times the zero-prediction loss a training loss may reach before the run counts
/// as diverged. A working model scores below the zero predictor; three orders of magnitude
/// above it, the weights are running away.
const FACTOR: f64 = 1e3;

/// Watches the training losses of one run.
#[derive(Debug, Clone, Copy)]
pub struct Watch {
    /// Loss of predicting zeros everywhere (the model at its start is close to it).
    reference: f64,
    lr: f32,
}

/// The error that stops a diverged run (one line, naming the step).
#[derive(Debug)]
pub struct Diverged {
    step: u64,
    loss: f64,
    reference: f64,
    lr: f32,
}

impl std::fmt::Display for Diverged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "training diverged at step {}: the training loss reached {:.3e}, more than {FACTOR:.0} times the {:.3} of a model that predicts zeros; lower the learning rate (now {})",
            self.step, self.loss, self.reference, self.lr
        )
    }
}

impl std::error::Error for Diverged {}

impl Diverged {
    /// The learning rate the run diverged at.
    pub fn lr(&self) -> f32 {
        self.lr
    }
}

/// The mean square of `values` (0 for none), in f64.
pub fn mean_square(values: &[f32]) -> f64 {
    let n = values.len().max(1) as f64;
    values.iter().map(|&t| f64::from(t).powi(2)).sum::<f64>() / n
}

impl Watch {
    /// A watch for `loss` on targets whose mean square is `mean_square` (`width` values per
    /// row), trained at learning rate `lr`.
    pub fn with_mean_square(loss: Loss, mean_square: f64, width: usize, lr: f32) -> Self {
        let reference = match loss {
            // Predicting zeros: the mean square of the targets.
            Loss::Mse => mean_square,
            // Zero logits: probability 1/2, or 1/k over k classes.
            Loss::BceWithLogits => std::f64::consts::LN_2,
            Loss::SoftmaxCrossEntropy => (width.max(2) as f64).ln(),
        };
        Watch { reference, lr }
    }

    /// Checks the training loss seen at `step`.
    pub fn check(&self, step: u64, loss: f32) -> Result<(), Diverged> {
        let loss = f64::from(loss);
        // Small references (targets near zero) are floored so that noise cannot trip it.
        let limit = FACTOR * self.reference.max(0.1);
        if loss.is_finite() && loss <= limit {
            return Ok(());
        }
        Err(Diverged {
            step,
            loss,
            reference: self.reference,
            lr: self.lr,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_the_zero_prediction_losses() {
        let w = Watch::with_mean_square(Loss::Mse, mean_square(&[1.0, -1.0, 2.0, 0.0]), 1, 0.1);
        assert!((w.reference - 1.5).abs() < 1e-12);
        let w = Watch::with_mean_square(Loss::BceWithLogits, 0.5, 1, 0.1);
        assert!((w.reference - 2f64.ln()).abs() < 1e-12);
        let w = Watch::with_mean_square(Loss::SoftmaxCrossEntropy, 0.0, 4, 0.1);
        assert!((w.reference - 4f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn exploding_and_non_finite_losses_are_divergence() {
        let w = Watch::with_mean_square(Loss::BceWithLogits, 0.5, 1, 1e10);
        assert!(w.check(25, 0.69).is_ok());
        assert!(w.check(25, 600.0).is_ok());
        let e = w.check(50, 3e10).unwrap_err().to_string();
        assert!(
            e.contains("step 50")
                && e.contains("learning rate (now 10000000000)")
                && w.check(50, 3e10).unwrap_err().lr() == 1e10,
            "{e}"
        );
        assert!(w.check(75, f32::NAN).is_err());
        assert!(w.check(75, f32::INFINITY).is_err());
    }
}
