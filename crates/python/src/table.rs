//! The table job and predictions on table rows: what `iron-learn mlp` and `iron-learn
//! predict` run, called by the Python estimators on a CSV file of the user's frame.

use crate::background::{self, JobContext, Running};
use crate::device::{OnDevice, run_on};
use crate::failure::{Failure, Result};
use crate::table_options::{TableSpec, TrainingSpec};
use io::FittedModel;
use io::checkpoint::Checkpoint;
use jobs::tabular::job::{
    OptionNames, TableJob, TableJobOptions, TableNote, TableReporter, cross_validate,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use tensor_cpu::CpuBackend;
use train::Reporter;
use train::progress::{LineSink, StderrReporter};

/// How the notes name the options, in the estimators' words.
const PARAMETERS: OptionNames = OptionNames {
    task: "the task",
    balanced: "class_weight='balanced'",
};

/// Trains the table model on the table in `data` (every row; the target column `target`)
/// in the run folder `run_dir` and returns the model file's bytes and the report's lines.
#[pyfunction]
#[pyo3(signature = (data, target, run_dir, spec, device="cpu", verbose=false, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_table<'py>(
    py: Python<'py>,
    data: PathBuf,
    target: String,
    run_dir: PathBuf,
    spec: &Bound<'py, PyDict>,
    device: &str,
    verbose: bool,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<String>)> {
    let rename = temporary_names(&data, &run_dir);
    let (table, training): (TableSpec, TrainingSpec) = (spec.extract()?, spec.extract()?);
    let options = table.options(data, target, &training);
    let options = options.map_err(Failure::into_py)?;
    let device = device.to_string();
    let running = Running {
        verbose,
        threads,
        rename,
    };
    let (bytes, lines) = background::run(py, running, move |context| {
        let job = FitTable {
            options,
            dir: run_dir,
            context,
        };
        run_on(&device, job)
    })?;
    Ok((PyBytes::new(py, &bytes), lines))
}

/// How the progress lines and errors name the temporary files of a table fit: the table
/// written for it is the rows given, and the run folder's files go by their own names.
fn temporary_names(data: &Path, run_dir: &Path) -> Vec<(String, String)> {
    let mut names = rows_names(data);
    names.push(run_folder_name(run_dir));
    names
}

/// The table written for a job (`data`, a temporary file) named as the rows given.
fn rows_names(data: &Path) -> Vec<(String, String)> {
    vec![
        (format!("`{}`", data.display()), "the rows given".into()),
        (data.display().to_string(), "the rows given".into()),
    ]
}

/// The run folder's files named by their own names in progress lines (the folder is a
/// temporary one).
pub fn run_folder_name(run_dir: &Path) -> (String, String) {
    let folder = format!("{}{}", run_dir.display(), std::path::MAIN_SEPARATOR);
    (folder, String::new())
}

/// A table job on some device.
struct FitTable {
    options: TableJobOptions,
    dir: PathBuf,
    context: JobContext,
}

impl OnDevice for FitTable {
    type Output = (Vec<u8>, Vec<String>);

    fn run<B: Backend>(self, backend: &B) -> Result<Self::Output> {
        let mut reporter = Notes::new(&self.context);
        let outcome = if self.options.data.folds.is_some() {
            let mut options = self.options;
            options.training.stop = Some(self.context.stop.clone());
            cross_validate(&options, backend, &self.dir, &mut reporter)?
        } else {
            let job = TableJob::prepare(&self.options, &mut reporter)?;
            let job = job.stop_flag(self.context.stop.clone());
            job.train(backend, &self.dir, &mut reporter)?
        };
        let bytes = outcome.model.to_checkpoint()?.to_bytes()?;
        Ok((bytes, outcome.lines()))
    }
}

/// The table job's progress and notes, into the job's line sink.
struct Notes {
    runs: StderrReporter,
    sink: LineSink,
    verbose: bool,
}

