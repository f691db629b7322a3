//! What a table job is asked to do: [`TableJobOptions`], plain data that a program fills
//! from its own flags or settings, with every table default here or in
//! [`crate::defaults`] and [`auto`](crate::tabular::auto).

use super::error::TableRefusal;
use crate::table::{Fold, MAX_FOLDS};
use io::table::TypeOverrides;
use nn::{Activation, HiddenLayers};
use std::path::{Path, PathBuf};
use train::TrainChoices;

/// The share of rows held out for testing when the file has no test part.
pub const DEFAULT_TEST_FRACTION: f32 = 0.2;
/// The share of training rows held out for validation when early stopping is asked and no
/// share is given.
pub const PATIENCE_VAL_FRACTION: f32 = 0.1;
/// AdamW's decoupled weight decay of the table networks (with [`MLP_HIDDEN`] and the
/// length, measured on the 13 tables of docs/BENCHMARKS.md).
///
/// [`MLP_HIDDEN`]: crate::defaults::MLP_HIDDEN
pub const DEFAULT_WEIGHT_DECAY: f32 = 2.0;

/// Which model of the table to train.
#[derive(Debug, Clone, PartialEq)]
pub enum TableModel {
    /// A single linear layer on the encoded rows, MSE loss (a regression).
    Linear,
    /// A single linear layer with a sigmoid, cross-entropy loss (two classes).
    Logistic,
    /// A multilayer network, alone or as `auto`'s candidate.
    Network(NetworkOptions),
}

impl TableModel {
    /// The portfolio of a network job (`auto`'s; the full one for any other model).
    pub fn portfolio(&self) -> Portfolio {
        match self {
            TableModel::Network(n) => n.portfolio,
            _ => Portfolio::Full,
        }
    }
}

/// Regression or classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableTask {
    /// Predict a number.
    Regression,
    /// Predict a class.
    Classification,
}

impl TableTask {
    /// `regression` or `classification`, as run records name it.
    pub fn name(self) -> &'static str {
        match self {
            TableTask::Regression => "regression",
            TableTask::Classification => "classification",
        }
    }
}

/// The network alone, or `auto`'s choice among candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelChoice {
    /// The networks and a linear model compared on held-out training rows; the best kept
    /// ([`auto`](crate::tabular::auto)).
    Auto,
    /// The network alone, trained on every training row.
    Network,
}

/// The candidates that the default model bagged over folds trains in each fold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Portfolio {
    /// `auto`'s networks (plain, periodic, piecewise-linear) and the linear model.
    Small,
    /// Those, the plain network without weight decay and, on a table with a category of
    /// many levels, the plain network without those categories
    /// (docs/BENCHMARKS.md, "A portfolio" and "Categories of many levels").
    #[default]
    Full,
}

/// How a table network reads numbers, as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingAsked {
    /// Standardised, as they are.
    Plain,
    /// Beside sines and cosines of each number.
    Periodic,
    /// Piecewise-linear at the training quantiles.
    Piecewise,
}

impl EncodingAsked {
    /// `plain`, `periodic` or `piecewise`.
    pub fn name(self) -> &'static str {
        match self {
            EncodingAsked::Plain => "plain",
            EncodingAsked::Periodic => "periodic",
            EncodingAsked::Piecewise => "piecewise",
        }
    }
}

/// How the networks read numbers, as asked ([`numeric_encodings`](super::numeric_encodings) resolves them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NumberOptions {
    /// The encoding (with `auto`, the second network's inputs).
    pub encoding: Option<EncodingAsked>,
    /// Periodic bands (with `auto`, the network's inputs and no second network).
    pub periodic: Option<usize>,
    /// Bins of the piecewise-linear encoding.
    pub bins: Option<usize>,
}

/// The network of a table job.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkOptions {
    /// Regression or classification (`None`: from the target column).
    pub task: Option<TableTask>,
    /// Hidden layers.
    pub hidden: HiddenLayers,
    /// Hidden activation.
    pub activation: Activation,
    /// AdamW's weight decay (0: Adam).
    pub weight_decay: f32,
    /// The network alone or `auto`.
    pub choice: ModelChoice,
    /// How it reads numbers.
    pub numbers: NumberOptions,
    /// The candidates of `auto` bagged over folds.
    pub portfolio: Portfolio,
}

