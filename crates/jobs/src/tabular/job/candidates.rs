//! `auto`'s networks trained: the network on the plain rows, a second on periodic or
//! piecewise-linear inputs and a third on piecewise-linear inputs; at the same time where
//! the device runs work side by side and the table is small, one after another otherwise.
//! Each network's training depends only on its own inputs and seed, and the CPU's results
//! do not depend on how many threads share the work, so both ways train the same networks.

use super::features::DeviceFeatures;
use super::network::{Network, NetworkRows, RunMode, Trainer};
use super::part::PartRows;
use super::{TableNote, TableReporter};
use crate::Result;
use crate::table::Prepared;
use io::Dataset;
use nn::Mlp;
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use train::{Outcome, Reporter, Silent};

/// `auto`'s networks train at the same time only on a small table: one whose plain training
/// features, counted once for each network after the first that reads them, take at most
/// this many bytes (64 MiB: every development table of docs/BENCHMARKS.md, the largest of
/// which needs 8 MB, hotel_rates' 9,858 training rows of 202 encoded columns). The networks
/// borrow the one copy of the features; a larger table trains its networks in turn.
pub const SIDE_BY_SIDE_MAX_BYTES: usize = 64 << 20;

/// A network to train: its shape, its rows (their training features borrowed) and where
/// its run goes.
pub(super) struct Candidate<'a, B: Backend> {
    /// The network.
    pub(super) net: Network,
    /// Its rows: the plain ones, or another encoding's.
    pub(super) rows: NetworkRows<'a, B>,
    /// Whether it reads the plain training features (those of the first network).
    pub(super) plain: bool,
    /// Its run folder.
    pub(super) dir: PathBuf,
}

/// The first of the trained networks' runs that the stop flag stopped, if any.
pub(super) fn first_stopped<B: Backend>(trained: &[Outcome<Mlp<B>>]) -> Option<&nn::TrainReport> {
    trained
        .iter()
        .map(|out| &out.report)
        .find(|report| report.stop_reason == nn::StopReason::Interrupted)
}

impl<B: Backend> Trainer<'_, B> {
    /// Trains the `candidates`, the first with its progress shown and the others after it
    /// or beside it; notes the networks trained beside it, and the first run stopped by the
    /// stop flag. The outcomes are in the candidates' order.
    pub(super) fn candidates(
        self,
        p: &Prepared,
        candidates: Vec<Candidate<'_, B>>,
        reporter: &mut dyn TableReporter,
    ) -> Result<Vec<Outcome<Mlp<B>>>> {
        let Some(first) = candidates.first() else {
            return Ok(Vec::new());
        };
        let plain_bytes = 4 * first.rows.x.dims().iter().product::<usize>();
        let readers = candidates[1..].iter().filter(|c| c.plain).count();
        let side_by_side = candidates.len() > 1
            && self.backend.runs_side_by_side()
            && plain_bytes * readers <= SIDE_BY_SIDE_MAX_BYTES;
        let dirs: Vec<PathBuf> = candidates.iter().map(|c| c.dir.clone()).collect();
        let trained = if train::ranks::world().size() > 1 && candidates.len() > 1 {
            self.spread(p, candidates, reporter.runs())?
        } else if side_by_side {
            reporter.note(TableNote::SideBySide { dirs: &dirs[1..] });
            self.side_by_side(p, candidates, reporter.runs())?
        } else {
            self.in_turn(p, candidates, reporter.runs())?
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

    /// The one network `net` of a job that compares none, trained in `dir` on the rows of
    /// `p` (or the `balanced` ones), their features lent to its run and given back.
    pub(super) fn alone(
        self,
        p: &mut Prepared,
        balanced: Option<&mut Dataset>,
        net: &Network,
        dir: &Path,
        reporter: &mut dyn TableReporter,
    ) -> Result<Outcome<Mlp<B>>> {
        let mut rows = balanced;
        // Shared by every process of a run over several, each holding its part of the rows.
        let part = match self.mode {
            RunMode::Shared => {
                let train = rows.as_deref().unwrap_or(&p.train);
                PartRows::of_world(train.rows, p.val.as_ref().map(|v| v.rows))
            }
            _ => None,
        };
        let lent = match &part {
            Some(part) => DeviceFeatures::part(
                self.backend,
                rows.as_deref().unwrap_or(&p.train),
                &part.train,
            )?,
            None => {
                DeviceFeatures::take(self.backend, rows.as_deref_mut().unwrap_or(&mut p.train))?
            }
        };
        let train = rows.as_deref().unwrap_or(&p.train);
        let candidate = Candidate {
            net: net.clone(),
            rows: NetworkRows::of(p, train, lent.tensor(), self.targets).in_part(part),
            plain: true,
            dir: dir.to_path_buf(),
        };
        let trained = self.candidates(p, vec![candidate], reporter);
        lent.give_back(rows.unwrap_or(&mut p.train))?;
        trained?
            .pop()
            .ok_or_else(|| crate::Error::refused("no network"))
    }

    /// The networks one after another, each shown.
    fn in_turn(
        self,
        p: &Prepared,
        candidates: Vec<Candidate<'_, B>>,
        reporter: &mut dyn Reporter,
    ) -> Result<Vec<Outcome<Mlp<B>>>> {
        candidates
            .iter()
            .map(|c| self.train(p, &c.net, &c.rows, &c.dir, &mut *reporter))
            .collect()
    }

    /// The first network on this thread, its progress shown, and the others at the same
    /// time on threads of their own, quietly (every one borrowing its features).
    fn side_by_side(
        self,
        p: &Prepared,
        candidates: Vec<Candidate<'_, B>>,
        reporter: &mut dyn Reporter,
    ) -> Result<Vec<Outcome<Mlp<B>>>> {
        let mut candidates = candidates.into_iter();
        let Some(first) = candidates.next() else {
            return Ok(Vec::new());
        };
        std::thread::scope(|s| {
            let handles: Vec<_> = candidates
                .map(|c| {
                    s.spawn(move || {
                        self.backend
                            .run_beside(|| self.train(p, &c.net, &c.rows, &c.dir, &mut Silent))
                    })
                })
                .collect();
            let first = self.train(p, &first.net, &first.rows, &first.dir, reporter);
            let others: Result<Vec<_>> = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect();
            let mut trained = vec![first?];
            trained.extend(others?);
            Ok(trained)
        })
    }
}
