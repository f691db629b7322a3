//! `iron-learn predict`: new rows through a trained model, answers in the user's units.

use crate::cli::PredictArgs;
use crate::device::Job;
use anyhow::{Result, bail};
use io::fitted::{FittedModel, Task, load_inputs};
use io::table::{Table, read_bytes};
use tensor_core::Backend;
use train::record::write_file;
use train::table::read_any;

/// Predicts the rows of a file, or points given on the command line.
pub struct Predict(pub PredictArgs);

impl Job for Predict {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        if let Some(output) = &args.output {
            let model_file = io::fitted::model_file(&args.model);
            let mut inputs = vec![model_file.as_path()];
            inputs.extend(args.data.as_deref());
            io::output::refuse_own_input(output, &inputs)?;
        }
        let model = FittedModel::load(&args.model, backend)?;
        let info = model.info();
        if let Task::Image { width, height } = info.task {
            bail!(
                "{} is an image model ({width}x{height}); draw it with `iron-learn image render` \
                 or export it with `iron-learn export`",
                args.model.display()
            );
        }
        let (bytes, rows) = predictions_csv(&model, args)?;
        match &args.output {
            Some(path) => {
                write_file(path, &bytes)?;
                eprintln!("predicted {rows} rows into {}", path.display());
            }
            None => {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                out.write_all(&bytes)?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

/// The predictions of the rows `args` gives (a table file, a dataset JSON file or `--x`
/// points) as CSV, and their number.
fn predictions_csv<B: Backend>(
    model: &FittedModel<B>,
    args: &PredictArgs,
) -> Result<(Vec<u8>, usize)> {
    let names = model.feature_names().to_vec();
    let mut bytes = Vec::new();
    match (&args.data, &args.x) {
        (Some(path), _) if is_json(path) && io::table::is_dataset_json(&read_bytes(path)?) => {
            if !args.keep.is_empty() {
                bail!("--keep copies columns of a CSV or Parquet file; a JSON file has none");
            }
            let rows = load_inputs(path, &names)?;
            let predictions = model.predict(&rows.x)?;
            predictions.write_csv(&mut bytes, None)?;
            Ok((bytes, predictions.rows))
        }
        (Some(path), _) => {
            let budget = crate::memory_budget::budget()?;
            let table = read_any(path, budget.as_ref())?.rows;
            predict_table(model, &table, &args.keep)
        }
        (None, Some(points)) => {
            if names.len() != 1 {
                bail!(
                    "--x gives points of one input, but this model takes {} ({}); use --data",
                    names.len(),
                    names.join(", ")
                );
            }
            if let Some(v) = points.iter().find(|v| !v.is_finite()) {
                bail!("--x: {v} is not a finite number");
            }
            let predictions = model.predict(points)?;
            predictions.write_csv(&mut bytes, Some((&names, points.as_slice())))?;
            Ok((bytes, predictions.rows))
        }
        (None, None) => bail!("give the rows to predict with --data FILE or --x POINTS"),
    }
}

fn is_json(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Predicts the rows of a table (columns matched by name, in any order), with the `keep`
/// columns copied in front; notes the columns the model does not read, and the cells that
/// could not be read as their column's training type.
fn predict_table<B: Backend>(
    model: &FittedModel<B>,
    table: &Table,
    keep: &[String],
) -> Result<(Vec<u8>, usize)> {
    for name in keep {
        if table.position(name).is_none() {
            bail!(
                "--keep names `{name}`, which is not a column of `{}`; columns: {}",
                table.source,
                table.names().join(", ")
            );
        }
    }
    let inputs = model.feature_names();
    for name in inputs {
        table.require(name)?;
    }
    let ignored: Vec<&String> = table
        .names()
        .iter()
        .filter(|n| !inputs.contains(n))
        .collect();
    if !ignored.is_empty() {
        eprintln!(
            "note: ignored {} column{} the model does not use: {}",
            ignored.len(),
            if ignored.len() == 1 { "" } else { "s" },
            ignored
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some((_, name)) = keep
        .iter()
        .enumerate()
        .find(|(i, n)| keep[..*i].contains(n))
    {
        bail!("--keep names `{name}` twice");
    }
    let predictions = model.predict_table(table)?;
    let outputs = predictions.csv_header();
    if let Some(name) = keep.iter().find(|n| outputs.contains(n)) {
        bail!(
            "--keep `{name}` would give two columns named `{name}`: the output has its own ({}); \
             rename that column of `{}` first",
            outputs.join(", "),
            table.source
        );
    }
    for note in &predictions.notes {
        eprintln!("note: {note}");
    }
    Ok((predictions.csv_beside(table, keep)?, predictions.rows))
}
