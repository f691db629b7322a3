//! What a finished training run hands back, its summary line and its loss chart.

use crate::monitor::LossUnits;
use crate::report::history::Row;
use crate::report::plot::{Chart, Series, line_chart};
use anyhow::Result;
use nn::{Mlp, TrainLength, TrainReport};
use std::path::Path;
use tensor_core::Backend;

/// What a finished run hands back.
pub struct Outcome<B: Backend> {
    /// The trained model (with early stopping, the best weights).
    pub model: Mlp<B>,
    /// The trainer's report.
    pub report: TrainReport,
    /// Every logged step of the whole run (`history.csv`), losses in `loss_units`.
    pub history: Vec<Row>,
    /// How losses are reported.
    pub loss_units: LossUnits,
    /// Seconds of the whole run, resumed parts included.
    pub elapsed: f64,
    /// The step this invocation started from (0 for a fresh run).
    pub first_step: u64,
    /// With early stopping: the step whose weights were restored and its monitored loss
    /// (in `loss_units`).
    pub restored: Option<(u64, f64)>,
}

impl<B: Backend> Outcome<B> {
    /// `300 steps in 2.1 s`, or after a resume `300 steps in 3.2 s (200 after resuming at
    /// step 100)`: the whole run.
    pub fn summary(&self) -> String {
        let r = &self.report;
        let mut s = format!(
            "{} in {}",
            crate::jobs::count(r.steps, "step"),
            crate::jobs::seconds(self.elapsed)
        );
        if self.first_step > 0 {
            s += &format!(
                " ({} after resuming at step {})",
                r.steps_run, self.first_step
            );
        }
        if r.stopped_early {
            s += "; stopped early";
        }
        if let Some((step, loss)) = self.restored {
            s += &format!(
                "; kept the best weights, of step {step} ({} {} {loss:.4e})",
                if r.final_val_loss.is_some() {
                    "validation"
                } else {
                    "training"
                },
                self.loss_units.label
            );
        }
        s
    }

    /// The last training loss, in `loss_units`.
    pub fn final_loss(&self) -> Option<f64> {
        self.report
            .final_train_loss
            .map(|l| f64::from(l) * self.loss_units.scale)
    }
}

/// `4000 steps (400 epochs of 10 batches of 64 rows)`, `300 steps (full batch)`.
pub fn length_text(
    length: TrainLength,
    total: u64,
    per_epoch: u64,
    batch: Option<usize>,
) -> String {
    let steps = crate::jobs::count(total, "step");
    match (length, batch) {
        (_, None) => format!("{steps} (full batch)"),
        (TrainLength::Epochs(e), Some(b)) => format!(
            "{steps} ({} of {} of {b} rows)",
            crate::jobs::count(e, "epoch"),
            crate::jobs::count(per_epoch, "batch")
        ),
        (TrainLength::Steps(_), Some(b)) => format!("{steps} (batches of {b} rows)"),
    }
}

/// Draws `loss.png` from the rows of `history.csv`: training and validation loss per step.
pub fn draw_loss(dir: &Path, rows: &[Row], units: &LossUnits) -> Result<()> {
    let train: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| r.train_loss.map(|l| (r.step as f64, l)))
        .collect();
    let val: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| r.val_loss.map(|v| (r.step as f64, v)))
        .collect();
    let mut series = vec![Series {
        name: "training".into(),
        points: train,
    }];
    if !val.is_empty() {
        series.push(Series {
            name: "validation".into(),
            points: val,
        });
    }
    let chart = Chart {
        title: "Loss".into(),
        x_label: "step".into(),
        y_label: units.label.clone(),
        log_y: true,
        integer_x: true,
        wide_first: false,
    };
    line_chart(&dir.join("loss.png"), &chart, &series)
}
