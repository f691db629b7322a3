//! The options of a table estimator, as the Python side passes them (a dict with every
//! key), converted once into the library's [`TableJobOptions`].

use crate::failure::{Failure, Result};
use io::table::TypeOverrides;
use jobs::tabular::job::{
    EncodingAsked, ModelChoice, NetworkOptions, NumberOptions, Portfolio, TableDataOptions,
    TableJobOptions, TableModel, TableTask,
};
use nn::{Activation, TrainLength};
use pyo3::FromPyObject;
use std::path::PathBuf;
use train::{BatchChoice, Schedule, TrainChoices};

/// A table estimator's parameters, read from a dict of the same names.
#[derive(Debug, Clone, FromPyObject)]
#[pyo3(from_item_all)]
pub struct TableSpec {
    /// `classification` or `regression`.
    pub task: String,
    /// `auto`, `mlp` or `linear`.
    pub model: String,
    /// Hidden widths, `256,256` or `256x3`.
    pub hidden: Option<String>,
    /// `relu`, `tanh`, `sigmoid` or `sine`.
    pub activation: Option<String>,
    /// AdamW's weight decay.
    pub weight_decay: Option<f32>,
    /// `plain`, `periodic` or `piecewise`.
    pub numeric_encoding: Option<String>,
    /// Periodic bands.
    pub periodic: Option<usize>,
    /// Piecewise-linear bins.
    pub bins: Option<usize>,
    /// Share of the rows held out for validation.
    pub val_fraction: Option<f32>,
    /// Early stopping's patience, in epochs.
    pub patience: Option<u64>,
    /// Drop rows with a missing cell.
    pub drop_missing: bool,
    /// Columns read as categories.
    pub categorical: Vec<String>,
    /// Columns read as numbers.
    pub numeric: Vec<String>,
    /// Columns left out.
    pub ignore: Vec<String>,
    /// `balanced`, or none.
    pub class_weight: Option<String>,
    /// Folds to work over (the default model bagged over them), or none: one split.
    pub folds: Option<usize>,
    /// `small` or `full` (none: full).
    pub portfolio: Option<String>,
}

/// The training choices every job takes, read from the same dict as the job's own options.
#[derive(Debug, Clone, FromPyObject)]
#[pyo3(from_item_all)]
pub struct TrainingSpec {
    /// The seed (already reduced to 64 bits).
    pub seed: u64,
    /// Learning rate.
    pub lr: Option<f32>,
    /// Passes over the data.
    pub epochs: Option<u64>,
    /// Optimizer steps.
    pub steps: Option<u64>,
    /// Rows (or pixels) per step, or `full`.
    pub batch: Option<String>,
    /// `constant`, `step` or `cosine`.
    pub schedule: Option<String>,
}

impl TrainingSpec {
    /// The library's training choices: these, a checkpoint only at the end, a fresh start.
    pub fn choices(&self) -> Result<TrainChoices> {
        let length = match (self.epochs, self.steps) {
            (Some(_), Some(_)) => return Err(Failure::value("give epochs or steps, not both")),
            (Some(e), None) => Some(TrainLength::Epochs(e)),
            (None, s) => s.map(TrainLength::Steps),
        };
        let batch: Option<BatchChoice> = match &self.batch {
            Some(b) => Some(
                b.parse()
                    .map_err(|e| Failure::value(format!("batch: {e}")))?,
            ),
            None => None,
        };
        Ok(TrainChoices {
            lr: self.lr,
            length,
            batch,
            schedule: self.schedule.as_deref().map(schedule).transpose()?,
            seed: self.seed,
            checkpoint_every: 0,
            ..TrainChoices::default()
        })
    }
}

