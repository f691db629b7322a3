//! A table job cross-validated: the job trained once per fold, each fold's rows tested by
//! the model trained on the others, the mean of the folds' scores the estimate reported;
//! then the job trained on every row, whose model is kept. The folds' runs are kept in
//! `folds/1`, `folds/2`, ... inside the job's folder.

use super::outcome::{METRICS_FILE, TableJobOutcome, write_json};
use super::{TableJob, TableJobOptions, TableNote, TableReporter};
use crate::Result;
use crate::table::Fold;
use crate::tabular::report::TestFigures;
use serde::Serialize;
use std::path::Path;
use tensor_core::Backend;
use train::Reporter;

/// The folder of the folds' runs, inside the job's.
pub const FOLDS_DIR: &str = "folds";

/// A cross-validation's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossValidation {
    /// The folds.
    pub folds: usize,
    /// What was scored: `accuracy` or `r2`.
    pub measure: &'static str,
    /// Each fold's test score, in fold order.
    pub scores: Vec<f64>,
    /// Their mean: the estimate of the model trained on every row.
    pub mean: f64,
    /// Their standard deviation.
    pub std: f64,
}

impl CrossValidation {
    /// The figures of `scores` of `measure`.
    pub(super) fn of(measure: &'static str, scores: Vec<f64>) -> Self {
        let n = scores.len().max(1) as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n;
        CrossValidation {
            folds: scores.len(),
            measure,
            scores,
            mean,
            std: var.sqrt(),
        }
    }

    /// `cross-validated over 5 folds: accuracy 0.9512 ± 0.0101 (0.9400, ...)`.
    pub fn line(&self) -> String {
        let measure = match self.measure {
            "r2" => "R²",
            other => other,
        };
        let each: Vec<String> = self.scores.iter().map(|s| format!("{s:.4}")).collect();
        format!(
            "cross-validated over {} folds: {measure} {:.4} ± {:.4} ({})",
            self.folds,
            self.mean,
            self.std,
            each.join(", ")
        )
    }
}

/// Runs the job of `options` (whose `folds` are set, checked by
/// [`TableJobOptions::check`]) once per fold in `dir/folds/N`, then on every row in `dir`
/// (a table of more rows than its `folds_up_to_rows` is trained once instead, its
/// `test_fraction` held out);
/// returns the last run's outcome with the folds' figures in its metrics (and its
/// `metrics.json`). A run stopped by the stop flag ends the job there, with that run's
/// outcome.
pub fn cross_validate<B: Backend>(
    options: &TableJobOptions,
    backend: &B,
    dir: &Path,
    reporter: &mut dyn TableReporter,
) -> Result<TableJobOutcome<B>> {
    options.check()?;
    let limit = options.data.folds_up_to_rows;
    if limit.is_some_and(|most| clearly_more_rows(&options.data.data, most)) {
        return train_once(options, backend, dir, reporter);
    }
    if options.bags_over_folds() {
        return match super::bagged::bag(options, backend, dir, limit, &mut *reporter)? {
            Some(out) => Ok(out),
            None => train_once(options, backend, dir, reporter),
        };
    }
    let folds = options.data.folds.unwrap_or(0);
    let mut scores = Vec::with_capacity(folds);
    let mut measure = "accuracy";
    for index in 0..folds {
        let mut fold = options.clone();
        fold.data.folds = None;
        fold.data.fold = Some(Fold { index, of: folds });
        let shown = match index {
            0 => Shown::FirstFold,
            _ => Shown::OtherFold,
        };
        let job = TableJob::prepare(&fold, &mut Folds(reporter, shown))?;
        if index == 0 && too_many_rows(&job, limit) {
            // The fold's table is let go before the table is read again.
            drop(job);
            return train_once(options, backend, dir, reporter);
        }
        reporter
            .runs()
            .status(&format!("fold {} of {folds}", index + 1));
        let run = dir.join(FOLDS_DIR).join((index + 1).to_string());
        let out = job.train(backend, &run, &mut Folds(reporter, Shown::OtherFold))?;
        if out.stop_reason == nn::StopReason::Interrupted {
            return Ok(out);
        }
        let (what, score) = score(&out.metrics.test);
        measure = what;
        scores.push(score);
    }
    let mut every = options.clone();
    every.data.folds = None;
    every.data.test_fraction = 0.0;
    reporter.runs().status("the model, on every row");
    let job = TableJob::prepare(&every, &mut Folds(reporter, Shown::EveryRow))?;
    let mut out = job.train(backend, dir, reporter)?;
    out.metrics.cross_validation = Some(CrossValidation::of(measure, scores));
    write_json(&out.metrics, &dir.join(METRICS_FILE))?;
    Ok(out)
}

/// The job of `options` trained once, its test fraction held out: a table too large to
/// cross-validate.
fn train_once<B: Backend>(
    options: &TableJobOptions,
    backend: &B,
    dir: &Path,
    reporter: &mut dyn TableReporter,
) -> Result<TableJobOutcome<B>> {
    let mut once = options.clone();
    once.data.folds = None;
    TableJob::prepare(&once, reporter)?.train(backend, dir, reporter)
}

/// Whether the text table in `path` holds, by the estimate from its size and first lines
/// ([`io::table::estimate_text_table`]), more than twice `most` rows: then it is not read
/// for a first fold only to find it too large. Nearer the limit the rows read decide.
fn clearly_more_rows(path: &Path, most: usize) -> bool {
    !io::table::is_parquet(path)
        && io::table::estimate_text_table(path).is_some_and(|e| e.rows > 2 * most as u64)
}

/// Whether the table of `job` has more rows than `limit` (`None`: no limit).
fn too_many_rows(job: &TableJob, limit: Option<usize>) -> bool {
    let p = job.prepared();
    let parts = [Some(&p.train), p.val.as_ref(), p.test.as_ref()];
    let rows: usize = parts.iter().flatten().map(|d| d.rows).sum();
    limit.is_some_and(|most| rows > most)
}

/// A fold's test score: accuracy, or R² (0 where undefined, a constant fold).
fn score(test: &Option<TestFigures>) -> (&'static str, f64) {
    match test {
        Some(TestFigures::Classes(r)) => ("accuracy", r.accuracy),
        Some(TestFigures::Regression(r)) if r.errors.r2.is_finite() => ("r2", r.errors.r2),
        _ => ("r2", 0.0),
    }
}

/// Which notes of a cross-validation's runs are shown: each once.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// The first fold: the table as read (before any training) and a divergence.
    FirstFold,
    /// Another fold: a divergence only.
    OtherFold,
    /// The run on every row, as it prepares: every note but the table as read (the first
    /// fold showed it).
    EveryRow,
}

/// A reporter of a cross-validation's runs: their progress shown, their notes as
/// [`Shown`] says.
struct Folds<'a>(&'a mut dyn TableReporter, Shown);

impl TableReporter for Folds<'_> {
    fn runs(&mut self) -> &mut dyn Reporter {
        self.0.runs()
    }

    fn note(&mut self, note: TableNote<'_>) {
        let shown = match (&note, self.1) {
            (TableNote::Diverged { .. }, Shown::FirstFold | Shown::OtherFold) => true,
            (TableNote::Read { .. }, shown) => shown == Shown::FirstFold,
            (_, shown) => shown == Shown::EveryRow,
        };
        if shown {
            self.0.note(note);
        }
    }
}
