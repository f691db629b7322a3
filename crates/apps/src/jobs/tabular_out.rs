//! What the tabular jobs print: the table as read and encoded, and the coefficients of
//! linear models by feature name.

use anyhow::Result;
use train::metrics::Coefficients;

use crate::cli::RegressionArgs;
use train::table::{Prepared, SchemaReport, TableOptions, prepare};

/// Reads, splits, types and encodes the data of a tabular job ([`prepare`]), printing what
/// was done to the rows, each column's type and encoding, and the time it took.
pub fn prepare_table(a: &RegressionArgs, classify: Option<bool>) -> Result<Prepared> {
    let started = std::time::Instant::now();
    let options = TableOptions {
        data: a.data.clone(),
        target: a.target.clone(),
        test_data: a.test_data.clone(),
        test_fraction: a.test_fraction,
        val_fraction: a
            .val_fraction
            .unwrap_or(if a.patience.is_some() { 0.1 } else { 0.0 }),
        drop_missing: a.drop_missing,
        overrides: io::table::TypeOverrides {
            categorical: a.categorical.clone(),
            numeric: a.numeric.clone(),
            ignore: a.ignore.clone(),
        },
        seed: a.train.seed,
        memory_budget: crate::memory_budget::budget()?,
    };
    let p = prepare(&options, classify).map_err(task_advice)?;
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
        a.data.display(),
        p.schema.columns.first().map_or(p.train.rows, |c| c.rows),
        p.train.rows,
        p.target,
        if p.classify { "classes" } else { "a number" }
    );
    print_schema(&p.schema);
    println!(
        "read and encoded {} rows into {} columns in {:.2} s",
        p.train.rows + p.test.rows + p.val.as_ref().map_or(0, |v| v.rows),
        p.train.n_features,
        started.elapsed().as_secs_f64()
    );
    Ok(p)
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

/// Prints the coefficients of a linear model by feature name, largest first, with the
/// intercept ([`Coefficients`] says what they mean).
pub fn print_coefficients(c: &Coefficients, labels: &Option<Vec<String>>) {
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