impl TableSpec {
    /// The library's options for a table in `data` whose target column is `target`,
    /// trained as `training` says on every row (no test rows held out).
    pub fn options(
        &self,
        data: PathBuf,
        target: String,
        training: &TrainingSpec,
    ) -> Result<TableJobOptions> {
        Ok(TableJobOptions {
            data: TableDataOptions {
                data,
                target: Some(target),
                test_data: None,
                test_fraction: 0.0,
                val_fraction: self.val_fraction,
                patience: self.patience,
                drop_missing: self.drop_missing,
                overrides: TypeOverrides {
                    categorical: self.categorical.clone(),
                    numeric: self.numeric.clone(),
                    ignore: self.ignore.clone(),
                },
                balanced: self.balanced()?,
                folds: self.folds,
                folds_up_to_rows: None,
                fold: None,
            },
            model: self.model()?,
            training: training.choices()?,
        })
    }

    fn classify(&self) -> Result<bool> {
        match self.task.as_str() {
            "classification" => Ok(true),
            "regression" => Ok(false),
            other => Err(Failure::value(format!(
                "task must be 'classification' or 'regression', not {other:?}"
            ))),
        }
    }

    fn balanced(&self) -> Result<bool> {
        match self.class_weight.as_deref() {
            None => Ok(false),
            Some("balanced") => Ok(true),
            Some(other) => Err(Failure::value(format!(
                "class_weight must be None or 'balanced', not {other:?}"
            ))),
        }
    }

    fn model(&self) -> Result<TableModel> {
        let classify = self.classify()?;
        let choice = match self.model.as_str() {
            "linear" if classify => return Ok(TableModel::Logistic),
            "linear" => return Ok(TableModel::Linear),
            "auto" => ModelChoice::Auto,
            "mlp" => ModelChoice::Network,
            other => {
                return Err(Failure::value(format!(
                    "model must be 'auto', 'mlp' or 'linear', not {other:?}"
                )));
            }
        };
        let default = NetworkOptions::default();
        Ok(TableModel::Network(NetworkOptions {
            task: Some(match classify {
                true => TableTask::Classification,
                false => TableTask::Regression,
            }),
            hidden: match &self.hidden {
                Some(h) => h
                    .parse()
                    .map_err(|e| Failure::value(format!("hidden: {e}")))?,
                None => default.hidden,
            },
            activation: match &self.activation {
                Some(a) => activation(a)?,
                None => default.activation,
            },
            weight_decay: self.weight_decay.unwrap_or(default.weight_decay),
            choice,
            numbers: NumberOptions {
                encoding: self.numeric_encoding.as_deref().map(encoding).transpose()?,
                periodic: self.periodic,
                bins: self.bins,
            },
            portfolio: match self.portfolio.as_deref() {
                Some(name) => portfolio(name)?,
                None => default.portfolio,
            },
        }))
    }
}

/// The portfolio named `name`.
fn portfolio(name: &str) -> Result<Portfolio> {
    match name {
        "small" => Ok(Portfolio::Small),
        "full" => Ok(Portfolio::Full),
        other => Err(Failure::value(format!(
            "portfolio must be 'small' or 'full', not {other:?}"
        ))),
    }
}

/// The hidden activation named `name`.
fn activation(name: &str) -> Result<Activation> {
    Ok(match name {
        "relu" => Activation::Relu,
        "tanh" => Activation::Tanh,
        "sigmoid" => Activation::Sigmoid,
        "sine" => Activation::Sine { w0: 1.0 },
        other => {
            return Err(Failure::value(format!(
                "activation must be 'relu', 'tanh', 'sigmoid' or 'sine', not {other:?}"
            )));
        }
    })
}

/// The encoding of numbers named `name`.
fn encoding(name: &str) -> Result<EncodingAsked> {
    Ok(match name {
        "plain" => EncodingAsked::Plain,
        "periodic" => EncodingAsked::Periodic,
        "piecewise" => EncodingAsked::Piecewise,
        other => {
            return Err(Failure::value(format!(
                "numeric_encoding must be 'plain', 'periodic' or 'piecewise', not {other:?}"
            )));
        }
    })
}

/// The learning-rate schedule named `name`.
pub fn schedule(name: &str) -> Result<Schedule> {
    Ok(match name {
        "constant" => Schedule::Constant,
        "step" => Schedule::Step,
        "cosine" => Schedule::Cosine,
        other => {
            return Err(Failure::value(format!(
                "schedule must be 'constant', 'step' or 'cosine', not {other:?}"
            )));
        }
    })
}