impl Default for NetworkOptions {
    /// `auto` with [`MLP_HIDDEN`](crate::defaults::MLP_HIDDEN) ReLU layers and
    /// [`DEFAULT_WEIGHT_DECAY`], the task from the target.
    fn default() -> Self {
        NetworkOptions {
            task: None,
            hidden: crate::defaults::MLP_HIDDEN
                .parse()
                .unwrap_or_else(|_| HiddenLayers(vec![128; 3])),
            activation: Activation::Relu,
            weight_decay: DEFAULT_WEIGHT_DECAY,
            choice: ModelChoice::Auto,
            numbers: NumberOptions::default(),
            portfolio: Portfolio::Full,
        }
    }
}

/// How to read, split and weigh the table.
#[derive(Debug, Clone, Default)]
pub struct TableDataOptions {
    /// The data file: CSV, Parquet or the JSON format.
    pub data: PathBuf,
    /// The target column (`None`: the last).
    pub target: Option<String>,
    /// A separate file of test rows.
    pub test_data: Option<PathBuf>,
    /// Share of rows held out for testing when there is no test part (0: none; every row
    /// trains, and the outcome has no test figures).
    pub test_fraction: f32,
    /// Share of the training rows held out for validation (`None`: [`auto`]'s share, or
    /// [`PATIENCE_VAL_FRACTION`] with early stopping, else none).
    ///
    /// [`auto`]: crate::tabular::auto::validation_fraction
    pub val_fraction: Option<f32>,
    /// Early stopping's patience, in epochs.
    pub patience: Option<u64>,
    /// Drop rows with a missing cell instead of imputing it.
    pub drop_missing: bool,
    /// Columns read as categories, as numbers, or left out.
    pub overrides: TypeOverrides,
    /// Repeat each class's training rows to the most common class's count.
    pub balanced: bool,
    /// Cross-validate over this many folds (2 to [`MAX_FOLDS`]), then train on every row
    /// ([`cross_validate`](super::cross_validate)); `None`: no cross-validation.
    ///
    /// [`MAX_FOLDS`]: crate::table::MAX_FOLDS
    pub folds: Option<usize>,
    /// Cross-validate only a table of at most this many rows (`None`: any): a larger one
    /// is trained once, `test_fraction` of its rows held out for testing.
    pub folds_up_to_rows: Option<usize>,
    /// The fold of a cross-validation whose rows this job tests on (set by
    /// [`cross_validate`](super::cross_validate) for each fold's job).
    pub fold: Option<Fold>,
}

/// A table job: the table, the model, the training choices.
#[derive(Debug, Clone)]
pub struct TableJobOptions {
    /// The table.
    pub data: TableDataOptions,
    /// The model.
    pub model: TableModel,
    /// The training choices.
    pub training: TrainChoices,
}

impl TableJobOptions {
    /// A job on the table in `data` with `model`, everything else by default: a fifth of
    /// the rows held out for testing, seed 42, a checkpoint every 500 steps.
    pub fn new(data: impl Into<PathBuf>, model: TableModel) -> Self {
        TableJobOptions {
            data: TableDataOptions {
                data: data.into(),
                test_fraction: DEFAULT_TEST_FRACTION,
                ..TableDataOptions::default()
            },
            model,
            training: TrainChoices::default(),
        }
    }

