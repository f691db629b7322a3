//! `auto` on one split: the first network, a second trained on periodic inputs (the
//! network's own encoding of the plain rows) or on the piecewise-linear rows of the table
//! and a third on piecewise-linear rows, trained ([`Trainer::train_all`], which the job
//! over folds shares), then the choice among them and the linear model
//! ([`Trainer::pick_on_split`]).

use super::candidates::{Candidate, first_stopped};
use super::drop_outs::DropOuts;
use super::encodings::fits_piecewise;
use super::extras::Extra;
use super::features::DeviceFeatures;
use super::network::{Network, NetworkRows, Trainer};
use super::split::SplitNetworks;
use super::{TableNote, TableReporter};
use crate::Result;
use crate::table::{Encoded, Prepared};
use crate::tabular::auto::{self, NumericEncoding, Selected};
use nn::{Mlp, MlpEnsemble};
use std::path::Path;
use tensor_core::{Backend, Tensor};
use train::Outcome;

/// What `auto`'s second network reads, and a third network's inputs (piecewise), if it
/// trains one.
pub(super) struct Second {
    /// The second network's inputs.
    pub(super) inputs: NumericEncoding,
    /// The third network's inputs.
    pub(super) third: Option<NumericEncoding>,
    /// The most columns of piecewise-linear rows to train on ([`auto::piecewise_cap`];
    /// `None`: any).
    pub(super) max_piecewise: Option<usize>,
}

/// What `auto`'s comparison came to.
pub(super) enum Comparison {
    /// Too few validation rows: the network is kept without a comparison.
    TooFewRows,
    /// A run was stopped by the stop flag: nothing is compared, and the first network, as
    /// it stands, is the job's model (every run's checkpoint is left for a resume).
    Stopped,
    /// The choice made, and whether the kept model replaces the first run's checkpoint.
    Made(Selected),
}

/// `auto`'s networks trained ([`Trainer::train_all`]).
pub(super) enum TrainedAll<B: Backend> {
    /// A run was stopped by the stop flag: the first network as it stands.
    Stopped(Outcome<Mlp<B>>),
    /// Every network trained: the first, and the others that did not diverge, each with
    /// its inputs.
    Done {
        /// The network on the plain rows.
        first: Outcome<Mlp<B>>,
        /// The others.
        others: Vec<(NumericEncoding, Outcome<Mlp<B>>)>,
        /// The portfolio's networks asked for, in order (`None`: one diverged).
        extras: Vec<Option<Outcome<Mlp<B>>>>,
    },
}

/// What `auto` came to on one split: the kept model and how it was chosen.
pub(super) struct Compared<B: Backend> {
    /// The kept model.
    pub(super) kept: KeptOutcome<B>,
    /// The comparison that kept it.
    pub(super) comparison: Comparison,
}

/// The model `auto` kept on one split, with the first network's run (its figures).
pub(super) enum KeptOutcome<B: Backend> {
    /// One network: the first, another, or the linear model as a network.
    One(Box<Outcome<Mlp<B>>>),
    /// The weighted mean of several candidates.
    Mix(Box<Outcome<MlpEnsemble<B>>>),
}

/// `auto`'s first network: its shape, its training features (the plain rows', on the
/// device) and its run folder (the job's).
pub(super) struct FirstNetwork<'a, B: Backend> {
    /// The network.
    pub(super) net: &'a Network,
    /// The plain training features.
    pub(super) x: &'a Tensor<B>,
    /// Its run folder.
    pub(super) dir: &'a Path,
}

/// The piecewise-linear rows a network reads, and their training features on the device.
pub(super) struct WideRows<'p, B: Backend> {
    /// The rows.
    pub(super) parts: &'p Encoded,
    /// Their training features.
    pub(super) x: &'p Tensor<B>,
}

/// What `auto` trains beside its first network.
pub(super) struct Plan<'p, B: Backend> {
    /// The inputs of the networks after the first (periodic, piecewise-linear).
    pub(super) inputs: Vec<NumericEncoding>,
    /// The piecewise-linear rows, when a network reads them.
    pub(super) wide: Option<WideRows<'p, B>>,
    /// The portfolio's networks on the plain rows.
    pub(super) extras: &'p [Extra],
}

