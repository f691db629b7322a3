//! A fitted model on new rows, as a library call: what `iron-learn predict` runs. The rows
//! come from a table file (CSV or Parquet, columns matched by name), a dataset JSON file
//! (`{n, x}` or `{n, x_test}`), or as points of a one-input model; the answers are CSV in
//! the user's units.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use jobs::predict::{PredictOptions, Rows, predict};
//! let cpu = tensor_cpu::CpuBackend::new();
//! let options = PredictOptions::new("runs/houses", Rows::File("new.csv".into()));
//! let answers = predict(&cpu, &options, &mut train::Silent)?;
//! std::fs::write("answers.csv", &answers.csv)?;
//! # Ok(()) }
//! ```

use io::fitted::{FittedModel, Task, load_inputs};
use io::table::{Table, read_bytes};
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use train::Reporter;

/// Why rows could not be predicted.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// The model draws a picture; it takes no rows.
    #[error("{} is an image model ({width}x{height})", model.display())]
    ImageModel {
        /// The model asked for.
        model: PathBuf,
        /// Its picture's width.
        width: usize,
        /// Its picture's height.
        height: usize,
    },
    /// Columns to keep, from a dataset JSON file, which has no columns.
    #[error("columns are copied from a CSV or Parquet file; a JSON file has none")]
    KeepFromJson,
    /// A column to keep that the table does not have.
    #[error("cannot keep `{name}`, which is not a column of `{table}`{hint}; columns: {columns}")]
    KeepUnknown {
        /// The column asked for.
        name: String,
        /// The table's source.
        table: String,
        /// A hint where a column differs only by case, else empty.
        hint: String,
        /// Its columns, comma-separated.
        columns: String,
    },
    /// A column to keep, named twice.
    #[error("the column `{0}` is kept twice")]
    KeptTwice(String),
    /// A column to keep with the name of an output column.
    #[error(
        "keeping `{name}` would give two columns named `{name}`: the output has its own \
         ({outputs}); rename that column of `{table}` first"
    )]
    KeepClashes {
        /// The column.
        name: String,
        /// The output's columns, comma-separated.
        outputs: String,
        /// The table's source.
        table: String,
    },
    /// An output file named for another format than the CSV text written into it.
    #[error(
        "predictions are written as CSV text; `{}` is named for another format: give a file ending in .csv",
        path.display()
    )]
    OutputNotCsv {
        /// The output file asked for.
        path: PathBuf,
    },
    /// Points of one input for a model of several.
    #[error("points give one input, but this model takes {count} ({names})")]
    PointsNeedOneInput {
        /// The model's inputs.
        count: usize,
        /// Their names, comma-separated.
        names: String,
    },
    /// A point that is not a finite number.
    #[error("{0} is not a finite number")]
    NotFinite(f32),
    /// Reading the model or the rows, or predicting, failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The memory budget or a table could not be read.
    #[error(transparent)]
    Train(#[from] crate::Error),
}

impl From<train::Error> for PredictError {
    fn from(e: train::Error) -> Self {
        PredictError::Train(e.into())
    }
}

/// Shorthand for results of this module.
pub type Result<T> = std::result::Result<T, PredictError>;

/// The rows to predict.
#[derive(Debug, Clone, PartialEq)]
pub enum Rows {
    /// A table file (CSV or Parquet), or a dataset JSON file.
    File(PathBuf),
    /// Values of the single input of a one-input model.
    Points(Vec<f32>),
}

/// What to predict.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictOptions {
    /// A run folder, its `model.safetensors`, or an exported model.
    pub model: PathBuf,
    /// The rows.
    pub rows: Rows,
    /// Columns of a table file copied in front of the answers (an identifier, say).
    pub keep: Vec<String>,
    /// A CSV file to write the answers into (`None`: they are only returned); it may be
    /// neither the model nor the rows.
    pub output: Option<PathBuf>,
}

impl PredictOptions {
    /// The answers of `model` for `rows`, no column kept.
    pub fn new(model: impl Into<PathBuf>, rows: Rows) -> Self {
        PredictOptions {
            model: model.into(),
            rows,
            keep: Vec::new(),
            output: None,
        }
    }
}

/// The answers, as CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictions {
    /// The CSV text: a header, then a line per row.
    pub csv: Vec<u8>,
    /// Rows predicted.
    pub rows: usize,
}

/// Loads the model (refusing an image model) and predicts the rows the options give,
/// writing them into the options' output file where there is one (refused before anything
/// is read when it is the model or the rows); `reporter` hears of the table's columns that
/// the model does not read and of the cells that could not be read as their column's
/// training type.
pub fn predict<B: Backend>(
    backend: &B,
    options: &PredictOptions,
    reporter: &mut dyn Reporter,
) -> Result<Predictions> {
    let Some(output) = &options.output else {
        return answers(backend, options, reporter);
    };
    let model_file = io::fitted::model_file(&options.model);
    let mut inputs = vec![model_file.as_path()];
    if let Rows::File(path) = &options.rows {
        inputs.push(path);
    }
    io::output::refuse_own_input(output, &inputs)?;
    check_csv_name(output)?;
    // Opened before the rows are read: a place that cannot be written is refused before
    // any work, and before any note on the rows.
    let mut file = io::output::OutputFile::create(output).map_err(|e| cannot_write(output, e))?;
    let answers = answers(backend, options, reporter)?;
    std::io::Write::write_all(&mut file, &answers.csv).map_err(|source| {
        let e = io::Error::Io {
            action: "write",
            path: output.clone(),
            source,
        };
        cannot_write(output, e)
    })?;
    file.commit().map_err(|e| cannot_write(output, e))?;
    Ok(answers)
}