    /// The job's name, in records and checkpoints: `linreg`, `logreg` or `mlp`.
    pub fn job(&self) -> &'static str {
        match self.model {
            TableModel::Linear => "linreg",
            TableModel::Logistic => "logreg",
            TableModel::Network(_) => "mlp",
        }
    }

    /// Whether the job is `auto`'s choice among candidates.
    pub fn auto(&self) -> bool {
        matches!(&self.model, TableModel::Network(n) if n.choice == ModelChoice::Auto)
    }

    /// The task when the model fixes it (`None`: the target decides).
    pub fn classify(&self) -> Option<bool> {
        match &self.model {
            TableModel::Linear => Some(false),
            TableModel::Logistic => Some(true),
            TableModel::Network(n) => n.task.map(|t| t == TableTask::Classification),
        }
    }

    /// How the networks read numbers, as asked.
    pub fn numbers(&self) -> Option<&NumberOptions> {
        match &self.model {
            TableModel::Network(n) => Some(&n.numbers),
            _ => None,
        }
    }

    /// Refuses to resume the run in `dir` for another task than the one its record says it
    /// was trained for; call it before [`TableJob::prepare`](super::TableJob::prepare), whose
    /// reading of the table would refuse the classes or targets for a reason that hides
    /// this one. Passes when nothing is resumed, the task is left to the target, or the
    /// folder holds no record naming a task.
    pub fn check_resumed_task(&self, dir: &Path) -> Result<(), TableRefusal> {
        let asked = match &self.model {
            TableModel::Network(NetworkOptions { task: Some(t), .. }) if self.training.resume => {
                t.name()
            }
            _ => return Ok(()),
        };
        let record = train::record::read_value(dir).unwrap_or_default();
        let trained = record
            .get("options")
            .and_then(|o| o.get("task"))
            .and_then(serde_json::Value::as_str);
        match trained {
            Some(trained) if trained != asked => Err(TableRefusal::ResumedForOtherTask {
                dir: dir.to_path_buf(),
                trained: trained.to_string(),
                asked,
            }),
            _ => Ok(()),
        }
    }

    /// Refuses to resume an `auto` job in `dir` whose comparison was made: its
    /// `metrics.json` names the kept model and no interruption, and the first run's
    /// checkpoint may hold the kept model; and one in a folder that holds no run of it (no
    /// record, no checkpoint of any of its networks), as a network's resume is refused
    /// without its checkpoint. [`TableJob::train`](super::TableJob::train) calls it; a
    /// stopped job, or one with no figures yet, passes.
    pub fn check_auto_resumable(&self, dir: &Path) -> Result<(), TableRefusal> {
        if !(self.auto() && self.training.resume) {
            return Ok(());
        }
        if !holds_auto_run(dir) && dir.join(super::FOLDS_DIR).is_dir() {
            return Err(TableRefusal::BaggedDoesNotResume {
                dir: dir.to_path_buf(),
            });
        }
        if !holds_auto_run(dir) {
            return Err(TableRefusal::NothingToResume {
                dir: dir.to_path_buf(),
            });
        }
        let text = std::fs::read_to_string(dir.join(super::outcome::METRICS_FILE));
        let metrics: serde_json::Value = text
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let kept = metrics.get("model_kept").is_some();
        let interrupted = metrics.get("interrupted") == Some(&serde_json::Value::Bool(true));
        match kept && !interrupted {
            true => Err(TableRefusal::AutoFinished {
                dir: dir.to_path_buf(),
            }),
            false => Ok(()),
        }
    }

    /// Whether the job is bagged when it works over folds: the default model, with no
    /// classes balanced and nothing asked of its inputs (encoding, bands or bins). Another
    /// job is trained once per fold, then on every row.
    pub fn bags_over_folds(&self) -> bool {
        let asked = self
            .numbers()
            .is_some_and(|n| n.encoding.is_some() || n.periodic.is_some() || n.bins.is_some());
        self.auto() && !self.data.balanced && !asked
    }

    /// Refuses options out of their range or that contradict each other.
    pub fn check(&self) -> Result<(), TableRefusal> {
        let d = &self.data;
        if !(0.0..1.0).contains(&d.test_fraction) {
            return Err(TableRefusal::TestFraction(d.test_fraction));
        }
        if let Some(f) = d.val_fraction.filter(|f| !(0.0..1.0).contains(f)) {
            return Err(TableRefusal::ValFraction(f));
        }
        if let Some(k) = d.folds {
            if !(2..=MAX_FOLDS).contains(&k) {
                return Err(TableRefusal::Folds(k));
            }
            if self.training.resume || (d.test_data.is_some() && !self.bags_over_folds()) {
                return Err(TableRefusal::FoldsWithTestRows);
            }
        }
        match &self.model {
            TableModel::Network(n) if !(n.weight_decay.is_finite() && n.weight_decay >= 0.0) => {
                Err(TableRefusal::WeightDecay(n.weight_decay))
            }
            TableModel::Network(n)
                if n.portfolio != Portfolio::default() && n.choice != ModelChoice::Auto =>
            {
                Err(TableRefusal::PortfolioOfOneNetwork)
            }
            _ => Ok(()),
        }
    }
}

/// Whether `dir` holds a run of an `auto` job: a record or a checkpoint of its first
/// network, or a checkpoint of one of the others.
fn holds_auto_run(dir: &Path) -> bool {
    use crate::tabular::auto::{PERIODIC_DIR, PIECEWISE_DIR};
    let checkpoint = train::checkpoint::FILE_NAME;
    dir.join(train::record::FILE_NAME).exists()
        || [
            Path::new(""),
            Path::new(PERIODIC_DIR),
            Path::new(PIECEWISE_DIR),
        ]
        .iter()
        .any(|sub| dir.join(sub).join(checkpoint).exists())
}