/// Whether the table's parts piecewise-linear in `bins` bins fit in the memory budget; a
/// note when they do not (`auto` trains no network on them).
fn fits(p: &Prepared, bins: usize, reporter: &mut dyn TableReporter) -> Result<bool> {
    let fits = fits_piecewise(p, bins)?;
    if !fits {
        reporter.note(TableNote::PiecewiseSkipped { bins });
    }
    Ok(fits)
}

/// The inputs of the networks `auto` trains after the first: the second's and the
/// third's, less those on piecewise-linear rows that would not fit in memory (with a
/// note; a third network trains only beside a second).
pub(super) fn inputs_that_fit(
    p: &Prepared,
    second: Option<Second>,
    reporter: &mut dyn TableReporter,
) -> Result<(Vec<NumericEncoding>, Option<usize>)> {
    let Some(second) = second else {
        return Ok((Vec::new(), None));
    };
    if let NumericEncoding::Piecewise(bins) = second.inputs
        && !fits(p, bins, reporter)?
    {
        return Ok((Vec::new(), None));
    }
    let mut inputs = vec![second.inputs];
    if let Some(NumericEncoding::Piecewise(bins)) = second.third
        && fits(p, bins, reporter)?
    {
        inputs.push(NumericEncoding::Piecewise(bins));
    }
    Ok((inputs, second.max_piecewise))
}

/// The piecewise-linear rows of `p` in `bins` bins (`None`: none), fitted on its training
/// rows, when they are at most `max` columns wide (`None`: any width); otherwise none, and
/// no network on them in `inputs`.
fn piecewise_parts(
    p: &Prepared,
    bins: Option<usize>,
    max: Option<usize>,
    inputs: &mut Vec<NumericEncoding>,
) -> Result<Option<Encoded>> {
    let Some(bins) = bins else {
        return Ok(None);
    };
    // The width is checked on the fitted encoding, before any row is encoded.
    let x = &p.train.x;
    let encoding = p.encoding.with_piecewise(x, bins)?;
    if max.is_none_or(|max| encoding.width() <= max) {
        return Ok(Some(p.piecewise_with(x, encoding)?));
    }
    inputs.retain(|i| !matches!(i, NumericEncoding::Piecewise(_)));
    Ok(None)
}

/// The bins of the piecewise-linear network among `inputs`, if there is one.
pub(super) fn piecewise_bins(inputs: &[NumericEncoding]) -> Option<usize> {
    inputs.iter().find_map(|i| match i {
        NumericEncoding::Piecewise(bins) => Some(*bins),
        _ => None,
    })
}

