//! What a finished training run hands back, and its summary line.

use crate::history::Row;
use crate::monitor::LossUnits;
use nn::{TrainLength, TrainReport};
use serde::{Deserialize, Serialize};

/// The figures every run reports in its `metrics.json`, besides its job's own (a job's
/// metrics struct takes them as a `#[serde(flatten)]` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// The last training loss, in `loss_units`.
    pub final_loss: Option<f64>,
    /// What the loss is.
    pub loss_units: String,
    /// Steps of the whole run.
    pub steps: u64,
    /// Seconds of the whole run, resumed parts included.
    pub seconds: f64,
    /// Trainable parameters of the model.
    pub parameters: usize,
}

/// What a finished run hands back.
pub struct Outcome<M> {
    /// The trained model (with early stopping, the best weights).
    pub model: M,
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

impl<M> Outcome<M> {
    /// The same run holding `model` instead of its own, and its own (a job that keeps
    /// another model than the one trained, with the run's figures).
    pub fn with_model<N>(self, model: N) -> (Outcome<N>, M) {
        let Outcome {
            model: own,
            report,
            history,
            loss_units,
            elapsed,
            first_step,
            restored,
        } = self;
        let out = Outcome {
            model,
            report,
            history,
            loss_units,
            elapsed,
            first_step,
            restored,
        };
        (out, own)
    }

    /// `300 steps in 2.1 s`, or after a resume `300 steps in 3.2 s (200 after resuming at
    /// step 100)`: the whole run.
    pub fn summary(&self) -> String {
        let r = &self.report;
        let mut s = format!("{} in {}", count(r.steps, "step"), seconds(self.elapsed));
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

    /// The figures every run reports, for a model of `parameters` trainable parameters.
    pub fn metrics(&self, parameters: usize) -> RunMetrics {
        RunMetrics {
            final_loss: self.final_loss(),
            loss_units: self.loss_units.label.clone(),
            steps: self.report.steps,
            seconds: self.elapsed,
            parameters,
        }
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
    let steps = count(total, "step");
    match (length, batch) {
        (_, None) => format!("{steps} (full batch)"),
        (TrainLength::Epochs(e), Some(b)) => format!(
            "{steps} ({} of {} of {b} rows)",
            count(e, "epoch"),
            count(per_epoch, "batch")
        ),
        (TrainLength::Steps(_), Some(b)) => format!("{steps} (batches of {b} rows)"),
    }
}

/// Formats a duration in seconds for summaries (`250 ms`, `3.2 s`).
pub fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{s:.1} s")
    }
}

/// `1 step`, `300 steps`: a count with its noun, plural when it is not one.
pub fn count(n: u64, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "batch") => format!("{n} batches"),
        _ => format!("{n} {noun}s"),
    }
}

/// The file of a run's figures, in its folder.
pub const METRICS_FILE: &str = "metrics.json";

/// Writes a run's figures (`metrics.json`) to `path`: pretty-printed JSON, fields in the
/// order of their struct, and a final newline.
pub fn write_metrics<T: Serialize + ?Sized>(
    path: &std::path::Path,
    metrics: &T,
) -> crate::Result<()> {
    let text = serde_json::to_string_pretty(metrics)
        .map_err(|e| crate::Error::json(format!("cannot encode {}", path.display()), e))?;
    crate::record::write_file(path, (text + "\n").as_bytes())
}

/// Writes `metrics.json` into `dir` for a run stopped by a signal: the run's figures, then
/// `interrupted: true`, the signal (`interrupted_by`, e.g. `SIGINT`) and, where it was
/// training, the step it stopped at (`interrupted_at_step`).
pub fn write_stopped_metrics(
    dir: &std::path::Path,
    metrics: &impl Serialize,
    signal: &str,
    step: Option<u64>,
) -> crate::Result<()> {
    use serde_json::Value;
    let path = dir.join(METRICS_FILE);
    let encode = |e| crate::Error::json(format!("cannot encode {}", path.display()), e);
    let Value::Object(mut fields) = serde_json::to_value(metrics).map_err(encode)? else {
        return Err(crate::Error::Refused("the metrics are not a record".into()));
    };
    fields.insert("interrupted".into(), Value::Bool(true));
    fields.insert("interrupted_by".into(), Value::from(signal));
    if let Some(step) = step {
        fields.insert("interrupted_at_step".into(), Value::from(step));
    }
    write_metrics(&path, &fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_records_its_signal_and_step() {
        let dir = tempfile::tempdir().unwrap();
        let metrics = serde_json::json!({"loss": 0.5});
        write_stopped_metrics(dir.path(), &metrics, "SIGTERM", Some(7)).unwrap();
        let text = std::fs::read_to_string(dir.path().join(METRICS_FILE)).unwrap();
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        let expected = serde_json::json!({"loss": 0.5, "interrupted": true,
            "interrupted_by": "SIGTERM", "interrupted_at_step": 7});
        assert_eq!(back, expected);
        write_stopped_metrics(dir.path(), &1.0, "SIGINT", None).unwrap_err();
    }

    #[test]
    fn lengths_and_counts_read_naturally() {
        assert_eq!(count(1, "step"), "1 step");
        assert_eq!(count(3, "batch"), "3 batches");
        assert_eq!(seconds(0.25), "250 ms");
        assert_eq!(seconds(3.21), "3.2 s");
        assert_eq!(
            length_text(TrainLength::Epochs(400), 4000, 10, Some(64)),
            "4000 steps (400 epochs of 10 batches of 64 rows)"
        );
        assert_eq!(
            length_text(TrainLength::Steps(300), 300, 1, None),
            "300 steps (full batch)"
        );
    }
}