impl Notes {
    fn new(context: &JobContext) -> Self {
        let runs = StderrReporter::with_sink(!context.verbose, None, context.sink.clone());
        Notes {
            runs,
            sink: context.sink.clone(),
            verbose: context.verbose,
        }
    }
}

impl TableReporter for Notes {
    fn runs(&mut self) -> &mut dyn Reporter {
        &mut self.runs
    }

    fn note(&mut self, note: TableNote<'_>) {
        if self.verbose && !matches!(note, TableNote::Stopped { .. }) {
            note.lines(PARAMETERS)
                .iter()
                .for_each(|l| self.sink.write(l));
        }
    }
}

/// A model's predictions for table rows, as plain values for the Python side.
#[derive(IntoPyObject)]
pub struct TableAnswers<'py> {
    /// `rows x width` little-endian `f32` values: predictions, or class probabilities.
    values: Bound<'py, PyBytes>,
    /// Rows predicted.
    rows: usize,
    /// Values per row.
    width: usize,
    /// Each row's class, as its index in `classes` (classifiers only).
    labels: Option<Vec<usize>>,
    /// The classes' texts, in the model's order (classifiers only).
    classes: Option<Vec<String>>,
    /// The columns whose cells could not all be read as in training, one line each.
    notes: Vec<String>,
}

/// Predicts the rows of the table in `data` (CSV or Parquet; columns matched by name)
/// with the model whose file bytes are `model`.
#[pyfunction]
#[pyo3(signature = (model, data, threads=None))]
pub fn predict_table<'py>(
    py: Python<'py>,
    model: &[u8],
    data: PathBuf,
    threads: Option<usize>,
) -> PyResult<TableAnswers<'py>> {
    let model = model.to_vec();
    let running = Running {
        threads,
        rename: rows_names(&data),
        ..Running::default()
    };
    let (values, a) = background::run(py, running, move |_| answer(&model, &data))?;
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(TableAnswers {
        values: PyBytes::new(py, &bytes),
        rows: a.rows,
        width: a.width,
        labels: a.labels,
        classes: a.classes,
        notes: a.notes,
    })
}

/// [`TableAnswers`] but the values, made on the worker thread.
struct Answers {
    rows: usize,
    width: usize,
    labels: Option<Vec<usize>>,
    classes: Option<Vec<String>>,
    notes: Vec<String>,
}

/// The values and answers of `model` (a model file's bytes) for the table in `data`.
fn answer(model: &[u8], data: &Path) -> Result<(Vec<f32>, Answers)> {
    let model = load(model)?;
    let budget = train::budget::budget()?;
    let table = jobs::table::read_any(data, budget.as_ref())?.rows;
    let p = model.predict_table(&table)?;
    let info = model.info();
    let classes = info.classes().map(|c| {
        let texts = (0..c.len()).map(|i| info.class_text(i)).collect::<Vec<_>>();
        (c.to_vec(), texts)
    });
    let labels = match (&p.labels, &classes) {
        (Some(labels), Some((c, _))) => Some(label_indices(labels, c)?),
        _ => None,
    };
    let answers = Answers {
        rows: p.rows,
        width: p.columns.len(),
        labels,
        classes: classes.map(|(_, texts)| texts),
        notes: p.notes.iter().map(|n| n.to_string()).collect(),
    };
    Ok((p.values, answers))
}

/// Each predicted label's index among `classes`.
fn label_indices(labels: &[f32], classes: &[f32]) -> Result<Vec<usize>> {
    labels
        .iter()
        .map(|l| classes.iter().position(|c| c == l))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Failure::runtime("a predicted label is not one of the model's classes"))
}

/// The model in a model file's bytes, on the CPU.
pub fn load(bytes: &[u8]) -> Result<FittedModel<CpuBackend>> {
    let source = Path::new("<model bytes>");
    let ck = Checkpoint::from_bytes(bytes, source)?;
    Ok(FittedModel::from_checkpoint(
        &ck,
        &CpuBackend::try_new()?,
        source,
    )?)
}
