//! `auto`'s networks trained: the network on the plain rows, a second on periodic or
//! piecewise-linear inputs and a third on piecewise-linear inputs; at the same time where
//! the device runs work side by side and the table is small, one after another otherwise.
//! Each network's training depends only on its own inputs and seed, and the CPU's results
//! do not depend on how many threads share the work, so both ways train the same networks.

use super::network::{Network, NetworkRows, Trainer};
use super::{TableNote, TableReporter};
use crate::Result;
use crate::table::Prepared;
use io::Standardizer;
use nn::Mlp;
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use train::{Outcome, Reporter, Silent};

/// `auto`'s networks train at the same time only when the copies of the plain training
/// features that this needs take at most this many bytes (64 MiB: every development table
/// of docs/BENCHMARKS.md, the largest of which needs 8 MB, hotel_rates' 9,858 training rows
/// of 202 encoded columns; a larger table trains its networks in turn rather than hold
/// copies of its features).
pub const SIDE_BY_SIDE_MAX_BYTES: usize = 64 << 20;

/// One of the networks after the first: its shape, what it reads and where its run goes.
pub(super) struct Candidate<'a> {
    /// The network.
    pub(super) net: Network,
    /// Its rows: the plain ones, or another encoding's.
    pub(super) rows: NetworkRows<'a>,
    /// Its training features: `None` for the plain ones (the first network's).
    pub(super) x: Option<Vec<f32>>,
    /// Its run folder.
    pub(super) dir: PathBuf,
}

/// A trained network and the training features it was given back with (the plain ones for
/// the first network; its own for another that read its own, `None` for one that read the
/// plain ones).
pub(super) type TrainedNetwork<B, X> = (Outcome<Mlp<B>>, X);

/// The first network trained and the others, in the order given.
pub(super) type Trained<B> = (
    TrainedNetwork<B, Vec<f32>>,
    Vec<TrainedNetwork<B, Option<Vec<f32>>>>,
);

/// The first network to train: its shape, rows, plain training features and run folder.
pub(super) struct First<'a> {
    /// The network.
    pub(super) net: &'a Network,
    /// Its rows.
    pub(super) rows: NetworkRows<'a>,
    /// The plain training features.
    pub(super) x: Vec<f32>,
    /// Its run folder (the job's).
    pub(super) dir: &'a Path,
}

/// The report of the first of the trained networks that the stop flag stopped, if any.
pub(super) fn first_stopped<B: Backend>(trained: &Trained<B>) -> Option<&nn::TrainReport> {
    let reports = std::iter::once(&trained.0.0.report);
    reports
        .chain(trained.1.iter().map(|(out, _)| &out.report))
        .find(|report| report.stop_reason == nn::StopReason::Interrupted)
}

impl<B: Backend> Trainer<'_, B> {
    /// Trains `first` with its progress shown, and the `others` after it or beside it;
    /// notes the networks trained beside it, and the first run stopped by the stop flag.
    pub(super) fn candidates(
        self,
        p: &Prepared,
        first: First<'_>,
        others: Vec<Candidate<'_>>,
        (targets, reporter): (Option<&Standardizer>, &mut dyn TableReporter),
    ) -> Result<Trained<B>> {
        let copies = others.iter().filter(|c| c.x.is_none()).count();
        let side_by_side = !others.is_empty()
            && self.backend.runs_side_by_side()
            && 4 * first.x.len() * copies <= SIDE_BY_SIDE_MAX_BYTES;
        let mut dirs = vec![first.dir.to_path_buf()];
        dirs.extend(others.iter().map(|c| c.dir.clone()));
        let trained = if train::ranks::world().size() > 1 && !others.is_empty() {
            self.spread(p, first, others, (targets, reporter.runs()))?
        } else if side_by_side {
            reporter.note(TableNote::SideBySide { dirs: &dirs[1..] });
            self.side_by_side(p, first, others, (targets, reporter.runs()))?
        } else {
            self.in_turn(p, first, others, (targets, reporter.runs()))?
        };
        // One note for the job, whose folder resumes every run: the first run stopped.
        if let Some(report) = first_stopped(&trained) {
            reporter.note(TableNote::Stopped {
                dir: &dirs[0],
                step: report.steps,
            });
        }
        Ok(trained)
    }

    /// The networks one after another, each shown; the plain features passed along.
    fn in_turn(
        self,
        p: &Prepared,
        first: First<'_>,
        others: Vec<Candidate<'_>>,
        (targets, reporter): (Option<&Standardizer>, &mut dyn Reporter),
    ) -> Result<Trained<B>> {
        let shown = (first.dir, &mut *reporter);
        let (out, mut plain) = self.train(p, (first.rows, first.x), first.net, targets, shown)?;
        let mut trained = Vec::with_capacity(others.len());
        for c in others {
            let own = c.x.is_some();
            let x = c.x.unwrap_or_else(|| std::mem::take(&mut plain));
            let shown = (c.dir.as_path(), &mut *reporter);
            let (o, x) = self.train(p, (c.rows, x), &c.net, targets, shown)?;
            if own {
                trained.push((o, Some(x)));
            } else {
                plain = x;
                trained.push((o, None));
            }
        }
        Ok(((out, plain), trained))
    }

    /// The first network on this thread, its progress shown, and the others at the same
    /// time on threads of their own, quietly (the plain features copied for them).
    fn side_by_side(
        self,
        p: &Prepared,
        first: First<'_>,
        others: Vec<Candidate<'_>>,
        (targets, reporter): (Option<&Standardizer>, &mut dyn Reporter),
    ) -> Result<Trained<B>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = others
                .into_iter()
                .map(|c| {
                    let own = c.x.is_some();
                    let x = c.x.unwrap_or_else(|| first.x.clone());
                    s.spawn(move || {
                        self.backend.run_beside(|| {
                            let quiet = (c.dir.as_path(), &mut Silent);
                            let (o, x) = self.train(p, (c.rows, x), &c.net, targets, quiet)?;
                            Ok((o, own.then_some(x)))
                        })
                    })
                })
                .collect();
            let shown = (first.dir, reporter);
            let first = self.train(p, (first.rows, first.x), first.net, targets, shown);
            let others: Result<Vec<_>> = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect();
            Ok((first?, others?))
        })
    }
}
