//! `mlp --model auto` (the default): the network trained on most training rows with the
//! weights of its best epoch on the rest, a linear model fitted on the same rows, and the
//! one with the better validation score kept (`train::tabular`). The choice and its reason
//! are printed and written to `metrics.json`.

use super::matrix;
use crate::cli::{ModelArg, RegressionArgs};
use anyhow::Result;
use io::Standardizer;
use nn::Mlp;
use tensor_core::Backend;
use train::Outcome;
use train::table::{Prepared, network_targets};
use train::tabular::blend::blend;
use train::tabular::{Choice, Kept, choose, fit_linear, linear_network, score};

/// The share of training rows `auto` holds out for validation when none is given.
pub const AUTO_VAL_FRACTION: f32 = 0.2;
/// Fewer validation rows than this make no comparison: the network is kept.
pub const MIN_VAL_ROWS: usize = 30;
/// Patience of the best-epoch selection, in epochs: a network whose validation loss has not
/// improved for this many stops, keeping its best weights (on the 13 tables of
/// docs/BENCHMARKS.md, 20 cost panel_wages and wage 0.01 R²; 30 moved no score by more than
/// 0.0003 and saved a tenth of the time).
pub const BEST_EPOCH_PATIENCE: u64 = 30;

/// The data options `auto` trains with: [`AUTO_VAL_FRACTION`] of the training rows held out
/// for validation when no share is given (a table too small for [`MIN_VAL_ROWS`] of them
/// keeps its network without comparison, with a note: [`select`]).
pub fn data_options(model: ModelArg, a: &RegressionArgs) -> RegressionArgs {
    let mut a = a.clone();
    if model == ModelArg::Auto && a.val_fraction.is_none() {
        a.val_fraction = Some(AUTO_VAL_FRACTION);
    }
    a
}

/// Early stopping as asked; for `auto` with validation rows and no patience given, the
/// best epoch's weights kept, stopping after [`BEST_EPOCH_PATIENCE`] epochs without a better
/// validation loss.
pub fn early_stopping(
    model: ModelArg,
    patience: Option<u64>,
    p: &Prepared,
) -> Option<nn::EarlyStopping> {
    let auto = model == ModelArg::Auto && p.val.is_some();
    match patience {
        Some(n) => Some(nn::EarlyStopping::new(n, 0.0)),
        None if auto => Some(nn::EarlyStopping::new(BEST_EPOCH_PATIENCE, 0.0)),
        None => None,
    }
}

/// Encoding bands of `auto`'s second network.
pub const AUTO_PERIODIC: usize = 3;
/// The second network's run folder, inside the job's.
pub const PERIODIC_DIR: &str = "periodic";
/// Tables of more encoded columns train no second network (its encoding is 7 times wider).
pub const MAX_PERIODIC_INPUTS: usize = 100;

/// Whether `auto` trains a second network, with periodic inputs: no encoding asked for,
/// enough validation rows, and at most [`MAX_PERIODIC_INPUTS`] encoded columns.
pub fn second_network(periodic: Option<usize>, p: &Prepared) -> bool {
    let val_rows = p.val.as_ref().map_or(0, |v| v.rows);
    periodic.is_none() && val_rows >= MIN_VAL_ROWS && p.train.n_features <= MAX_PERIODIC_INPUTS
}

/// The kept model and whether it differs from the network in the run's checkpoint.
pub struct Selected {
    /// The choice and its figures.
    pub choice: Choice,
    /// The checkpoint holds another candidate: the kept model must replace it.
    pub resave: bool,
}

/// Validation rows with targets in the network's units, and the output width.
fn validation<'p>(
    p: &'p Prepared,
    targets: Option<&Standardizer>,
) -> Result<Option<(&'p io::Dataset, Vec<f32>, usize)>> {
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let Some(val) = p.val.as_ref().filter(|v| v.rows >= MIN_VAL_ROWS) else {
        return Ok(None);
    };
    let truth = match targets {
        Some(t) => t.transform(&val.y)?,
        None => val.y.clone(),
    };
    Ok(Some((
        val,
        truth,
        if classes == 2 { 1 } else { classes.max(1) },
    )))
}

/// A trained network's raw outputs on the validation rows.
fn validation_outputs<B: Backend>(
    backend: &B,
    val: &io::Dataset,
    model: &Mlp<B>,
) -> Result<Vec<f32>> {
    let xv = matrix(backend, &val.x, val.rows, val.n_features)?;
    Ok(nn::Model::predict(model, &xv)?.to_vec()?)
}