impl<B: Backend> Trainer<'_, B> {
    /// `auto` on one split: the network `net` on the plain rows of `p` (its run in `dir`)
    /// and the second and third networks when there are, trained, and the choice among them
    /// and the linear model (nothing is compared when a run was stopped). The training
    /// features are lent to the networks and given back; `p` ends in the encoding of the
    /// kept model.
    pub(super) fn compare(
        self,
        p: &mut Prepared,
        net: &Network,
        dir: &Path,
        second: Option<Second>,
        reporter: &mut dyn TableReporter,
    ) -> Result<Compared<B>> {
        let (mut inputs, max) = inputs_that_fit(p, second, reporter)?;
        let bins = piecewise_bins(&inputs);
        let mut parts = piecewise_parts(p, bins, max, &mut inputs)?;
        let plain = DeviceFeatures::take(self.backend, &mut p.train)?;
        let lent_wide = parts
            .as_mut()
            .map(|w| DeviceFeatures::take(self.backend, &mut w.train));
        let lent_wide = lent_wide.transpose()?;
        let first = FirstNetwork {
            net,
            x: plain.tensor(),
            dir,
        };
        let wide = parts.as_ref().zip(lent_wide.as_ref());
        let plan = Plan {
            inputs,
            wide: wide.map(|(parts, x)| WideRows {
                parts,
                x: x.tensor(),
            }),
            extras: &[],
        };
        let trained = self.train_all(p, first, plan, reporter);
        plain.give_back(&mut p.train)?;
        if let (Some(lent), Some(parts)) = (lent_wide, parts.as_mut()) {
            lent.give_back(&mut parts.train)?;
        }
        let nets = match trained? {
            TrainedAll::Stopped(out) => {
                return Ok(Compared {
                    kept: KeptOutcome::One(Box::new(out)),
                    comparison: Comparison::Stopped,
                });
            }
            TrainedAll::Done { first, others, .. } => SplitNetworks { first, others },
        };
        self.pick_on_split(p, nets, parts)
    }

    /// `auto`'s networks trained: `first` on the plain rows of `p`, one on each of the
    /// plan's inputs (the piecewise-linear one on its wide rows) and each of its extras (the
    /// portfolio, in folders of theirs inside the first's), beside or after it, every one
    /// borrowing its training features; the others that diverged left out (with a note).
    pub(super) fn train_all(
        self,
        p: &Prepared,
        first: FirstNetwork<'_, B>,
        plan: Plan<'_, B>,
        reporter: &mut dyn TableReporter,
    ) -> Result<TrainedAll<B>> {
        let FirstNetwork { net, x, dir } = first;
        let own: Vec<Option<Tensor<B>>> = plan
            .extras
            .iter()
            .map(|extra| extra.features(self.backend, x, p.train.n_features))
            .collect::<Result<_>>()?;
        let mut candidates = vec![Candidate {
            net: net.clone(),
            rows: NetworkRows::of(p, &p.train, x, self.targets),
            plain: true,
            dir: dir.to_path_buf(),
        }];
        candidates.extend(self.others(p, &plan, x, dir)?);
        for (extra, own) in plan.extras.iter().zip(&own) {
            candidates.push(Candidate {
                net: extra.net.clone(),
                rows: extra.rows(p, own.as_ref().unwrap_or(x), self.targets),
                plain: own.is_none(),
                dir: dir.join(extra.dir),
            });
        }
        let drop_outs = DropOuts::new(dir);
        let trainer = Trainer {
            drop_outs: Some(&drop_outs),
            ..self
        };
        let mut trained = trainer.candidates(p, candidates, reporter)?;
        drop_outs.note(reporter);
        let extra_outcomes = trained.split_off(1 + plan.inputs.len());
        let stopped = first_stopped(&trained).is_some() || first_stopped(&extra_outcomes).is_some();
        let mut trained = trained.into_iter();
        let first = trained
            .next()
            .ok_or_else(|| crate::Error::refused("no network"))?;
        if stopped {
            return Ok(TrainedAll::Stopped(first));
        }
        let mut finished = Vec::with_capacity(plan.extras.len());
        for (extra, mut outcome) in plan.extras.iter().zip(extra_outcomes) {
            if drop_outs.dropped(&dir.join(extra.dir)) {
                finished.push(None);
                continue;
            }
            outcome.model = extra.finished(outcome.model)?;
            finished.push(Some(outcome));
        }
        // A network that diverged drops out; the others are compared.
        let others = plan
            .inputs
            .into_iter()
            .zip(trained)
            .filter(|(i, _)| !drop_outs.dropped(&dir.join(i.dir())))
            .collect();
        Ok(TrainedAll::Done {
            first,
            others,
            extras: finished,
        })
    }

    /// The networks after the first, on the plan's inputs: periodic ones on the plain rows
    /// of `p` (features `plain`), the piecewise-linear one on the plan's wide rows; their
    /// runs in folders inside `dir`.
    fn others<'a>(
        self,
        p: &'a Prepared,
        plan: &Plan<'a, B>,
        plain: &'a Tensor<B>,
        dir: &Path,
    ) -> Result<Vec<Candidate<'a, B>>> {
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let mut others = Vec::with_capacity(plan.inputs.len());
        for &i in &plan.inputs {
            let (rows, bands) = match (i, &plan.wide) {
                (NumericEncoding::Piecewise(_), Some(wide)) => {
                    (NetworkRows::encoded(p, wide.parts, wide.x, self.targets), 0)
                }
                (NumericEncoding::Periodic(n), _) => {
                    (NetworkRows::of(p, &p.train, plain, self.targets), n)
                }
                _ => (NetworkRows::of(p, &p.train, plain, self.targets), 0),
            };
            let scale = auto::learns_input_scale(i);
            let net = self.network(rows.train.n_features, classes, bands, scale)?;
            others.push(Candidate {
                net,
                plain: std::ptr::eq(rows.x, plain),
                rows,
                dir: dir.join(i.dir()),
            });
        }
        Ok(others)
    }
}
