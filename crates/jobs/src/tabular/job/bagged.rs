//! The default table model bagged over k folds: the table read and encoded once on every
//! row; for each fold, `auto`'s networks and the linear model trained on the other folds'
//! rows, their best epochs chosen on the fold's own rows, and their outputs on those rows
//! kept (out-of-fold); then a greedy ensemble selection over the candidates' out-of-fold
//! outputs, and the kept model: the weighted mean of the selected candidates' fold models,
//! one [`MlpEnsemble`] in one model file. No row is withheld from the kept model; the
//! out-of-fold score of the ensemble is the estimate the report gives.

use super::compare::{FirstNetwork, Plan, TrainedAll, WideRows, inputs_that_fit, piecewise_bins};
use super::cross::CrossValidation;
use super::extras::portfolio;
use super::features::DeviceFeatures;
use super::fold_parts::{fold_encoded, fold_part, fold_rows, rows_outside, scatter};
use super::network::{RunMode, Trainer};
use super::outcome::{
    METRICS_FILE, SCHEMA_FILE, Scored, Selection, TableJobOutcome, pretty, write_json,
    write_predictions,
};
use super::part::shared_predictions;
use super::pick::{Bag, Finished, HeldOut, choose, linear_model};
use super::{FOLDS_DIR, Portfolio, TableJob, TableJobOptions, TableReporter};
use crate::Result;
use crate::table::{Encoded, Prepared};
use crate::tabular::auto::{self, NumericEncoding};
use crate::tabular::ensemble::Truth;
use crate::tabular::report::{TabularMetrics, TestFigures, TrainingFigures};
use io::{FittedModel, Standardizer};
use nn::{Mlp, MlpEnsemble};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tensor_core::Backend;

/// What the folds trained: each candidate's bag, the steps and seconds of every run.
struct Bags<B: Backend> {
    bags: Vec<Bag<B>>,
    steps: u64,
    seconds: f64,
    /// Why a fold fitted no linear model, when one did not.
    no_linear: Option<String>,
}

/// The bagged job of `options` (its `folds` set; [`TableJobOptions::bags_over_folds`]) in
/// `dir`: the fold runs in `dir/folds/N`, the kept ensemble, `schema.json` and
/// `metrics.json` in `dir`, scored on the rows of a test file when there is one. `None`
/// when the table has more rows than `limit` (the caller trains it once instead).
pub fn bag<B: Backend>(
    options: &TableJobOptions,
    backend: &B,
    dir: &Path,
    limit: Option<usize>,
    reporter: &mut dyn TableReporter,
) -> Result<Option<TableJobOutcome<B>>> {
    let folds = options.data.folds.unwrap_or(0);
    let mut every = options.clone();
    every.data.folds = None;
    every.data.test_fraction = 0.0;
    every.data.val_fraction = Some(0.0);
    let job = TableJob::prepare(&every, reporter)?;
    let rows = job.p.train.rows;
    if limit.is_some_and(|most| rows > most) {
        return Ok(None);
    }
    if rows < 2 * folds {
        // Folds asked for by default give way to one split on a table this small.
        return match limit {
            Some(_) => {
                reporter.note(super::TableNote::OneSplit { rows, folds });
                Ok(None)
            }
            None => Err(crate::Error::refused(format!(
                "{rows} training rows are too few for {folds} folds of at least 2 rows"
            ))),
        };
    }
    let TableJob { mut p, classes, .. } = job;
    let targets = (classes == 0)
        .then(|| Standardizer::fit(&p.train.y, 1))
        .transpose()?;
    let trainer = Trainer {
        options: &every,
        backend,
        mode: RunMode::Shared,
        drop_outs: None,
        targets: targets.as_ref(),
    };
    let rows = fold_rows(&p, folds, options.training.seed);
    let (inputs, mut wide) = shared_inputs(&p, &rows, reporter)?;
    let folds = Folds {
        rows: &rows,
        inputs: &inputs,
        wide: wide.as_ref(),
    };
    let trained = train_folds(trainer, &p, folds, dir, reporter)?;
    let truth = auto::in_network_units(&p.train.y, targets.as_ref())?;
    let width = if classes == 2 { 1 } else { classes.max(1) };
    let truth = Truth {
        targets: &truth,
        width,
        classes,
    };
    let held = HeldOut::OutOfFold;
    let mut finished = choose(backend, trained.bags, &rows, held, truth, wide.as_ref())?;
    if let Some(why) = &trained.no_linear {
        finished.choice.reason += &format!("; no linear candidate: {why}");
    }
    if let (true, Some(parts)) = (finished.reads_wide, wide.as_mut()) {
        p.swap_encoded(parts);
    }
    (finished.steps, finished.seconds) = (trained.steps, trained.seconds);
    Ok(Some(finish(&p, finished, targets.as_ref(), options, dir)?))
}

