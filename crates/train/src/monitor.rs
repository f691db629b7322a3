//! Watches a training run through the trainer's events: records every logged step for
//! `history.csv`, shows progress, and keeps the best weights for early stopping.

use crate::history::Row;
use crate::report::{Reading, Reporter};
use nn::{Loss, LrSchedule, NamedArray, StopReason, TrainEvent, TrainerState};
use std::time::Instant;
use tensor_core::Backend;

/// How a run reports its loss: the trainer's loss times `scale`, called `label`.
///
/// Regression targets are standardised for training; with `scale` the variance of the
/// target, the mean squared error is reported in the target's own units (squared).
#[derive(Debug, Clone, PartialEq)]
pub struct LossUnits {
    /// Factor from the trainer's loss to the reported one.
    pub scale: f64,
    /// What the reported number is, e.g. "MSE (target units²)".
    pub label: String,
}

impl LossUnits {
    /// The loss as the trainer computes it, named after its kind.
    pub fn plain(loss: Loss) -> Self {
        let label = match loss {
            Loss::Mse => "MSE",
            Loss::BceWithLogits => "binary cross-entropy",
            Loss::SoftmaxCrossEntropy => "cross-entropy",
        };
        LossUnits {
            scale: 1.0,
            label: label.into(),
        }
    }

    /// A mean squared error of standardised targets, reported in the target's units: the
    /// standardised loss times the target's variance (`std^2`).
    pub fn target_mse(std: f32) -> Self {
        LossUnits {
            scale: f64::from(std) * f64::from(std),
            label: "MSE (target units²)".into(),
        }
    }

    /// The mean squared error of image fits: pixel values run from 0 (black) to 1 (white).
    pub fn pixels() -> Self {
        LossUnits {
            scale: 1.0,
            label: "MSE (pixel values 0-1)".into(),
        }
    }
}

/// The weights of the best evaluation so far.
pub struct Best {
    /// The monitored loss (validation loss, or training loss without validation), as the
    /// trainer computes it.
    pub loss: f32,
    /// The step it was reached at.
    pub step: u64,
    /// The model's parameters then.
    pub state: Vec<NamedArray>,
}

/// The observer of one `fit` call.
pub struct Monitor<'r> {
    rows: Vec<Row>,
    started: Instant,
    elapsed_before: f64,
    units: LossUnits,
    steps_per_epoch: u64,
    schedule: LrSchedule,
    reporter: &'r mut dyn Reporter,
    keep_best: bool,
    best: Option<Best>,
    latest_val: Option<f64>,
}

impl<'r> Monitor<'r> {
    /// A monitor continuing `earlier` rows (of a resumed run; empty for a fresh one).
    pub fn new(
        earlier: Vec<Row>,
        units: LossUnits,
        steps_per_epoch: u64,
        schedule: LrSchedule,
        reporter: &'r mut dyn Reporter,
        keep_best: bool,
    ) -> Self {
        let elapsed_before = earlier.last().map_or(0.0, |r| r.elapsed);
        let latest_val = earlier.iter().rev().find_map(|r| r.val_loss);
        Monitor {
            rows: earlier,
            started: Instant::now(),
            elapsed_before,
            units,
            steps_per_epoch: steps_per_epoch.max(1),
            schedule,
            reporter,
            keep_best,
            best: None,
            latest_val,
        }
    }

    /// Seconds of the whole run so far (earlier parts included).
    pub fn elapsed(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64()
    }

    fn scaled(&self, v: f32) -> Option<f64> {
        v.is_finite().then(|| f64::from(v) * self.units.scale)
    }

    /// The row of `step`, added at the end when it is new.
    fn row(&mut self, step: u64) -> &mut Row {
        let elapsed = self.elapsed();
        if self.rows.last().map(|r| r.step) != Some(step) {
            self.rows.push(Row {
                step,
                epoch: step as f64 / self.steps_per_epoch as f64,
                train_loss: None,
                val_loss: None,
                lr: f64::from(self.schedule.lr(step.saturating_sub(1))),
                elapsed,
            });
        }
        let last = self.rows.len() - 1;
        &mut self.rows[last]
    }

