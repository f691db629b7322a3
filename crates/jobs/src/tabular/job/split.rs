//! `auto`'s choice on one split (a table over the bagging limit, or a test share asked
//! for): the same greedy ensemble selection as over folds ([`super::pick`]), over the
//! candidates' outputs on the validation rows, the linear model (fitted on the training
//! rows) among them. A kept mix of candidates is one [`MlpEnsemble`]; a kept network alone
//! is that network; the linear model kept alone is refitted on the training and
//! validation rows.

use super::compare::{Compared, Comparison, KeptOutcome};
use super::network::Trainer;
use super::part::shared_predictions;
use super::pick::{Bag, HeldOut, choose, linear_model};
use crate::Result;
use crate::table::{Encoded, Prepared};
use crate::tabular::auto::{self, MIN_VAL_ROWS, NumericEncoding, Selected};
use crate::tabular::ensemble::Truth;
use crate::tabular::{Choice, Kept, fit_linear, linear_network};
use nn::Mlp;
use tensor_core::Backend;
use train::Outcome;

/// The networks `auto` trained on one split: the first (on the plain rows), and the others
/// with their inputs.
pub(super) struct SplitNetworks<B: Backend> {
    /// The first network.
    pub(super) first: Outcome<Mlp<B>>,
    /// The others, each with its inputs.
    pub(super) others: Vec<(NumericEncoding, Outcome<Mlp<B>>)>,
}

/// Keeps the linear model alone where its validation score is within
/// [`LINEAR_MARGIN`](crate::tabular::select::LINEAR_MARGIN) over the square root of the `rows` of
/// the score of the mix `choice` picked (`mix`): the mix is picked among many weightings on
/// the same rows, which flatters it. On the 13 development tables of docs/BENCHMARKS.md
/// (three splits, `--test-fraction 0`), the rule raised the mean test score from 0.8077 to
/// 0.8087 (docs/BENCHMARKS.md, "One split: ensemble selection").
fn prefer_linear(choice: &mut Choice, mix: f64, rows: usize, classes: usize) {
    const ALONE: &str = "the linear model, refitted on every training row";
    if choice.kept == Kept::Linear {
        choice.reason = choice.reason.replacen("linear 1.00", ALONE, 1);
        return;
    }
    let Some(linear) = choice.linear_score else {
        return;
    };
    let measure = if classes > 0 { "accuracy" } else { "R²" };
    let rule = crate::tabular::choose(mix, Ok(linear), measure, rows);
    if rule.kept == Kept::Linear {
        let why = rule.reason.replace("the network's", "the mix's");
        choice.reason = format!("{ALONE} ({why}; the mix: {})", choice.reason);
        choice.kept = Kept::Linear;
    }
}

