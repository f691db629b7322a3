//! The text of a table job's report, line by line, as `iron-learn linreg`, `logreg` and
//! `mlp` print it: [`TableNote::lines`] for the notes on the way (the table as read and
//! encoded, each column's type and encoding) and [`TableJobOutcome::lines`] for what the
//! job returns (the model kept and why, the test figures, a linear model's coefficients by
//! feature name, where the results are). The caller prints the lines.

use super::outcome::{METRICS_FILE, Selection, TableJobOutcome};
use super::test_text::{
    RegressionRows, TestedModel, class_report_lines, figure, regression_report_lines,
};
use super::{TableModel, TableNote};
use crate::metrics::Coefficients;
use crate::table::{Prepared, SchemaReport};
use crate::tabular::Kept;
use crate::tabular::auto::MIN_VAL_ROWS;
use crate::tabular::report::TestFigures;
use std::path::Path;
use tensor_core::Backend;

/// The coefficients listed by name; the others are counted.
const SHOWN_COEFFICIENTS: usize = 20;

/// The words by which the notes name the options a reader may change: the library's own,
/// or a command line's flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionNames {
    /// Put before a task's name: `the task` gives "the task regression reads it the other
    /// way".
    pub task: &'static str,
    /// Balanced classes: `balanced classes` gives "note: balanced classes: each class
    /// repeated to ...".
    pub balanced: &'static str,
}

impl Default for OptionNames {
    /// The library's words.
    fn default() -> Self {
        OptionNames {
            task: "the task",
            balanced: "balanced classes",
        }
    }
}

impl TableNote<'_> {
    /// The note's lines, naming the options by `names`.
    pub fn lines(&self, names: OptionNames) -> Vec<String> {
        match *self {
            TableNote::Read {
                data,
                prepared,
                seconds,
            } => read_lines(data, prepared, seconds, names),
            TableNote::Balanced { most, rows } => vec![format!(
                "note: {}: each class repeated to {most} training rows ({rows} in all)",
                names.balanced
            )],
            TableNote::PiecewiseSkipped { bins } => vec![format!(
                "note: model auto: the rows piecewise-linear in {bins} bins would not fit in memory; no network on them"
            )],
            TableNote::SideBySide { dirs } => {
                let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                vec![format!(
                    "training {} more network{} at the same time, progress not shown: {}",
                    dirs.len(),
                    if dirs.len() == 1 { "" } else { "s" },
                    names.join(", ")
                )]
            }
            TableNote::Diverged { dir, reason } => vec![format!(
                "note: model auto: the network in {} diverged ({reason}); it drops out of the comparison",
                dir.display()
            )],
            TableNote::Stopped { dir, step } => vec![format!(
                "stopped at step {step}; the run in {} can be resumed",
                dir.display()
            )],
            TableNote::OneSplit { rows, folds } => vec![format!(
                "note: {rows} training rows are too few for {folds} folds of at least 2 rows: trained once, on one split"
            )],
        }
    }
}

/// What was done to the rows of `data`, each column's type and encoding, and the time it
/// took.
fn read_lines(data: &Path, p: &Prepared, seconds: f64, names: OptionNames) -> Vec<String> {
    let mut lines: Vec<String> = p.notes.iter().map(|n| format!("note: {n}")).collect();
    if let Some(t) = &p.task_note {
        lines.push(format!(
            "note: `{}`: {} ({} {} reads it the other way)",
            p.target, t.text, names.task, t.other_task
        ));
    }
    lines.push(format!(
        "columns of {} (typed on its {} rows, {} of them for training; target `{}`, {}):",
        data.display(),
        p.schema.columns.first().map_or(p.train.rows, |c| c.rows),
        p.train.rows,
        p.target,
        if p.classify { "classes" } else { "a number" }
    ));
    lines.extend(schema_lines(&p.schema));
    lines.push(format!(
        "read and encoded {} rows into {} columns in {seconds:.2} s",
        p.train.rows + p.test.as_ref().map_or(0, |t| t.rows) + p.val.as_ref().map_or(0, |v| v.rows),
        p.train.n_features,
    ));
    lines
}

/// The columns as a short table.
fn schema_lines(schema: &SchemaReport) -> Vec<String> {
    let header = format!(
        "  {:<24} {:<11} {:>8} {:>9}  encoding",
        "column", "type", "missing", "distinct"
    );
    let rows = schema.columns.iter().map(|c| {
        format!(
            "  {:<24} {:<11} {:>7.1}% {:>9}  {}",
            truncate(&c.name, 24),
            c.kind,
            c.missing_percent(),
            c.distinct,
            c.encoding
        )
    });
    std::iter::once(header).chain(rows).collect()
}

