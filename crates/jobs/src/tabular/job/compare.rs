//! `auto` on one split: the first network, a second trained on periodic inputs (the
//! network's own encoding of the plain rows) or on the piecewise-linear rows of the table
//! and a third on piecewise-linear rows, trained ([`Trainer::train_all`], which the job
//! over folds shares), then the choice among them and the linear model
//! ([`Trainer::pick_on_split`]).

use super::candidates::{Candidate, First, first_stopped};
use super::drop_outs::DropOuts;
use super::encodings::fits_piecewise;
use super::extras::Extra;
use super::network::{Network, NetworkRows, Trainer};
use super::split::SplitNetworks;
use super::{TableNote, TableReporter};
use crate::Result;
use crate::table::{Encoded, Prepared};
use crate::tabular::auto::{self, NumericEncoding, Selected};
use io::Standardizer;
use nn::{Mlp, MlpEnsemble};
use std::path::Path;
use tensor_core::Backend;
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
    /// A run was stopped by the stop flag: the first network as it stands, and its
    /// training features.
    Stopped(Outcome<Mlp<B>>, Vec<f32>),
    /// Every network trained: the first with its training features, and the others that
    /// did not diverge, each with its inputs.
    Done {
        /// The network on the plain rows and their training features.
        first: (Outcome<Mlp<B>>, Vec<f32>),
        /// The others.
        others: Vec<(NumericEncoding, Outcome<Mlp<B>>)>,
        /// The portfolio's networks asked for, in order (`None`: one diverged).
        extras: Vec<Option<Outcome<Mlp<B>>>>,
    },
}

/// The kept model, the training rows' features in its encoding, and the comparison.
pub(super) type Compared<B> = (KeptOutcome<B>, Vec<f32>, Comparison);

/// The model `auto` kept on one split, with the first network's run (its figures).
pub(super) enum KeptOutcome<B: Backend> {
    /// One network: the first, another, or the linear model as a network.
    One(Box<Outcome<Mlp<B>>>),
    /// The weighted mean of several candidates.
    Mix(Box<Outcome<MlpEnsemble<B>>>),
}

/// `auto`'s first network: its shape, its training features (the plain rows', lent to
/// its run and given back) and its run folder (the job's).
pub(super) struct FirstNetwork<'a> {
    /// The network.
    pub(super) net: &'a Network,
    /// The plain training features.
    pub(super) x: Vec<f32>,
    /// Its run folder.
    pub(super) dir: &'a Path,
}

/// What `auto` trains beside its first network.
pub(super) struct Plan<'p> {
    /// The inputs of the networks after the first (periodic, piecewise-linear).
    pub(super) inputs: Vec<NumericEncoding>,
    /// The piecewise-linear rows, when a network reads them (their training features lent
    /// to its run and given back).
    pub(super) parts: &'p mut Option<Encoded>,
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