/// The inputs of `auto`'s networks after the first (as the first fold's rows decide
/// them), and the piecewise-linear encoding of every row when one of them reads it (its
/// bins fitted on every row).
fn shared_inputs(
    p: &Prepared,
    rows: &[Vec<usize>],
    reporter: &mut dyn TableReporter,
) -> Result<(Vec<NumericEncoding>, Option<Encoded>)> {
    let first = fold_part(p, &rows_outside(rows, 0), &rows[0])?;
    let second = auto::second_network(None, None, &first).map(|inputs| super::compare::Second {
        inputs,
        third: auto::third_network(inputs, None),
        max_piecewise: auto::piecewise_cap(None, &first),
    });
    let (mut inputs, max) = inputs_that_fit(&first, second, reporter)?;
    drop(first);
    let Some(bins) = piecewise_bins(&inputs) else {
        return Ok((inputs, None));
    };
    let encoding = p.encoding.with_piecewise(&p.train.x, bins)?;
    if max.is_some_and(|max| encoding.width() > max) {
        inputs.retain(|i| !matches!(i, NumericEncoding::Piecewise(_)));
        return Ok((inputs, None));
    }
    let parts = p.piecewise_with(&p.train.x, encoding)?;
    Ok((inputs, Some(parts)))
}

/// The folds of a bagged job: each fold's rows, and what its networks after the first read.
struct Folds<'a> {
    /// The rows of each fold (the others' train it).
    rows: &'a [Vec<usize>],
    /// The inputs of `auto`'s networks after the first.
    inputs: &'a [NumericEncoding],
    /// The piecewise-linear encoding of every row, when one of them reads it.
    wide: Option<&'a Encoded>,
}

