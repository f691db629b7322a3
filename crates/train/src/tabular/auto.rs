//! The default table model (`auto`): a network trained on most training rows with the
//! weights of its best epoch on the rest, a second network on periodic inputs and the two
//! networks' mean, and a linear model fitted on the same rows; the one with the best
//! validation score is kept, with the reason.

use io::Standardizer;
use nn::{EarlyStopping, Mlp};
use tensor_core::{Backend, Tensor};

use super::blend::blend;
use super::{Choice, Kept, choose, fit_linear, linear_network, score};
use crate::error::{Error, Result};
use crate::outcome::Outcome;
use crate::table::Prepared;

/// The share of training rows `auto` holds out for validation when none is given.
pub const AUTO_VAL_FRACTION: f32 = 0.2;
/// Fewer validation rows than this make no comparison: the network is kept.
pub const MIN_VAL_ROWS: usize = 30;
/// Patience of the best-epoch selection, in epochs: a network whose validation loss has not
/// improved for this many stops, keeping its best weights (on the 13 tables of
/// docs/BENCHMARKS.md, 20 cost panel_wages and wage 0.01 R²; 30 moved no score by more than
/// 0.0003 and saved a tenth of the time).
pub const BEST_EPOCH_PATIENCE: u64 = 30;
/// Encoding bands of `auto`'s second network.
pub const AUTO_PERIODIC: usize = 3;
/// The second network's run folder, inside the job's.
pub const PERIODIC_DIR: &str = "periodic";
/// Tables of more encoded columns train no second network (its encoding is 7 times wider).
pub const MAX_PERIODIC_INPUTS: usize = 100;

/// The validation share `auto` trains with: the one asked for, else [`AUTO_VAL_FRACTION`]
/// (a table too small for [`MIN_VAL_ROWS`] of them keeps its network without comparison:
/// [`select`]).
pub fn validation_fraction(asked: Option<f32>) -> f32 {
    asked.unwrap_or(AUTO_VAL_FRACTION)
}

/// Early stopping as asked (`patience` epochs); for `auto` with validation rows and no
/// patience given, the best epoch's weights kept, stopping after [`BEST_EPOCH_PATIENCE`]
/// epochs without a better validation loss.
pub fn early_stopping(auto: bool, patience: Option<u64>, p: &Prepared) -> Option<EarlyStopping> {
    match patience {
        Some(n) => Some(EarlyStopping::new(n, 0.0)),
        None if auto && p.val.is_some() => Some(EarlyStopping::new(BEST_EPOCH_PATIENCE, 0.0)),
        None => None,
    }
}

/// Whether `auto` trains a second network, with periodic inputs: no encoding asked for
/// (`periodic`), enough validation rows, and at most [`MAX_PERIODIC_INPUTS`] encoded columns.
pub fn second_network(periodic: Option<usize>, p: &Prepared) -> bool {
    let val_rows = p.val.as_ref().map_or(0, |v| v.rows);
    periodic.is_none() && val_rows >= MIN_VAL_ROWS && p.train.n_features <= MAX_PERIODIC_INPUTS
}

/// The kept model and whether it differs from the network in the run's checkpoint.
#[derive(Debug, Clone)]
pub struct Selected {
    /// The choice and its figures.
    pub choice: Choice,
    /// The checkpoint holds another candidate: the kept model must replace it.
    pub resave: bool,
}

/// How the network was chosen among two: a line for the report, and whether the kept one
/// is not the network in the run's checkpoint.
#[derive(Debug, Clone)]
pub struct NetworkNote {
    /// The validation scores compared and the one kept.
    pub line: String,
    /// The kept network is not the run's checkpoint.
    pub replaced: bool,
}

/// The validation rows scored: the rows, their targets in the network's units, the output
/// width and the number of classes (0: regression).
struct Validation<'p> {
    rows: &'p io::Dataset,
    truth: Vec<f32>,
    width: usize,
    classes: usize,
}

impl Validation<'_> {
    /// The validation score of raw network outputs.
    fn score(&self, outputs: &[f32]) -> f64 {
        score(outputs, self.width, &self.truth, self.classes)
    }

    /// A trained network's raw outputs on the rows.
    fn outputs<B: Backend>(&self, backend: &B, model: &Mlp<B>) -> Result<Vec<f32>> {
        let v = self.rows;
        let x = Tensor::from_slice(backend, &v.x, [v.rows, v.n_features])?;
        Ok(model.predict(&x)?.to_vec()?)
    }
}

