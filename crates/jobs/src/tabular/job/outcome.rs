//! [`TableJob::train`]: the model trained, `auto`'s choice made, and the kept model scored
//! on the test rows, with the files it leaves; [`TableJobOutcome`]: what it hands back.

use super::compare::{Comparison, KeptOutcome, Second};
use super::network::{Network, RunMode, Trainer};
use super::part::shared_outputs;
use super::prepare::TableJob;
use super::{TableModel, TableReporter};
use crate::Result;
use crate::error::Error;
use crate::metrics::Coefficients;
use crate::metrics::lstsq::affordable;
use crate::table::Prepared;
use crate::tabular::auto::{self, NumericEncoding, Selected};
use crate::tabular::report::{
    TabularMetrics, TestFigures, TrainingFigures, write_table_predictions,
};
use crate::tabular::{Choice, Kept};
use io::{FittedModel, Standardizer};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use train::Outcome;

/// The file of the table's columns, their types and encodings.
pub const SCHEMA_FILE: &str = "schema.json";
/// The file of the test rows' predictions.
pub const TEST_PREDICTIONS_FILE: &str = "test_predictions.csv";
/// The file of the predictions of rows given without targets.
pub const PREDICTIONS_FILE: &str = "predictions.csv";
/// The file of the job's figures.
pub const METRICS_FILE: &str = "metrics.json";

/// How the kept model was chosen.
#[derive(Debug, Clone)]
pub enum Selection {
    /// No choice: the model asked for was trained alone.
    Alone,
    /// `auto` had too few validation rows to compare: the network is kept.
    TooFewRows,
    /// `auto` was stopped by the stop flag before its comparison: the network on plain
    /// inputs, as it stood, is the job's model until the job is resumed.
    Stopped,
    /// `auto` compared the candidates and kept one, for a reason.
    Chosen(Choice),
    /// `auto` bagged over folds: the candidates' out-of-fold outputs compared and the
    /// kept ensemble's members chosen ([`Choice::reason`] says with what weights).
    Bagged(Choice),
}

/// The rows given without targets, predicted.
#[derive(Debug, Clone)]
pub struct Unlabeled {
    /// Their number.
    pub rows: usize,
    /// The file of their predictions.
    pub path: PathBuf,
}

/// A finished table job.
pub struct TableJobOutcome<B: Backend> {
    /// The kept model, which predicts raw table rows.
    pub model: FittedModel<B>,
    /// The model the options asked for.
    pub asked: TableModel,
    /// How the kept model was chosen.
    pub selection: Selection,
    /// Its figures, as `metrics.json` holds them: training, test, coefficients, choice.
    pub metrics: TabularMetrics,
    /// The class labels (`None`: a regression).
    pub labels: Option<Vec<String>>,
    /// The encoded columns the kept model reads.
    pub features: usize,
    /// `400 steps in 1.2 s`: the run's length and time.
    pub summary: String,
    /// Why the (first) run ended.
    pub stop_reason: nn::StopReason,
    /// The rows given without targets, predicted.
    pub unlabeled: Option<Unlabeled>,
    /// The run folder.
    pub dir: PathBuf,
    /// The files the job wrote into it (beside its runs' records, histories and charts).
    pub files: Vec<PathBuf>,
}