/// Every fold's candidates trained in `dir/folds/N`, with their out-of-fold outputs.
fn train_folds<B: Backend>(
    trainer: Trainer<'_, B>,
    p: &Prepared,
    folds_of: Folds<'_>,
    dir: &Path,
    reporter: &mut dyn TableReporter,
) -> Result<Bags<B>> {
    let Folds { rows, inputs, wide } = folds_of;
    let targets = trainer.targets;
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let folds = rows.len();
    let many_levels = p.encoding.columns_of_categories_over(auto::MANY_LEVELS);
    let many_levels = many_levels.as_slice();
    let (mut bags, mut steps, mut seconds) = (Vec::<Bag<B>>::new(), 0u64, 0f64);
    let mut no_linear = None;
    for (f, held) in rows.iter().enumerate() {
        reporter
            .runs()
            .status(&format!("fold {} of {folds}", f + 1));
        let kept = rows_outside(rows, f);
        let mut part = fold_part(p, &kept, held)?;
        let mut parts = wide.map(|w| fold_encoded(w, &kept, held)).transpose()?;
        let plain = DeviceFeatures::take(trainer.backend, &mut part.train)?;
        let lent_wide = parts
            .as_mut()
            .map(|w| DeviceFeatures::take(trainer.backend, &mut w.train));
        let lent_wide = lent_wide.transpose()?;
        let scale = auto::learns_input_scale(NumericEncoding::Plain);
        let net = trainer.network(part.train.n_features, classes, 0, scale)?;
        let run = dir.join(FOLDS_DIR).join((f + 1).to_string());
        let extras = match trainer.options.model.portfolio() {
            Portfolio::Full => portfolio(&net, &part, many_levels),
            Portfolio::Small => Vec::new(),
        };
        let first = FirstNetwork {
            net: &net,
            x: plain.tensor(),
            dir: &run,
        };
        let wide_rows = parts.as_ref().zip(lent_wide.as_ref());
        let plan = Plan {
            inputs: inputs.to_vec(),
            wide: wide_rows.map(|(parts, x)| WideRows {
                parts,
                x: x.tensor(),
            }),
            extras: &extras,
        };
        let trained = trainer.train_all(&part, first, plan, reporter)?;
        // The linear model reads the plain features; the piecewise rows' are not read again.
        drop(lent_wide);
        plain.give_back(&mut part.train)?;
        let TrainedAll::Done {
            first,
            others,
            extras: extra_outcomes,
        } = trained
        else {
            return Err(crate::Error::refused(format!(
                "stopped in fold {} of {folds}: a job bagged over folds does not resume; run it again",
                f + 1
            )));
        };
        let mut fold: Vec<(&'static str, NumericEncoding, Mlp<B>)> = Vec::new();
        let plain = std::iter::once((NumericEncoding::Plain, first));
        let outcomes = plain.chain(others).map(|(i, out)| (i.name(), i, out));
        let extra_outcomes = extras
            .iter()
            .zip(extra_outcomes)
            .filter_map(|(e, out)| Some((e.name, NumericEncoding::Plain, out?)));
        for (name, inputs, out) in outcomes.chain(extra_outcomes) {
            steps += out.report.steps;
            seconds += out.elapsed;
            fold.push((name, inputs, out.model));
        }
        match linear_model(trainer.backend, &part, targets)? {
            Ok(linear) => fold.push(("linear", NumericEncoding::Plain, linear)),
            Err(why) => no_linear = no_linear.or(Some(why)),
        }
        for (name, inputs, model) in fold {
            let val = match (inputs, parts.as_ref()) {
                (NumericEncoding::Piecewise(_), Some(parts)) => parts.val.as_ref(),
                _ => part.val.as_ref(),
            };
            let val = val.ok_or_else(|| crate::Error::refused("a fold without rows"))?;
            let outputs = shared_predictions(trainer.backend, &model, val)?;
            let width = outputs.len() / val.rows.max(1);
            // A candidate missing from the first fold (it diverged there) is left out.
            let at = match bags.iter().position(|b| b.name == name) {
                Some(at) => at,
                None if f == 0 => {
                    bags.push(Bag {
                        name,
                        inputs,
                        models: Vec::new(),
                        oof: vec![0.0; p.train.rows * width],
                    });
                    bags.len() - 1
                }
                None => continue,
            };
            let bag = &mut bags[at];
            scatter(&mut bag.oof, &outputs, held, width);
            bag.models.push(model);
        }
    }
    // A candidate missing from a fold (it diverged there) leaves the comparison.
    bags.retain(|b| b.models.len() == folds);
    Ok(Bags {
        bags,
        steps,
        seconds,
        no_linear,
    })
}

/// Saves the kept ensemble in `dir` with `schema.json`, the predictions of rows without
/// targets and `metrics.json`; the job's outcome.
fn finish<B: Backend>(
    p: &Prepared,
    done: Finished<B>,
    targets: Option<&Standardizer>,
    options: &TableJobOptions,
    dir: &Path,
) -> Result<TableJobOutcome<B>> {
    let schema = dir.join(SCHEMA_FILE);
    train::record::write_file(&schema, pretty(&p.schema, &schema)?.as_bytes())?;
    let record = write_record(dir, &done.model, p.train.rows)?;
    let parameters = nn::Layer::num_params(&done.model);
    let members = done.model.members().len();
    let fitted = FittedModel::new(done.model, p.model_info(targets))?;
    fitted.save(dir.join(train::checkpoint::FILE_NAME))?;
    let mut files = vec![record, schema];
    let scored = Scored::of(&fitted, p)?;
    let test_outputs = scored.test.clone();
    let unlabeled = write_predictions(p, &fitted, scored, dir, &mut files)?;
    let training = TrainingFigures {
        final_train_loss: None,
        final_val_loss: None,
        loss_units: String::new(),
        steps: done.steps,
        seconds: done.seconds,
        restored_step: None,
        restored_val_loss: None,
        parameters,
    };
    let measure = if p.labels.is_some() { "accuracy" } else { "r2" };
    let width = fitted.network().output_dim();
    let test = TestFigures::of(&fitted, p, test_outputs, targets, width)?;
    let choice = Some(done.choice.clone());
    let mut metrics = TabularMetrics::new(p, training, test, None, choice);
    metrics.cross_validation = Some(CrossValidation::of(measure, done.scores));
    let metrics_file = dir.join(METRICS_FILE);
    write_json(&metrics, &metrics_file)?;
    files.push(metrics_file);
    Ok(TableJobOutcome {
        model: fitted,
        asked: options.model.clone(),
        selection: Selection::Bagged(done.choice),
        metrics,
        labels: p.labels.clone(),
        features: p.train.n_features,
        summary: format!(
            "an ensemble of {members} networks from {} folds; their runs took {} steps, {:.1} s in all",
            options.data.folds.unwrap_or(0),
            done.steps,
            done.seconds
        ),
        stop_reason: nn::StopReason::Completed,
        unlabeled,
        dir: dir.to_path_buf(),
        files,
    })
}

/// The job's `config.json` in `dir`: the first fold's record (the command, data, options
/// and device) with the ensemble's architecture and every row trained on; its path.
fn write_record<B: Backend>(dir: &Path, model: &MlpEnsemble<B>, rows: usize) -> Result<PathBuf> {
    let first = dir.join(FOLDS_DIR).join("1");
    let mut record = train::record::read_value(&first).unwrap_or_default();
    let architecture = serde_json::to_value(nn::Model::config(model))
        .map_err(|e| crate::Error::json("cannot encode the ensemble's architecture", e))?;
    record.insert("architecture".into(), architecture);
    if let Some(Value::Object(data)) = record.get_mut("data") {
        data.insert(
            "rows".into(),
            json!({"train": rows, "validation": 0, "test": 0}),
        );
    }
    let path = dir.join(train::record::FILE_NAME);
    write_json(&record, &path)?;
    Ok(path)
}