/// The validation rows of `p` when there are at least [`MIN_VAL_ROWS`].
fn validation<'p>(
    p: &'p Prepared,
    targets: Option<&Standardizer>,
) -> Result<Option<Validation<'p>>> {
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    let Some(rows) = p.val.as_ref().filter(|v| v.rows >= MIN_VAL_ROWS) else {
        return Ok(None);
    };
    let truth = match targets {
        Some(t) => t.transform(&rows.y)?,
        None => rows.y.clone(),
    };
    let width = if classes == 2 { 1 } else { classes.max(1) };
    Ok(Some(Validation {
        rows,
        truth,
        width,
        classes,
    }))
}

/// Targets as the linear candidates take them: standardised values (a regression), or
/// class indices.
fn linear_targets(y: &[f32], targets: Option<&Standardizer>) -> Result<Vec<f32>> {
    Ok(match targets {
        Some(t) => t.transform(y)?,
        None => y.to_vec(),
    })
}

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
    let note = |line: String, replaced| NetworkNote { line, replaced };
    let Some(v) = validation(p, targets)? else {
        return Ok((plain, note("no validation rows: plain kept".into(), false)));
    };
    let oa = v.outputs(backend, &plain.model)?;
    let ob = v.outputs(backend, &periodic.model)?;
    let mean: Vec<f32> = oa.iter().zip(&ob).map(|(a, b)| 0.5 * (a + b)).collect();
    let (a, b, m) = (v.score(&oa), v.score(&ob), v.score(&mean));
    let line =
        format!("network on plain inputs {a:.4}, with periodic inputs {b:.4}, their mean {m:.4}");
    Ok(if m > a && m >= b {
        plain.model = blend(backend, &plain.model, &periodic.model, 0)?;
        (plain, note(format!("{line}: the mean kept"), true))
    } else if b > a {
        (periodic, note(format!("{line}: periodic kept"), true))
    } else {
        (plain, note(format!("{line}: plain kept"), false))
    })
}

/// The network's and a linear model's validation scores compared; when the linear model
/// wins, it is refitted on the training and validation rows and replaces the network in
/// `out`. `train_x`: the training rows' features; `note`: how the network was chosen among
/// two. `None` when there are fewer than [`MIN_VAL_ROWS`] validation rows to compare.
pub fn select<B: Backend>(
    backend: &B,
    p: &Prepared,
    train_x: &[f32],
    out: &mut Outcome<Mlp<B>>,
    targets: Option<&Standardizer>,
    note: Option<NetworkNote>,
) -> Result<Option<Selected>> {
    let Some(v) = validation(p, targets)? else {
        return Ok(None);
    };
    let classes = v.classes;
    let network = v.score(&v.outputs(backend, &out.model)?);
    let cols = p.train.n_features;
    let y = linear_targets(&p.train.y, targets)?;
    let linear = fit_linear(train_x, &y, p.train.rows, cols, classes).map(|fit| {
        let outputs: Vec<f32> = fit
            .outputs(&v.rows.x, cols)
            .iter()
            .map(|&o| o as f32)
            .collect();
        v.score(&outputs)
    });
    let measure = if classes > 0 { "accuracy" } else { "R²" };
    let mut choice = choose(network, linear, measure, v.rows.rows);
    let mut resave = note.as_ref().is_some_and(|n| n.replaced);
    if let Some(n) = &note {
        choice.reason = format!("{} (validation {measure}: {})", choice.reason, n.line);
    }
    if choice.kept == Kept::Linear {
        // Refitted on every training row, validation rows included.
        let mut x = train_x.to_vec();
        x.extend_from_slice(&v.rows.x);
        let mut y = y;
        y.extend(linear_targets(&v.rows.y, targets)?);
        let rows = p.train.rows + v.rows.rows;
        let fit = fit_linear(&x, &y, rows, cols, classes).map_err(Error::Refused)?;
        out.model = linear_network(backend, &fit, 0)?;
        resave = true;
    }
    Ok(Some(Selected { choice, resave }))
}