/// The validation score of a trained network.
fn network_score<B: Backend>(
    backend: &B,
    p: &Prepared,
    model: &Mlp<B>,
    targets: Option<&Standardizer>,
) -> Result<f64> {
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let Some((val, truth, width)) = validation(p, targets)? else {
        return Ok(f64::NAN);
    };
    let outputs = validation_outputs(backend, val, model)?;
    Ok(score(&outputs, width, &truth, classes))
}

/// How the network was chosen among two (a line for the report), and whether it is not the
/// one in the run's checkpoint.
pub type NetworkNote = (String, bool);

/// The best on the validation rows of the network on plain inputs (`plain`, whose
/// checkpoint is the run's), the one with periodic inputs, and their mean (one network,
/// [`blend`]); with a line saying which.
pub fn better_network<B: Backend>(
    backend: &B,
    p: &Prepared,
    mut plain: Outcome<Mlp<B>>,
    periodic: Outcome<Mlp<B>>,
    targets: Option<&Standardizer>,
) -> Result<(Outcome<Mlp<B>>, NetworkNote)> {
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let Some((val, truth, width)) = validation(p, targets)? else {
        return Ok((plain, ("no validation rows: plain kept".into(), false)));
    };
    let oa = validation_outputs(backend, val, &plain.model)?;
    let ob = validation_outputs(backend, val, &periodic.model)?;
    let mean: Vec<f32> = oa.iter().zip(&ob).map(|(a, b)| 0.5 * (a + b)).collect();
    let (a, b, m) = (
        score(&oa, width, &truth, classes),
        score(&ob, width, &truth, classes),
        score(&mean, width, &truth, classes),
    );
    let line =
        format!("network on plain inputs {a:.4}, with periodic inputs {b:.4}, their mean {m:.4}");
    Ok(if m > a && m >= b {
        plain.model = blend(backend, &plain.model, &periodic.model, 0)?;
        (plain, (format!("{line}: the mean kept"), true))
    } else if b > a {
        (periodic, (format!("{line}: periodic kept"), true))
    } else {
        (plain, (format!("{line}: plain kept"), false))
    })
}

/// The network's and a linear model's validation scores compared; when the linear model
/// wins, it is refitted on the training and validation rows and replaces the network in
/// `out`. `note`: how the network was chosen among two, and whether it is not the run's
/// checkpoint. `None` when there are too few validation rows to compare (with a note).
pub fn select<B: Backend>(
    backend: &B,
    p: &Prepared,
    train_x: &[f32],
    out: &mut Outcome<Mlp<B>>,
    targets: Option<&Standardizer>,
    note: Option<NetworkNote>,
) -> Result<Option<Selected>> {
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let Some((val, truth, width)) = validation(p, targets)? else {
        println!(
            "note: model auto: too few training rows to hold out {MIN_VAL_ROWS} for validation; the network is kept without comparison"
        );
        return Ok(None);
    };
    let network = network_score(backend, p, &out.model, targets)?;
    let cols = p.train.n_features;
    let y = network_targets(&p.train.y, classes, targets)?;
    let linear = fit_linear(train_x, &y, p.train.rows, cols, classes).map(|fit| {
        let outputs: Vec<f32> = fit
            .outputs(&val.x, cols)
            .iter()
            .map(|&v| v as f32)
            .collect();
        score(&outputs, width, &truth, classes)
    });
    let measure = if classes > 0 { "accuracy" } else { "R²" };
    let mut choice = choose(network, linear, measure, val.rows);
    let mut resave = note.as_ref().is_some_and(|n| n.1);
    if let Some((line, _)) = &note {
        choice.reason = format!("{} (validation {measure}: {line})", choice.reason);
    }
    if choice.kept == Kept::Linear {
        // Refitted on every training row, validation rows included.
        let mut x = train_x.to_vec();
        x.extend_from_slice(&val.x);
        let mut y = y;
        y.extend(network_targets(&val.y, classes, targets)?);
        let rows = p.train.rows + val.rows;
        let fit = fit_linear(&x, &y, rows, cols, classes).map_err(anyhow::Error::msg)?;
        out.model = linear_network(backend, &fit, 0)?;
        resave = true;
    }
    println!(
        "model kept: {} ({})",
        match choice.kept {
            Kept::Network => "the network",
            Kept::Linear => "the linear model",
        },
        choice.reason
    );
    Ok(Some(Selected { choice, resave }))
}
