//! What a table job records: its entries of `config.json` (the data read and the options),
//! the checkpoint's job data, the test figures of the fitted model, and the figures of
//! `metrics.json`.

use std::path::{Path, PathBuf};

use io::table::{ColumnEncoder, Preprocessor, Table};
use io::{Dataset, FittedModel, Standardizer};
use serde::Serialize;
use tensor_core::Backend;

use super::{Choice, Kept};
use crate::error::{Error, Result};
use crate::metrics::{ClassReport, Coefficients, RegressionReport, predicted_classes};
use crate::table::Prepared;
use train::outcome::Outcome;

/// The entries of a table job's `config.json`.
#[derive(Debug, Serialize)]
pub struct TableRecord<'a> {
    /// The table read.
    pub data: TableData<'a>,
    /// The options it was trained with.
    pub options: TableRecordOptions<'a>,
}

/// The table read: the file, the rows of each part and the target.
#[derive(Debug, Serialize)]
pub struct TableData<'a> {
    /// The file's name, size and digest.
    #[serde(flatten)]
    pub file: train::record::DataFile,
    /// The rows of each part.
    pub rows: TableRows,
    /// The target column.
    pub target: &'a str,
}

/// The rows of each part of a table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TableRows {
    /// Training rows.
    pub train: usize,
    /// Validation rows (held out of training).
    pub validation: usize,
    /// Test rows.
    pub test: usize,
}

impl TableRows {
    /// The rows of each part of `p`.
    pub fn of(p: &Prepared) -> Self {
        TableRows {
            train: p.train.rows,
            validation: p.val.as_ref().map_or(0, |v| v.rows),
            test: p.test.as_ref().map_or(0, |t| t.rows),
        }
    }
}

/// A table job's options as recorded.
#[derive(Debug, Serialize)]
pub struct TableRecordOptions<'a> {
    /// The share of rows held out for testing.
    pub test_fraction: f32,
    /// The separate test file, if any.
    pub test_data: &'a Option<PathBuf>,
    /// The share of training rows held out for validation, as asked.
    pub val_fraction: Option<f32>,
    /// Whether rows with a missing cell were dropped.
    pub drop_missing: bool,
    /// Early stopping's patience, in epochs.
    pub patience_epochs: Option<u64>,
    /// "classification" or "regression".
    pub task: &'static str,
    /// Class weighting ("balanced"), if any.
    pub class_weight: Option<&'static str>,
    /// Hidden widths, as `256,256`.
    pub hidden: String,
    /// Hidden activation, in lower case.
    pub activation: String,
    /// AdamW's weight decay (0: Adam).
    pub weight_decay: f32,
    /// Columns read as categories on request.
    pub categorical: &'a [String],
    /// Columns read as numbers on request.
    pub numeric: &'a [String],
    /// Columns left out on request.
    pub ignore: &'a [String],
    /// How the networks read numbers, as asked (`plain`, `periodic`, `piecewise`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numeric_encoding: Option<&'static str>,
    /// Periodic bands of the network's inputs, as asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub periodic: Option<usize>,
    /// Bins of the piecewise-linear encoding, as asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bins: Option<usize>,
}

/// The checkpoint's job data of a table model.
#[derive(Debug, Serialize)]
pub struct TableExtra<'a> {
    /// The regression target's statistics (`None`: classes).
    pub targets: Option<&'a Standardizer>,
    /// The class labels (`None`: regression).
    pub classes: &'a Option<Vec<String>>,
    /// The encoded features' names.
    pub feature_names: &'a [String],
    /// The target column.
    pub target_name: &'a str,
}

/// The test-set figures of a classifier or of a regression.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum TestFigures {
    /// A classifier's.
    Classes(ClassReport),
    /// A regression's.
    Regression(RegressionReport),
}

impl TestFigures {
    /// The figures of `fitted` on the test rows of `p` from its raw outputs on them (`raw`,
    /// as [`FittedModel::table_outputs`] gives them for `p.test_table`: exactly what
    /// predicting them gives), `None` when `p` has no test rows; `targets`: a regression
    /// target's statistics. Refused where `raw` is not `width` outputs for each test row.
    pub fn of<B: Backend>(
        fitted: &FittedModel<B>,
        p: &Prepared,
        raw: Option<Vec<f32>>,
        targets: Option<&Standardizer>,
        width: usize,
    ) -> Result<Option<Self>> {
        match (&p.test, raw) {
            (Some(test), Some(raw)) if raw.len() == test.rows * width => {
                Self::of_rows(fitted, p, test, raw, targets, width).map(Some)
            }
            (None, None) => Ok(None),
            _ => Err(Error::refused(
                "the model's outputs are not those of the test rows",
            )),
        }
    }

    /// [`of`](Self::of) on the encoded test rows `test` of `p`.
    fn of_rows<B: Backend>(
        fitted: &FittedModel<B>,
        p: &Prepared,
        test: &io::Dataset,
        raw: Vec<f32>,
        targets: Option<&Standardizer>,
        width: usize,
    ) -> Result<Self> {
        match (&p.labels, targets) {
            (Some(labels), _) => {
                let truth: Vec<usize> = test.y.iter().map(|&v| v as usize).collect();
                let predicted = predicted_classes(&raw, width);
                Ok(TestFigures::Classes(ClassReport::new(
                    labels, &predicted, &truth,
                )))
            }
            (None, Some(_)) => {
                let mut values = raw;
                fitted.info().regression_values(&mut values)?;
                // The linear reference reads the user's columns: piecewise-linear rows (many
                // more columns than the table has) are read back as plain ones.
                let report = match (
                    plain_rows(&p.encoding, &p.train),
                    plain_rows(&p.encoding, test),
                ) {
                    (Some(train), Some(test)) => RegressionReport::new(&values, &train, &test),
                    _ => RegressionReport::new(&values, &p.train, test),
                };
                Ok(TestFigures::Regression(report))
            }
            _ => Err(Error::refused(
                "a table model has classes or target statistics",
            )),
        }
    }
}

