//! What the tabular jobs print: the table as read and encoded, the notes of the job, the
//! model kept, the test figures and the coefficients of linear models by feature name.

use super::class_report::print_classification;
use super::regression_report::print_regression;
use crate::cli::TrainArgs;
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use train::Reporter;
use train::metrics::Coefficients;
use train::progress::StderrReporter;
use train::table::{Prepared, SchemaReport};
use train::tabular::Kept;
use train::tabular::auto::MIN_VAL_ROWS;
use train::tabular::job::{Selection, TableJobOutcome, TableNote, TableReporter};
use train::tabular::report::TestFigures;

/// The command line's side of a table job: progress on stderr, notes on stdout.
pub struct Printer {
    data: PathBuf,
    runs: StderrReporter,
}

impl Printer {
    /// A printer for the job on the table in `data`, with the progress the flags ask.
    pub fn new(data: &Path, args: &TrainArgs) -> Self {
        Printer {
            data: data.to_path_buf(),
            runs: crate::session::reporter(args),
        }
    }
}

impl TableReporter for Printer {
    fn runs(&mut self) -> &mut dyn Reporter {
        &mut self.runs
    }

    fn note(&mut self, note: TableNote<'_>) {
        match note {
            TableNote::Read { prepared, seconds } => print_read(&self.data, prepared, seconds),
            TableNote::Balanced { most, rows } => println!(
                "note: --class-weight balanced: each class repeated to {most} training rows ({rows} in all)"
            ),
            TableNote::PiecewiseSkipped { bins } => println!(
                "note: model auto: the rows piecewise-linear in {bins} bins would not fit in memory; no network on them"
            ),
            TableNote::Stopped { dir, step } => crate::session::note_stopped(step, dir),
        }
    }
}

/// Prints what was done to the rows of `data`, each column's type and encoding, and the
/// time it took.
fn print_read(data: &Path, p: &Prepared, seconds: f64) {
    for note in &p.notes {
        println!("note: {note}");
    }
    if let Some(t) = &p.task_note {
        println!(
            "note: `{}`: {} (--task {} reads it the other way)",
            p.target, t.text, t.other_task
        );
    }
    println!(
        "columns of {} (typed on its {} rows, {} of them for training; target `{}`, {}):",
        data.display(),
        p.schema.columns.first().map_or(p.train.rows, |c| c.rows),
        p.train.rows,
        p.target,
        if p.classify { "classes" } else { "a number" }
    );
    print_schema(&p.schema);
    println!(
        "read and encoded {} rows into {} columns in {seconds:.2} s",
        p.train.rows + p.test.rows + p.val.as_ref().map_or(0, |v| v.rows),
        p.train.n_features,
    );
}

/// The library's error with the option that changes the task named: the library says
/// "set the task to regression", the command line `--task regression`.
pub fn task_advice(e: train::Error) -> anyhow::Error {
    let m = e.to_string();
    match m.contains("set the task to ") {
        true => anyhow::anyhow!("{}", m.replace("set the task to ", "--task ")),
        false => e.into(),
    }
}

/// Prints the columns as a short table.
fn print_schema(schema: &SchemaReport) {
    println!(
        "  {:<24} {:<11} {:>8} {:>9}  encoding",
        "column", "type", "missing", "distinct"
    );
    for c in &schema.columns {
        println!(
            "  {:<24} {:<11} {:>7.1}% {:>9}  {}",
            truncate(&c.name, 24),
            c.kind,
            c.missing_percent(),
            c.distinct,
            c.encoding
        );
    }
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

/// Prints the model kept and why, the test figures, the coefficients of a linear model,
/// where the results are and the predictions of rows without targets; `linreg`: the job
/// compares gradient descent with the closed form.
pub fn print_outcome<B: Backend>(o: &TableJobOutcome<B>, linreg: bool) {
    match &o.selection {
        Selection::Alone => {}
        Selection::TooFewRows => println!(
            "note: model auto: too few training rows to hold out {MIN_VAL_ROWS} for validation; the network is kept without comparison"
        ),
        Selection::Chosen(c) => {
            let kept = match c.kept {
                Kept::Network => "the network",
                Kept::Linear => "the linear model",
            };
            println!("model kept: {kept} ({})", c.reason);
        }
    }
    let m = &o.metrics;
    match &m.test {
        TestFigures::Classes(r) => print_classification(r, m.test_rows),
        TestFigures::Regression(r) => {
            print_regression(r, (m.train_rows, o.features), m.test_rows, linreg)
        }
    }
    if let Some(c) = &m.coefficients {
        print_coefficients(c, &o.labels);
    }
    println!("{}; results in {}", o.summary, o.dir.display());
    if let Some(u) = &o.unlabeled {
        println!(
            "predicted the {} rows given without targets: {}",
            u.rows,
            u.path.display()
        );
    }
}

/// Prints the coefficients of a linear model by feature name, largest first, with the
/// intercept ([`Coefficients`] says what they mean).
fn print_coefficients(c: &Coefficients, labels: &Option<Vec<String>>) {
    let unit = match labels {
        Some(l) => format!("log-odds of `{}`", l.get(1).map_or("", String::as_str)),
        None => "target units".to_string(),
    };
    println!("coefficients ({unit}, per standard deviation of each number or per level):");
    println!("  {:<32} {:>12.6}", "(intercept)", c.intercept);
    const SHOWN: usize = 20;
    for (name, value) in c.by_size().into_iter().take(SHOWN) {
        println!("  {name:<32} {value:>12.6}");
    }
    if c.coefficients.len() > SHOWN {
        println!(
            "  ... {} more in metrics.json",
            c.coefficients.len() - SHOWN
        );
    }
}