    /// Records an event of the trainer (called from its callback).
    pub fn observe<B: Backend, M: nn::Model<B>>(
        &mut self,
        event: &TrainEvent,
        model: &M,
        state: &TrainerState,
    ) -> nn::Result<()> {
        match *event {
            TrainEvent::Step { step, loss, lr, .. } => {
                let loss = self.scaled(loss);
                let row = self.row(step);
                row.train_loss = loss;
                row.lr = f64::from(lr);
            }
            TrainEvent::Epoch(m) => {
                let (train, val) = (
                    state.last_loss.and_then(|l| self.scaled(l)),
                    m.val_loss.and_then(|v| self.scaled(v)),
                );
                let row = self.row(m.step);
                row.train_loss = train;
                row.val_loss = val;
                row.lr = f64::from(m.lr);
                if val.is_some() {
                    self.latest_val = val;
                }
                let monitored = m.val_loss.unwrap_or(m.train_loss);
                let better = self.best.as_ref().is_none_or(|b| monitored < b.loss);
                if self.keep_best && monitored.is_finite() && better {
                    self.best = Some(Best {
                        loss: monitored,
                        step: m.step,
                        state: model.export_state()?,
                    });
                }
            }
            TrainEvent::End { step, reason } => {
                // A completed run read its loss back at its last step; an interrupted one
                // may not have, so it adds no row.
                let fresh = matches!(reason, StopReason::Completed | StopReason::EarlyStopping);
                if fresh && self.rows.last().map(|r| r.step) != Some(step) {
                    let loss = state.last_loss.and_then(|l| self.scaled(l));
                    self.row(step).train_loss = loss;
                }
            }
        }
        if let Some(last) = self.rows.last() {
            let reading = self.reading(last);
            self.reporter.progress(&reading);
        }
        Ok(())
    }

    fn reading(&self, row: &Row) -> Reading {
        Reading {
            step: row.step,
            loss: row.train_loss,
            val: self.latest_val,
            lr: row.lr,
        }
    }

    /// Tells the reporter that the run ended.
    pub fn finish(&mut self) {
        let last = self.rows.last().map(|r| self.reading(r));
        self.reporter.finish(last.as_ref());
    }

    /// The best weights seen (only kept for early stopping).
    pub fn take_best(&mut self) -> Option<Best> {
        self.best.take()
    }

    /// The rows so far.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Hands the rows over.
    pub fn into_rows(self) -> Vec<Row> {
        self.rows
    }
}

/// Steps between logged points: the largest of 1, 2, 2.5, 5 times a power of ten (so that
/// checkpoint intervals such as 500 stay multiples of it) giving at least 100 points.
pub fn log_interval(total_steps: u64) -> u64 {
    let target = (total_steps / 100).max(1);
    let mut best = 1;
    let mut power = 1u64;
    while power <= target {
        for m in [1, 2, 5] {
            if m * power <= target {
                best = best.max(m * power);
            }
        }
        if power >= 10 && power / 10 * 25 <= target {
            best = best.max(power / 10 * 25);
        }
        power = power.saturating_mul(10);
    }
    best
}

/// Greatest common divisor (0 counts as "no constraint").
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_give_at_least_a_hundred_points() {
        for total in [
            1u64, 50, 99, 100, 250, 300, 1000, 2000, 3000, 4000, 12_345, 1_000_000,
        ] {
            let every = log_interval(total);
            assert!(total / every >= 100 || every == 1, "{total}: every {every}");
            assert!(total / every <= 250 || every == 1, "{total}: every {every}");
        }
        assert_eq!(log_interval(300), 2);
        assert_eq!(log_interval(3000), 25);
        assert_eq!(log_interval(2000), 20);
        assert_eq!(log_interval(60_000), 500);
    }

    #[test]
    fn greatest_common_divisors() {
        assert_eq!(gcd(25, 500), 25);
        assert_eq!(gcd(20, 0), 20);
        assert_eq!(gcd(6, 4), 2);
    }
}