impl TableJob {
    /// Trains the model in the run folder `dir` (created by the caller, which keeps other
    /// runs out of it), and `auto`'s other candidates in folders inside; scores the kept
    /// model on the test rows and writes `schema.json`, `test_predictions.csv` (and
    /// `predictions.csv` for rows without targets) and `metrics.json`.
    pub fn train<B: Backend>(
        self,
        backend: &B,
        dir: &Path,
        reporter: &mut dyn TableReporter,
    ) -> Result<TableJobOutcome<B>> {
        self.options.check_auto_resumable(dir)?;
        let TableJob {
            options,
            mut p,
            classes,
            mut balanced,
            inputs: (first, second),
        } = self;
        let train = balanced.as_ref().unwrap_or(&p.train);
        let targets = (classes == 0)
            .then(|| Standardizer::fit(&train.y, 1))
            .transpose()?;
        let trainer = Trainer {
            options: &options,
            backend,
            mode: RunMode::Shared,
            drop_outs: None,
            targets: targets.as_ref(),
        };
        let bands = match first {
            Some(NumericEncoding::Periodic(n)) => n,
            _ => 0,
        };
        let scale =
            options.auto() && auto::learns_input_scale(first.unwrap_or(NumericEncoding::Plain));
        let net = trainer.network(train.n_features, classes, bands, scale)?;
        let train_rows = p.train.rows;
        let (out, how) = if options.auto() && balanced.is_none() {
            let second = auto::second_network(first, second, &p).map(|inputs| Second {
                inputs,
                third: auto::third_network(inputs, second),
                max_piecewise: auto::piecewise_cap(second, &p),
            });
            let compared = trainer.compare(&mut p, &net, dir, second, reporter)?;
            (compared.kept, HowKept::compared(compared.comparison))
        } else {
            let out = trainer.alone(&mut p, balanced.as_mut(), &net, dir, reporter)?;
            let how = HowKept {
                selection: Selection::Alone,
                resave: false,
            };
            (KeptOutcome::One(Box::new(out)), how)
        };
        // The features are read again only by the least-squares reference of a regression.
        let reference = classes == 0 && affordable(train_rows, p.train.n_features);
        if balanced.is_none() && !reference {
            p.train.x = Vec::new();
        }
        drop(balanced);
        let asked = options.model;
        match out {
            KeptOutcome::One(out) => report(&p, *out, &net, targets.as_ref(), dir, asked, how),
            KeptOutcome::Mix(out) => report(&p, *out, &net, targets.as_ref(), dir, asked, how),
        }
    }
}

/// How the job came to its model: the selection, and whether the run's checkpoint holds
/// another candidate (the kept model replaces it).
struct HowKept {
    selection: Selection,
    resave: bool,
}

impl HowKept {
    /// How `auto`'s `comparison` kept its model.
    fn compared(comparison: Comparison) -> Self {
        let (selection, resave) = match comparison {
            Comparison::TooFewRows => (Selection::TooFewRows, false),
            Comparison::Stopped => (Selection::Stopped, false),
            Comparison::Made(Selected { choice, resave }) => (Selection::Chosen(choice), resave),
        };
        HowKept { selection, resave }
    }
}

/// Scores the kept model on the test rows and writes the schema, the predictions and the
/// figures in `dir`; `asked`: the model the options asked for.
fn report<B: Backend, M: nn::Model<B>>(
    p: &Prepared,
    out: Outcome<M>,
    net: &Network,
    targets: Option<&Standardizer>,
    dir: &Path,
    asked: TableModel,
    how: HowKept,
) -> Result<TableJobOutcome<B>> {
    let HowKept { selection, resave } = how;
    let choice = match &selection {
        Selection::Chosen(c) => Some(c.clone()),
        _ => None,
    };
    let kept_linear = choice.as_ref().is_some_and(|c| c.kept == Kept::Linear);
    let linear = net.hidden.is_empty() || kept_linear;
    let coefficients = linear.then(|| out.model.export_state()).transpose()?;
    let schema = dir.join(SCHEMA_FILE);
    train::record::write_file(&schema, pretty(&p.schema, &schema)?.as_bytes())?;
    let (summary, stop_reason) = (out.summary(), out.report.stop_reason);
    let training = TrainingFigures::of(&out);
    let fitted = FittedModel::new(out.model, p.model_info(targets))?;
    if resave {
        // The run's checkpoint holds another candidate: the kept model replaces it, and the
        // record names its architecture (a finished job does not resume).
        let architecture = fitted.network().config_value();
        let architecture = architecture
            .map_err(|e| Error::json("cannot encode the kept model's architecture", e))?;
        record_kept_architecture(dir, architecture)?;
        fitted.save(dir.join(train::checkpoint::FILE_NAME))?;
    }
    // The test figures come from the fitted model on the raw test rows: exactly what
    // predicting them gives.
    let scored = Scored::of(&fitted, p)?;
    let test = TestFigures::of(&fitted, p, scored.test.clone(), targets, net.out_dim)?;
    let coefficients = coefficients
        .as_deref()
        .and_then(|state| Coefficients::of_linear(state, &p.train.feature_names, targets));
    let mut files = vec![schema];
    let unlabeled = write_predictions(p, &fitted, scored, dir, &mut files)?;
    let metrics = TabularMetrics::new(p, training, test, coefficients, choice);
    let metrics_file = dir.join(METRICS_FILE);
    write_json(&metrics, &metrics_file)?;
    files.push(metrics_file);
    Ok(TableJobOutcome {
        model: fitted,
        asked,
        selection,
        metrics,
        labels: p.labels.clone(),
        features: p.train.n_features,
        summary,
        stop_reason,
        unlabeled,
        dir: dir.to_path_buf(),
        files,
    })
}