/// `name` cut to `n` characters, the last one an ellipsis when cut.
fn truncate(name: &str, n: usize) -> String {
    if name.chars().count() <= n {
        name.to_string()
    } else {
        name.chars()
            .take(n - 1)
            .chain(std::iter::once('…'))
            .collect()
    }
}

impl<B: Backend> TableJobOutcome<B> {
    /// The model whose test figures the report gives: the linear model `auto` kept, a
    /// linear or logistic regression trained by gradient descent, or a network.
    pub fn tested(&self) -> TestedModel {
        match (&self.selection, &self.asked) {
            (Selection::Chosen(c), _) if c.kept == Kept::Linear => TestedModel::LinearModel,
            (_, TableModel::Linear | TableModel::Logistic) => TestedModel::GradientDescent,
            _ => TestedModel::Network,
        }
    }

    /// The report's lines: the model kept and why, the test figures, the coefficients of
    /// a linear model, where the results are and the predictions of rows given without
    /// targets.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        match &self.selection {
            Selection::Alone => {}
            Selection::TooFewRows => lines.push(format!(
                "note: model auto: too few training rows to hold out {MIN_VAL_ROWS} for validation; the network is kept without comparison"
            )),
            Selection::Stopped => lines.push(
                "note: model auto: stopped before its comparison; the network on plain inputs is scored as it stood, and resuming the job trains the rest and compares".into(),
            ),
            Selection::Chosen(c) => lines.push(format!("model kept: {}", c.reason)),
            Selection::Bagged(c) => {
                let folds = self.metrics.cross_validation.as_ref().map_or(0, |c| c.folds);
                lines.push(format!(
                    "model kept: the mean over {folds} folds of {}",
                    c.reason
                ));
            }
        }
        let m = &self.metrics;
        if m.test.is_some() {
            lines.extend(m.cross_validation.iter().map(|c| c.line()));
        }
        lines.extend(match &m.test {
            Some(TestFigures::Classes(r)) => class_report_lines(r, m.test_rows),
            Some(TestFigures::Regression(r)) => {
                let rows = RegressionRows {
                    train: m.train_rows,
                    features: self.features,
                    test: m.test_rows,
                };
                regression_report_lines(r, rows, self.tested())
            }
            None => {
                let rows = m.train_rows + m.validation_rows;
                let mut lines: Vec<String> = m.cross_validation.iter().map(|c| c.line()).collect();
                lines.push(format!(
                    "no test rows: all {rows} rows trained or validated the model"
                ));
                lines
            }
        });
        if let Some(c) = &m.coefficients {
            lines.extend(coefficient_lines(c, &self.labels));
        }
        // Beside other candidates, the run summed up is the network's on plain inputs.
        let run = match self.selection {
            Selection::Alone | Selection::Bagged(_) => "",
            _ => "the network on plain inputs: ",
        };
        lines.push(format!(
            "{run}{}; results in {}",
            self.summary,
            self.dir.display()
        ));
        if let Some(u) = &self.unlabeled {
            lines.push(format!(
                "predicted the {} rows given without targets: {}",
                u.rows,
                u.path.display()
            ));
        }
        lines
    }
}

/// The coefficients of a linear model by feature name, largest first, with the intercept
/// ([`Coefficients`] says what they mean); `labels`: a classifier's classes.
fn coefficient_lines(c: &Coefficients, labels: &Option<Vec<String>>) -> Vec<String> {
    let unit = match labels {
        Some(l) => format!("log-odds of `{}`", l.get(1).map_or("", String::as_str)),
        None => "target units".to_string(),
    };
    let mut lines = vec![
        format!("coefficients ({unit}, per standard deviation of each number or per level):"),
        format!(
            "  {:<32} {:>12}",
            "(intercept)",
            figure(f64::from(c.intercept), 6)
        ),
    ];
    let by_size = c.by_size().into_iter().take(SHOWN_COEFFICIENTS);
    lines.extend(
        by_size.map(|(name, value)| format!("  {name:<32} {:>12}", figure(f64::from(*value), 6))),
    );
    if c.coefficients.len() > SHOWN_COEFFICIENTS {
        lines.push(format!(
            "  ... {} more in {METRICS_FILE}",
            c.coefficients.len() - SHOWN_COEFFICIENTS
        ));
    }
    lines
}