/// The run layer's refusal to write `path`, for `cause`.
fn cannot_write(path: &Path, cause: io::Error) -> PredictError {
    train::Error::Write {
        path: path.to_path_buf(),
        source: Box::new(cause),
    }
    .into()
}

/// Refuses an output file named for a format other than CSV (`.json`, `.parquet`...): a
/// name ending in `.csv` or `.txt`, or with no extension, takes the CSV text.
fn check_csv_name(path: &Path) -> Result<()> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        None | Some("csv" | "txt") => Ok(()),
        Some(_) => Err(PredictError::OutputNotCsv {
            path: path.to_path_buf(),
        }),
    }
}

/// The answers of [`predict`], not written anywhere.
fn answers<B: Backend>(
    backend: &B,
    options: &PredictOptions,
    reporter: &mut dyn Reporter,
) -> Result<Predictions> {
    let model = FittedModel::load(&options.model, backend)?;
    if let Task::Image { width, height } = model.info().task {
        return Err(PredictError::ImageModel {
            model: options.model.clone(),
            width,
            height,
        });
    }
    match &options.rows {
        Rows::File(path) if is_json(path) && io::table::is_dataset_json(&read_bytes(path)?) => {
            if !options.keep.is_empty() {
                return Err(PredictError::KeepFromJson);
            }
            let rows = load_inputs(path, model.feature_names())?;
            let predictions = model.predict(&rows.x)?;
            let mut csv = Vec::new();
            predictions.write_csv(&mut csv, None)?;
            Ok(Predictions {
                csv,
                rows: predictions.rows,
            })
        }
        Rows::File(path) => {
            let budget = train::budget::budget()?;
            let table = crate::table::read_any(path, budget.as_ref())?.rows;
            predict_table(&model, &table, &options.keep, reporter)
        }
        Rows::Points(points) => predict_points(&model, points),
    }
}

/// Whether the file is named `.json`.
fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// The answers for points of a one-input model, each point beside its answer.
fn predict_points<B: Backend>(model: &FittedModel<B>, points: &[f32]) -> Result<Predictions> {
    let names = model.feature_names();
    if names.len() != 1 {
        return Err(PredictError::PointsNeedOneInput {
            count: names.len(),
            names: names.join(", "),
        });
    }
    if let Some(&v) = points.iter().find(|v| !v.is_finite()) {
        return Err(PredictError::NotFinite(v));
    }
    let predictions = model.predict(points)?;
    let mut csv = Vec::new();
    predictions.write_csv(&mut csv, Some((names, points)))?;
    Ok(Predictions {
        csv,
        rows: predictions.rows,
    })
}

/// Refuses columns to keep that the table lacks.
fn check_keep_known(table: &Table, keep: &[String]) -> Result<()> {
    match keep.iter().find(|n| table.position(n).is_none()) {
        Some(name) => Err(PredictError::KeepUnknown {
            name: name.clone(),
            table: table.source.clone(),
            hint: io::table::case_hint(name, table.names()),
            columns: table.names().join(", "),
        }),
        None => Ok(()),
    }
}

/// Refuses a column to keep named twice.
fn check_keep_once(keep: &[String]) -> Result<()> {
    match keep
        .iter()
        .enumerate()
        .find(|(i, n)| keep[..*i].contains(n))
    {
        Some((_, name)) => Err(PredictError::KeptTwice(name.clone())),
        None => Ok(()),
    }
}

/// Predicts the rows of a table (columns matched by name, in any order), with the `keep`
/// columns copied in front; notes the columns the model does not read (and that are not
/// kept), and the cells that could not be read as their column's training type.
fn predict_table<B: Backend>(
    model: &FittedModel<B>,
    table: &Table,
    keep: &[String],
    reporter: &mut dyn Reporter,
) -> Result<Predictions> {
    check_keep_known(table, keep)?;
    let inputs = model.feature_names();
    for name in inputs {
        table.require(name)?;
    }
    let ignored: Vec<&str> = table
        .names()
        .iter()
        .filter(|n| !inputs.contains(n) && !keep.contains(n))
        .map(String::as_str)
        .collect();
    if !ignored.is_empty() {
        let s = if ignored.len() == 1 { "" } else { "s" };
        reporter.note(&format!(
            "note: ignored {} column{s} the model does not use: {}",
            ignored.len(),
            ignored.join(", ")
        ));
    }
    check_keep_once(keep)?;
    let predictions = model.predict_table(table)?;
    let outputs = predictions.csv_header();
    if let Some(name) = keep.iter().find(|n| outputs.contains(n)) {
        return Err(PredictError::KeepClashes {
            name: name.clone(),
            outputs: outputs.join(", "),
            table: table.source.clone(),
        });
    }
    for note in &predictions.notes {
        reporter.note(&format!("note: {note}"));
    }
    Ok(Predictions {
        csv: predictions.csv_beside(table, keep)?,
        rows: predictions.rows,
    })
}