/// The piecewise-linear rows of `p` in `bins` bins (`None`: none), fitted on `x`, when
/// they are at most `max` columns wide (`None`: any width); otherwise none, and no network
/// on them in `inputs`.
fn piecewise_parts(
    p: &Prepared,
    x: &[f32],
    (bins, max): (Option<usize>, Option<usize>),
    inputs: &mut Vec<NumericEncoding>,
) -> Result<Option<Encoded>> {
    let Some(bins) = bins else {
        return Ok(None);
    };
    // The width is checked on the fitted encoding, before any row is encoded.
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
    /// `auto` on one split: the `first` network on the plain rows of `p` and the second
    /// and third networks when there are, trained, and the choice among them and the
    /// linear model (nothing is compared when a run was stopped). `p` ends in the encoding
    /// of the kept model, whose training features are given back.
    pub(super) fn compare(
        self,
        p: &mut Prepared,
        first: FirstNetwork<'_>,
        second: Option<Second>,
        (targets, reporter): (Option<&Standardizer>, &mut dyn TableReporter),
    ) -> Result<Compared<B>> {
        let (mut inputs, max) = inputs_that_fit(p, second, reporter)?;
        let bins = piecewise_bins(&inputs);
        let mut parts = piecewise_parts(p, &first.x, (bins, max), &mut inputs)?;
        let plan = Plan {
            inputs,
            parts: &mut parts,
            extras: &[],
        };
        let trained = self.train_all(p, first, plan, targets, reporter)?;
        let nets = match trained {
            TrainedAll::Stopped(out, x) => {
                return Ok((KeptOutcome::One(Box::new(out)), x, Comparison::Stopped));
            }
            TrainedAll::Done { first, others, .. } => SplitNetworks { first, others },
        };
        self.pick_on_split(p, nets, parts, targets)
    }

    /// `auto`'s networks trained: `first` on the plain rows of `p`, one on each of the
    /// plan's inputs (the piecewise-linear one on its parts, whose training features it
    /// gives back) and each of its extras (the portfolio, in folders of theirs inside the
    /// first's), beside or after it; the others that diverged left out (with a note).
    pub(super) fn train_all(
        self,
        p: &Prepared,
        first: FirstNetwork<'_>,
        plan: Plan<'_>,
        targets: Option<&Standardizer>,
        reporter: &mut dyn TableReporter,
    ) -> Result<TrainedAll<B>> {
        let FirstNetwork { net, x, dir } = first;
        let Plan {
            inputs,
            parts,
            extras,
        } = plan;
        let wide = parts
            .as_mut()
            .map(|parts| std::mem::take(&mut parts.train.x));
        let mut others = self.others(p, (&inputs, parts.as_ref(), wide), dir, targets)?;
        for extra in extras {
            let (rows, own) = extra.rows(p, &x, targets);
            let (net, dir) = (extra.net.clone(), dir.join(extra.dir));
            others.push(Candidate {
                net,
                rows,
                x: own,
                dir,
            });
        }
        let first = First {
            net,
            rows: NetworkRows::of(p, &p.train, targets),
            x,
            dir,
        };
        let drop_outs = DropOuts::new(dir);
        let trainer = Trainer {
            drop_outs: Some(&drop_outs),
            ..self
        };
        let trained = trainer.candidates(p, first, others, (targets, reporter))?;
        drop_outs.note(reporter);
        let stopped = first_stopped(&trained).is_some();
        let ((out, x), mut others) = trained;
        if stopped {
            return Ok(TrainedAll::Stopped(out, x));
        }
        let extra_outcomes = others.split_off(others.len() - extras.len());
        let mut finished = Vec::with_capacity(extras.len());
        for (extra, (mut outcome, _)) in extras.iter().zip(extra_outcomes) {
            if drop_outs.dropped(&dir.join(extra.dir)) {
                finished.push(None);
                continue;
            }
            outcome.model = extra.finished(outcome.model)?;
            finished.push(Some(outcome));
        }
        let mut outcomes = Vec::with_capacity(others.len());
        for (outcome, wide) in others {
            if let (Some(parts), Some(wide)) = (parts.as_mut(), wide) {
                parts.train.x = wide;
            }
            outcomes.push(outcome);
        }
        // A network that diverged drops out; the others are compared.
        let others = inputs
            .into_iter()
            .zip(outcomes)
            .filter(|(i, _)| !drop_outs.dropped(&dir.join(i.dir())))
            .collect();
        Ok(TrainedAll::Done {
            first: (out, x),
            others,
            extras: finished,
        })
    }

    /// The networks after the first, on `inputs`: periodic ones on the plain rows of `p`,
    /// the piecewise-linear one on `parts`, whose training features are `wide`; their runs
    /// in folders inside `dir`.
    fn others<'a>(
        self,
        p: &'a Prepared,
        (inputs, parts, mut wide): (&[NumericEncoding], Option<&'a Encoded>, Option<Vec<f32>>),
        dir: &Path,
        targets: Option<&Standardizer>,
    ) -> Result<Vec<Candidate<'a>>> {
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let mut others = Vec::with_capacity(inputs.len());
        for &i in inputs {
            let (rows, x, bands) = match (i, parts) {
                (NumericEncoding::Piecewise(_), Some(parts)) => {
                    (NetworkRows::encoded(p, parts, targets), wide.take(), 0)
                }
                (NumericEncoding::Periodic(n), _) => {
                    (NetworkRows::of(p, &p.train, targets), None, n)
                }
                _ => (NetworkRows::of(p, &p.train, targets), None, 0),
            };
            let dir = dir.join(i.dir());
            let scale = auto::learns_input_scale(i);
            let net = self.network(rows.train.n_features, classes, bands, scale)?;
            others.push(Candidate { net, rows, x, dir });
        }
        Ok(others)
    }
}
