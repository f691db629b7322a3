//! The choice of `auto`'s kept model, the same over folds and on one split: greedy
//! ensemble selection ([`ensemble::select`]) over each candidate's outputs on the rows it
//! did not train on (out-of-fold, or the validation rows), then the kept ensemble: the
//! picked candidates' models, weighted by their picks.

use crate::Result;
use crate::table::{Encoded, Prepared};
use crate::tabular::auto::NumericEncoding;
use crate::tabular::ensemble::{self, CandidateOutputs, Truth};
use crate::tabular::linear::check_cost;
use crate::tabular::widen::widen;
use crate::tabular::{Choice, Kept, auto, fit_linear, linear_network, score};
use io::Standardizer;
use nn::{Mlp, MlpEnsemble};
use tensor_core::Backend;

/// The rows the candidates are scored on, as the report names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HeldOut {
    /// Each fold's rows, predicted by the models of the other folds.
    OutOfFold,
    /// The validation rows of one split.
    Validation,
}

impl HeldOut {
    /// `out-of-fold`, `validation`.
    fn words(self) -> &'static str {
        match self {
            HeldOut::OutOfFold => "out-of-fold",
            HeldOut::Validation => "validation",
        }
    }
}

/// One candidate over the folds (or one split): its models, what they read, and its
/// outputs on the rows they did not train on.
pub(super) struct Bag<B: Backend> {
    /// Its name in the report.
    pub(super) name: &'static str,
    /// What its networks read.
    pub(super) inputs: NumericEncoding,
    /// Its model on each fold (one on a single split).
    pub(super) models: Vec<Mlp<B>>,
    /// Its outputs on the rows each model did not train on, in table order.
    pub(super) oof: Vec<f32>,
}

/// The selection over the bags: the kept ensemble (its members widened to the
/// piecewise-linear rows when it holds a network that reads them), the choice, whether the
/// model reads those rows, and the ensemble's score on each fold's `rows` (the rows `held`
/// out).
pub(super) fn choose<B: Backend>(
    backend: &B,
    bags: Vec<Bag<B>>,
    rows: &[Vec<usize>],
    held: HeldOut,
    truth: Truth<'_>,
    wide: Option<&Encoded>,
) -> Result<Finished<B>> {
    let candidates: Vec<CandidateOutputs<'_>> = bags
        .iter()
        .map(|b| CandidateOutputs {
            name: b.name,
            outputs: &b.oof,
        })
        .collect();
    let pool =
        |skip: &str| -> Vec<usize> { (0..bags.len()).filter(|&i| bags[i].name != skip).collect() };
    let (a, b) = (
        ensemble::select(&candidates, &pool("piecewise"), truth),
        ensemble::select(&candidates, &pool("periodic"), truth),
    );
    let counts = if b.1 < a.1 { b.0 } else { a.0 };
    let blended = ensemble::blend_outputs(&candidates, &counts);
    let scores: Vec<f64> = rows
        .iter()
        .map(|r| fold_score(&blended, r, truth))
        .collect();
    let each: Vec<String> = candidates
        .iter()
        .map(|c| {
            format!(
                "{} {:.4}",
                c.name,
                score(c.outputs, truth.width, truth.targets, truth.classes)
            )
        })
        .collect();
    let measure = if truth.classes > 0 { "accuracy" } else { "R²" };
    let mean = score(&blended, truth.width, truth.targets, truth.classes);
    let network_score = bags
        .iter()
        .zip(&candidates)
        .filter(|(b, _)| b.name != "linear")
        .map(|(_, c)| score(c.outputs, truth.width, truth.targets, truth.classes))
        .fold(f64::NAN, f64::max);
    let linear_score = bags
        .iter()
        .zip(&candidates)
        .find(|(b, _)| b.name == "linear")
        .map(|(_, c)| score(c.outputs, truth.width, truth.targets, truth.classes));
    let only_linear = bags
        .iter()
        .zip(&counts)
        .all(|(b, &n)| n == 0 || b.name == "linear");
    let reason = format!(
        "{} ({} {measure}: {}; their mean {mean:.4})",
        ensemble::weights_text(&candidates, &counts),
        held.words(),
        each.join(", ")
    );
    let choice = Choice {
        kept: if only_linear {
            Kept::Linear
        } else {
            Kept::Network
        },
        network_score,
        linear_score,
        reason,
    };
    let reads_wide = bags
        .iter()
        .zip(&counts)
        .any(|(b, &n)| n > 0 && matches!(b.inputs, NumericEncoding::Piecewise(_)));
    let picked = bags
        .iter()
        .zip(&counts)
        .filter(|(_, n)| **n > 0)
        .map(|(b, _)| b.name)
        .collect();
    let model = members(backend, bags, &counts, wide.filter(|_| reads_wide))?;
    Ok(Finished {
        model,
        choice,
        reads_wide,
        picked,
        scores,
        steps: 0,
        seconds: 0.0,
    })
}