/// The kept model's raw outputs on the test rows and on the rows given without targets,
/// where the table has them; each process of a run over several computes its share.
pub(super) struct Scored {
    /// On the test rows.
    pub(super) test: Option<Vec<f32>>,
    /// On the rows without targets.
    pub(super) unlabeled: Option<Vec<f32>>,
}

impl Scored {
    /// The outputs of `fitted` on the rows of `p`.
    pub(super) fn of<B: Backend>(fitted: &FittedModel<B>, p: &Prepared) -> Result<Self> {
        let test = match p.test {
            Some(_) => Some(shared_outputs(fitted, &p.test_table)?),
            None => None,
        };
        let unlabeled = match &p.unlabeled {
            Some(rows) => Some(shared_outputs(fitted, rows)?),
            None => None,
        };
        Ok(Scored { test, unlabeled })
    }
}

/// Writes the test rows' predictions, and those of the rows given without targets (which
/// it returns), made of their `scored` outputs; adds the files to `files`.
pub(super) fn write_predictions<B: Backend>(
    p: &Prepared,
    fitted: &FittedModel<B>,
    scored: Scored,
    dir: &Path,
    files: &mut Vec<PathBuf>,
) -> Result<Option<Unlabeled>> {
    if let Some(outputs) = scored.test {
        let test = dir.join(TEST_PREDICTIONS_FILE);
        write_table_predictions(&test, fitted, &p.test_table, outputs, None)?;
        files.push(test);
    }
    let (Some(rows), Some(outputs)) = (&p.unlabeled, scored.unlabeled) else {
        return Ok(None);
    };
    let path = dir.join(PREDICTIONS_FILE);
    write_table_predictions(&path, fitted, rows, outputs, Some(&p.target))?;
    files.push(path.clone());
    let rows = rows.rows();
    Ok(Some(Unlabeled { rows, path }))
}

/// Writes `value` to `path` as pretty-printed JSON, ending in a new line.
pub(super) fn write_json<T: Serialize>(value: &T, path: &Path) -> Result<()> {
    let text = pretty(value, path)? + "\n";
    Ok(train::record::write_file(path, text.as_bytes())?)
}

/// `value` as pretty-printed JSON (through a JSON value: its keys in the order that gives).
pub(super) fn pretty<T: Serialize>(value: &T, path: &Path) -> Result<String> {
    let what = || format!("cannot encode {}", path.display());
    let value = serde_json::to_value(value).map_err(|e| Error::json(what(), e))?;
    serde_json::to_string_pretty(&value).map_err(|e| Error::json(what(), e))
}

/// Rewrites the architecture in the record (`config.json`) of `dir` as `architecture`, the
/// rest of the record as it is.
fn record_kept_architecture(dir: &Path, architecture: serde_json::Value) -> Result<()> {
    let Some(mut record) = train::record::read_value(dir) else {
        return Ok(());
    };
    record.insert("architecture".into(), architecture);
    write_json(&record, &dir.join(train::record::FILE_NAME))
}
