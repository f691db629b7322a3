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
use train::tabular::{Choice, Kept, choose, fit_linear, linear_network, score};

/// The share of training rows `auto` holds out for validation when none is given.
pub const AUTO_VAL_FRACTION: f32 = 0.2;
/// Fewer validation rows than this make no comparison: the network is kept.
pub const MIN_VAL_ROWS: usize = 30;
/// Patience of the best-epoch selection (in evaluations): long enough never to stop early.
pub const BEST_EPOCH_PATIENCE: u64 = u64::MAX / 2;

/// The data options `auto` trains with: a validation share when none is given (unless the
/// table is too small for it, with a note).
pub fn data_options(model: ModelArg, a: &RegressionArgs, rows: Option<usize>) -> RegressionArgs {
    let mut a = a.clone();
    if model == ModelArg::Auto && a.val_fraction.is_none() {
        let enough = rows.is_none_or(|r| (r as f32 * AUTO_VAL_FRACTION) as usize >= MIN_VAL_ROWS);
        a.val_fraction = Some(if enough { AUTO_VAL_FRACTION } else { 0.0 });
    }
    a
}

/// Early stopping as asked; for `auto` with validation rows and no patience given, the
/// best epoch's weights kept without stopping early.
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

/// The network's and a linear model's validation scores compared; when the linear model
/// wins, it is refitted on the training and validation rows and replaces the network in
/// `out`. `None` when there are too few validation rows to compare (with a note).
pub fn select<B: Backend>(
    backend: &B,
    p: &Prepared,
    train_x: &[f32],
    out: &mut Outcome<Mlp<B>>,
    targets: Option<&Standardizer>,
    seed: u64,
) -> Result<Option<Choice>> {
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let Some(val) = p.val.as_ref().filter(|v| v.rows >= MIN_VAL_ROWS) else {
        println!(
            "note: model auto: too few training rows to hold out {MIN_VAL_ROWS} for validation; the network is kept without comparison"
        );
        return Ok(None);
    };
    let width = match classes {
        0 | 2 => 1,
        k => k,
    };
    let truth = match targets {
        Some(t) => t.transform(&val.y)?,
        None => val.y.clone(),
    };
    let xv = matrix(backend, &val.x, val.rows, val.n_features)?;
    let outputs = nn::Model::predict(&out.model, &xv)?.to_vec()?;
    let network = score(&outputs, width, &truth, classes);
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
    let choice = choose(network, linear, measure, val.rows);
    if choice.kept == Kept::Linear {
        // Refitted on every training row, validation rows included.
        let mut x = train_x.to_vec();
        x.extend_from_slice(&val.x);
        let mut y = y;
        y.extend(network_targets(&val.y, classes, targets)?);
        let rows = p.train.rows + val.rows;
        let fit = fit_linear(&x, &y, rows, cols, classes).map_err(anyhow::Error::msg)?;
        out.model = linear_network(backend, &fit, seed)?;
    }
    println!(
        "model kept: {} ({})",
        match choice.kept {
            Kept::Network => "the network",
            Kept::Linear => "the linear model",
        },
        choice.reason
    );
    Ok(Some(choice))
}