impl<B: Backend> Trainer<'_, B> {
    /// The choice among `nets` and the linear model on the validation rows of `p` (the
    /// piecewise-linear network on those of `parts`); `p` ends in the kept model's
    /// encoding. Too few validation rows keep the first network without a choice.
    pub(super) fn pick_on_split(
        self,
        p: &mut Prepared,
        nets: SplitNetworks<B>,
        mut parts: Option<Encoded>,
    ) -> Result<Compared<B>> {
        let SplitNetworks { first: out, others } = nets;
        let targets = self.targets;
        let Some(val) = p.val.as_ref().filter(|v| v.rows >= MIN_VAL_ROWS) else {
            return Ok(Compared {
                kept: KeptOutcome::One(Box::new(out)),
                comparison: Comparison::TooFewRows,
            });
        };
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let truth = auto::in_network_units(&val.y, targets)?;
        let width = if classes == 2 { 1 } else { classes.max(1) };
        let truth = Truth {
            targets: &truth,
            width,
            classes,
        };
        let (shell, first) = out.with_model(());
        let mut bags = Vec::with_capacity(others.len() + 2);
        let plain = std::iter::once((NumericEncoding::Plain, first));
        for (inputs, model) in plain.chain(others.into_iter().map(|(i, o)| (i, o.model))) {
            let rows = match (inputs, parts.as_ref().and_then(|w| w.val.as_ref())) {
                (NumericEncoding::Piecewise(_), Some(wide)) => wide,
                _ => val,
            };
            let oof = shared_predictions(self.backend, &model, rows)?;
            bags.push(Bag {
                name: inputs.name(),
                inputs,
                models: vec![model],
                oof,
            });
        }
        let linear = linear_model(self.backend, p, targets)?;
        let no_linear = match linear {
            Ok(model) => {
                let oof = shared_predictions(self.backend, &model, val)?;
                bags.push(Bag {
                    name: "linear",
                    inputs: NumericEncoding::Plain,
                    models: vec![model],
                    oof,
                });
                None
            }
            Err(why) => Some(why),
        };
        let every: Vec<usize> = (0..val.rows).collect();
        let rows = std::slice::from_ref(&every);
        let held = HeldOut::Validation;
        let mut picked = choose(self.backend, bags, rows, held, truth, parts.as_ref())?;
        if let Some(why) = no_linear {
            picked.choice.reason += &format!("; no linear candidate: {why}");
        }
        let resave = picked.picked != [NumericEncoding::Plain.name()];
        let mut selected = Selected {
            choice: picked.choice,
            resave,
        };
        let mix = picked.scores.first().copied().unwrap_or(f64::NAN);
        prefer_linear(&mut selected.choice, mix, val.rows, classes);
        if selected.choice.kept == Kept::Linear {
            let linear = self.linear_on_every_row(p)?;
            let (out, ()) = shell.with_model(linear);
            return Ok(Compared {
                kept: KeptOutcome::One(Box::new(out)),
                comparison: Comparison::Made(selected),
            });
        }
        if let (true, Some(parts)) = (picked.reads_wide, parts.as_mut()) {
            // The kept model reads the piecewise rows: the job reports and saves them.
            p.swap_encoded(parts);
        }
        let kept = match picked.model.members().len() {
            1 => {
                let (mut members, _) = picked.model.into_members();
                let model = members
                    .pop()
                    .ok_or_else(|| crate::Error::refused("no model"))?;
                KeptOutcome::One(Box::new(shell.with_model(model).0))
            }
            _ => KeptOutcome::Mix(Box::new(shell.with_model(picked.model).0)),
        };
        Ok(Compared {
            kept,
            comparison: Comparison::Made(selected),
        })
    }

    /// The linear model fitted on the training and validation rows of `p`, as one
    /// network.
    fn linear_on_every_row(self, p: &Prepared) -> Result<Mlp<B>> {
        let targets = self.targets;
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let cols = p.train.n_features;
        let mut all_x = p.train.x.clone();
        let mut y = auto::in_network_units(&p.train.y, targets)?;
        let mut rows = p.train.rows;
        if let Some(val) = &p.val {
            all_x.extend_from_slice(&val.x);
            y.extend(auto::in_network_units(&val.y, targets)?);
            rows += val.rows;
        }
        let fit = fit_linear(&all_x, &y, rows, cols, classes).map_err(crate::Error::refused)?;
        linear_network(self.backend, &fit, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(linear: Option<f64>) -> Choice {
        Choice {
            kept: Kept::Network,
            network_score: 0.9,
            linear_score: linear,
            reason: "plain 0.50, piecewise 0.50 (validation R²: plain 0.8900, piecewise 0.9000, linear 0.8950; their mean 0.9050)".into(),
        }
    }

    #[test]
    fn the_linear_model_within_the_margin_of_the_mix_is_kept_alone() {
        // 400 rows: a margin of 0.25 / 20 = 0.0125 below the mix's 0.905.
        let mut near = mix(Some(0.895));
        prefer_linear(&mut near, 0.905, 400, 0);
        assert_eq!(near.kept, Kept::Linear, "{}", near.reason);
        assert!(
            near.reason.starts_with("the linear model, refitted on every training row (the linear model's validation R² 0.8950 is within 0.0125 of the mix's 0.9050"),
            "{}",
            near.reason
        );
        assert!(
            near.reason.ends_with("their mean 0.9050))"),
            "{}",
            near.reason
        );
        let mut far = mix(Some(0.89));
        prefer_linear(&mut far, 0.905, 400, 0);
        assert_eq!(far.kept, Kept::Network);
        assert!(far.reason.starts_with("plain 0.50"), "{}", far.reason);
        let mut none = mix(None);
        prefer_linear(&mut none, 0.905, 400, 0);
        assert_eq!(none.kept, Kept::Network);
    }

    #[test]
    fn the_linear_model_picked_alone_is_said_to_be_refitted() {
        let mut alone = Choice {
            kept: Kept::Linear,
            network_score: 0.7,
            linear_score: Some(0.8),
            reason:
                "linear 1.00 (validation accuracy: plain 0.7000, linear 0.8000; their mean 0.8000)"
                    .into(),
        };
        prefer_linear(&mut alone, 0.8, 100, 2);
        assert_eq!(
            alone.reason,
            "the linear model, refitted on every training row (validation accuracy: plain 0.7000, linear 0.8000; their mean 0.8000)"
        );
    }
}
