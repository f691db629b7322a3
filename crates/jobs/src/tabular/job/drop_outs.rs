//! `auto`'s networks after the first that diverge: each drops out of the comparison with a
//! note, and the job goes on with the others (the first network's divergence still fails
//! the job, as a network trained alone does).

use super::{TableNote, TableReporter};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The networks that dropped out of a comparison, gathered from the threads that train
/// them.
pub(super) struct DropOuts<'a> {
    /// The first network's run folder (the job's): its divergence fails the job.
    first: &'a Path,
    /// Each network that diverged: its run folder and why.
    diverged: Mutex<Vec<(PathBuf, String)>>,
}

impl<'a> DropOuts<'a> {
    /// None dropped out yet, among the networks after the one in `first`.
    pub(super) fn new(first: &'a Path) -> Self {
        DropOuts {
            first,
            diverged: Mutex::new(Vec::new()),
        }
    }

    /// Whether the network whose run is in `dir` may drop out (it is not the first).
    pub(super) fn takes(&self, dir: &Path) -> bool {
        dir != self.first
    }

    /// The network in `dir` diverged, for `reason`.
    pub(super) fn record(&self, dir: &Path, reason: String) {
        let mut list = self.diverged.lock().unwrap_or_else(|e| e.into_inner());
        list.push((dir.to_path_buf(), reason));
    }

    /// Whether the network in `dir` dropped out.
    pub(super) fn dropped(&self, dir: &Path) -> bool {
        let list = self.diverged.lock().unwrap_or_else(|e| e.into_inner());
        list.iter().any(|(d, _)| d == dir)
    }

    /// Why the network in `dir` dropped out, if it did.
    pub(super) fn reason(&self, dir: &Path) -> Option<String> {
        let list = self.diverged.lock().unwrap_or_else(|e| e.into_inner());
        list.iter().find(|(d, _)| d == dir).map(|(_, r)| r.clone())
    }

    /// Notes each network that dropped out, in the order they diverged.
    pub(super) fn note(&self, reporter: &mut dyn TableReporter) {
        let list = self.diverged.lock().unwrap_or_else(|e| e.into_inner());
        for (dir, reason) in list.iter() {
            reporter.note(TableNote::Diverged { dir, reason });
        }
    }
}