/// The ensemble of the picked bags' fold models, each weighted by its bag's share over
/// the folds; those on plain rows widened to read `wide`'s rows when given.
fn members<B: Backend>(
    backend: &B,
    bags: Vec<Bag<B>>,
    counts: &[usize],
    wide: Option<&Encoded>,
) -> Result<MlpEnsemble<B>> {
    let total = counts.iter().sum::<usize>().max(1) as f32;
    let columns = wide.map(|w| (w.encoding.plain_columns(), w.encoding.width()));
    let (mut models, mut weights) = (Vec::new(), Vec::new());
    for (bag, &n) in bags.into_iter().zip(counts) {
        let folds = bag.models.len().max(1) as f32;
        for m in bag.models.into_iter().filter(|_| n > 0) {
            let m = match (&columns, bag.inputs) {
                (Some((c, width)), NumericEncoding::Plain) => widen(backend, &m, c, *width)?,
                _ => m,
            };
            models.push(m);
            weights.push(n as f32 / total / folds);
        }
    }
    Ok(MlpEnsemble::new(models, weights)?)
}

/// The score of `outputs` on the rows `rows`.
fn fold_score(outputs: &[f32], rows: &[usize], truth: Truth<'_>) -> f64 {
    let w = truth.width;
    let out: Vec<f32> = rows
        .iter()
        .flat_map(|&r| outputs[r * w..(r + 1) * w].iter().copied())
        .collect();
    let t: Vec<f32> = rows.iter().map(|&r| truth.targets[r]).collect();
    score(&out, w, &t, truth.classes)
}

/// The kept ensemble, its choice, whether it reads the piecewise-linear rows, each fold's
/// score and the runs' steps and seconds.
pub(super) struct Finished<B: Backend> {
    /// The kept ensemble.
    pub(super) model: MlpEnsemble<B>,
    /// What was kept, why, and the scores compared.
    pub(super) choice: Choice,
    /// Whether the ensemble reads the piecewise-linear rows.
    pub(super) reads_wide: bool,
    /// The names of the candidates picked, in the candidates' order.
    pub(super) picked: Vec<&'static str>,
    /// The ensemble's score on each fold's rows.
    pub(super) scores: Vec<f64>,
    /// The runs' steps.
    pub(super) steps: u64,
    /// The runs' seconds.
    pub(super) seconds: f64,
}

/// The linear model fitted on the training rows of `part`, or why there is none (too
/// costly, or no fit).
pub(super) fn linear_model<B: Backend>(
    backend: &B,
    part: &Prepared,
    targets: Option<&Standardizer>,
) -> Result<std::result::Result<Mlp<B>, String>> {
    let classes = part.labels.as_ref().map_or(0, Vec::len);
    let t = &part.train;
    if let Err(e) = check_cost(t.rows, t.n_features, classes) {
        return Ok(Err(e.to_string()));
    }
    let y = auto::in_network_units(&t.y, targets)?;
    match fit_linear(&t.x, &y, t.rows, t.n_features, classes) {
        Ok(fit) => Ok(Ok(linear_network(backend, &fit, 0)?)),
        Err(e) => Ok(Err(e)),
    }
}