/// `rows` (in `encoding`) in its plain encoding, every number one standardised column, when
/// `encoding` is piecewise-linear; `None` when it is plain already.
fn plain_rows(encoding: &Preprocessor, rows: &Dataset) -> Option<Dataset> {
    let piecewise = encoding.columns.iter().any(|c| {
        matches!(
            c,
            ColumnEncoder::Number {
                piecewise: Some(_),
                ..
            }
        )
    });
    if !piecewise {
        return None;
    }
    let columns = encoding.plain_columns();
    let mut x = Vec::with_capacity(rows.rows * columns.len());
    for row in rows.x.chunks_exact(rows.n_features.max(1)) {
        x.extend(
            columns
                .iter()
                .map(|c| c.offset + c.terms.iter().map(|&(at, w)| w * row[at]).sum::<f32>()),
        );
    }
    let names = encoding.plain().output_names();
    Dataset::new(
        x,
        rows.y.clone(),
        rows.rows,
        names,
        rows.target_names.clone(),
    )
    .ok()
}

/// A run's training figures, as `metrics.json` gives them.
#[derive(Debug, Serialize)]
pub struct TrainingFigures {
    /// The last training loss, in `loss_units`.
    pub final_train_loss: Option<f64>,
    /// The last validation loss, in `loss_units`.
    pub final_val_loss: Option<f64>,
    /// What the losses measure.
    pub loss_units: String,
    /// Optimizer steps taken.
    pub steps: u64,
    /// Training time.
    pub seconds: f64,
    /// The step whose weights were kept (best epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restored_step: Option<u64>,
    /// Its validation loss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restored_val_loss: Option<f64>,
    /// The model's parameters.
    pub parameters: usize,
}

impl TrainingFigures {
    /// The figures of a finished run.
    pub fn of<B: Backend, M: nn::Model<B>>(out: &Outcome<M>) -> Self {
        let r = &out.report;
        TrainingFigures {
            final_train_loss: out.final_loss(),
            final_val_loss: r
                .final_val_loss
                .map(|v| f64::from(v) * out.loss_units.scale),
            loss_units: out.loss_units.label.clone(),
            steps: r.steps,
            seconds: out.elapsed,
            restored_step: out.restored.map(|r| r.0),
            restored_val_loss: out.restored.map(|r| r.1),
            parameters: out.model.num_params(),
        }
    }
}

/// The figures of a table job's `metrics.json`.
#[derive(Debug, Serialize)]
pub struct TabularMetrics {
    /// Training rows.
    pub train_rows: usize,
    /// Validation rows.
    pub validation_rows: usize,
    /// Test rows.
    pub test_rows: usize,
    /// The training run's figures.
    #[serde(flatten)]
    pub training: TrainingFigures,
    /// The test figures (`None`: no rows were held out for testing).
    #[serde(flatten)]
    pub test: Option<TestFigures>,
    /// A linear model's coefficients by feature name.
    #[serde(flatten)]
    pub coefficients: Option<Coefficients>,
    /// `auto`: the model kept ("network" or "linear").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_kept: Option<Kept>,
    /// `auto`: the validation scores compared and the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<Choice>,
    /// A cross-validation's figures (the job cross-validated before training on every row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_validation: Option<crate::tabular::job::CrossValidation>,
}

impl TabularMetrics {
    /// The figures of a table job on `p`: its training run's, the test figures, a linear
    /// model's coefficients, and `auto`'s choice.
    pub fn new(
        p: &Prepared,
        training: TrainingFigures,
        test: Option<TestFigures>,
        coefficients: Option<Coefficients>,
        choice: Option<Choice>,
    ) -> Self {
        let rows = TableRows::of(p);
        TabularMetrics {
            train_rows: rows.train,
            validation_rows: rows.validation,
            test_rows: rows.test,
            training,
            test,
            coefficients,
            model_kept: choice.as_ref().map(|c| c.kept),
            selection: choice,
            cross_validation: None,
        }
    }
}

/// Writes, atomically, every column of the rows of `table` as read (identifiers and
/// columns the model does not read included, so that each prediction can be told apart), but
/// for the column `left_out` (the empty target column of rows without targets) and any named
/// as an output column, then the predictions made of `outputs`, the model's raw outputs on
/// those rows ([`FittedModel::table_outputs`]).
pub fn write_table_predictions<B: Backend>(
    path: &Path,
    model: &FittedModel<B>,
    table: &Table,
    outputs: Vec<f32>,
    left_out: Option<&str>,
) -> Result<()> {
    let predictions = model.table_predictions(table, outputs)?;
    // An input column named as an output (`prediction`) is left out: one header, one meaning.
    let outputs = predictions.csv_header();
    let names: Vec<String> = table
        .names()
        .iter()
        .filter(|n| Some(n.as_str()) != left_out && !outputs.contains(n))
        .cloned()
        .collect();
    // Streamed row by row into the file: the CSV is never held whole.
    let mut out = io::output::OutputFile::create(path)?;
    predictions.write_csv_beside(&mut out, table, &names)?;
    Ok(out.commit()?)
}
