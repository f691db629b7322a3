//! A table job as a library call: what `iron-learn linreg`, `logreg` and `mlp` run, and
//! what a program calls with its own options.
//!
//! - [`TableJobOptions`]: plain data (no command-line parser); what it leaves unset takes
//!   the defaults of this module, [`crate::defaults`] and [`auto`](crate::tabular::auto).
//! - [`TableJob::prepare`]: checks the options, reads, types, splits and encodes the table
//!   and refuses a target the model cannot learn, before any run folder is touched.
//! - [`TableJob::train`]: trains the model in a run folder (the network, or `auto`'s
//!   candidates: the network, a second network on periodic or piecewise-linear inputs, a
//!   third on piecewise-linear inputs, each one's mean with the first, a linear model),
//!   scores the kept one on the test rows and writes `schema.json`, the predictions and
//!   `metrics.json`; returns a [`TableJobOutcome`]: the model kept and why, the figures and
//!   the files written.
//!
//! What the job has to say on the way (the table as read, notes) reaches a
//! [`TableReporter`]; the library prints nothing, but gives the report's text line by line
//! ([`TableNote::lines`], [`TableJobOutcome::lines`]) for the caller to print.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use jobs::tabular::job::{NetworkOptions, TableJob, TableJobOptions, TableModel};
//! let cpu = tensor_cpu::CpuBackend::new();
//! let options = TableJobOptions::new("houses.csv", TableModel::Network(NetworkOptions::default()));
//! let mut reporter = jobs::tabular::job::Quiet(train::Silent);
//! let job = TableJob::prepare(&options, &mut reporter)?;
//! let outcome = job.train(&cpu, "runs/houses".as_ref(), &mut reporter)?;
//! for line in outcome.lines() {
//!     println!("{line}");
//! }
//! # Ok(()) }
//! ```

mod bagged;
mod candidates;
mod compare;
mod cross;
mod drop_outs;
mod encodings;
mod error;
mod extras;
mod features;
mod fold_parts;
mod network;
mod options;
mod outcome;
mod part;
mod pick;
mod prepare;
mod split;
mod spread;
mod test_text;
mod text;

pub use candidates::SIDE_BY_SIDE_MAX_BYTES;
pub use cross::{CrossValidation, FOLDS_DIR, cross_validate};
pub use encodings::{Inputs, numeric_encodings};
pub use error::{NumberConflict, TableRefusal};
pub use options::{
    DEFAULT_TEST_FRACTION, DEFAULT_WEIGHT_DECAY, EncodingAsked, ModelChoice, NetworkOptions,
    NumberOptions, PATIENCE_VAL_FRACTION, Portfolio, TableDataOptions, TableJobOptions, TableModel,
    TableTask,
};
pub use outcome::{Selection, TableJobOutcome, Unlabeled};
pub use prepare::TableJob;
pub use test_text::{RegressionRows, TestedModel, class_report_lines, regression_report_lines};
pub use text::OptionNames;

use crate::table::Prepared;
use std::path::Path;
use train::Reporter;

/// What a table job has to say as it goes, besides its runs' progress.
#[derive(Clone, Copy)]
pub enum TableNote<'a> {
    /// The table in `data` was read, typed, split and encoded in `seconds`.
    Read {
        /// The table's file.
        data: &'a Path,
        /// The table's parts, schema and notes.
        prepared: &'a Prepared,
        /// The time it took.
        seconds: f64,
    },
    /// Each class's training rows were repeated to `most`, `rows` in all.
    Balanced {
        /// The rows of the most common class.
        most: usize,
        /// The training rows now.
        rows: usize,
    },
    /// `auto` trains no network on the rows piecewise-linear in `bins` bins: they would
    /// not fit in memory.
    PiecewiseSkipped {
        /// The bins.
        bins: usize,
    },
    /// `auto`'s networks after the first train at the same time as it, quietly, in the
    /// run folders `dirs` (the first network's progress is the one shown).
    SideBySide {
        /// Their run folders.
        dirs: &'a [std::path::PathBuf],
    },
    /// `auto`'s network in `dir` diverged, for `reason`: it drops out of the comparison.
    Diverged {
        /// Its run folder.
        dir: &'a Path,
        /// Why, in words.
        reason: &'a str,
    },
    /// A run of the job in `dir` was stopped by the stop flag at `step`; the job can be
    /// resumed (`auto` resumes each of its runs, then compares them).
    Stopped {
        /// The job's run folder.
        dir: &'a Path,
        /// The last step taken.
        step: u64,
    },
    /// The table's `rows` training rows are too few for `folds` folds of at least 2 rows:
    /// the job trains once, on one split, instead (its table read again for it).
    OneSplit {
        /// The training rows.
        rows: usize,
        /// The folds asked for.
        folds: usize,
    },
}

/// Hears what a table job has to say: its runs' progress and its notes.
pub trait TableReporter {
    /// Where each training run reports its progress.
    fn runs(&mut self) -> &mut dyn Reporter;

    /// A note, as it happens.
    fn note(&mut self, note: TableNote<'_>);
}

/// A [`TableReporter`] that passes the runs' progress to a [`Reporter`] and drops the
/// notes.
pub struct Quiet<R: Reporter>(pub R);

impl<R: Reporter> TableReporter for Quiet<R> {
    fn runs(&mut self) -> &mut dyn Reporter {
        &mut self.0
    }

    fn note(&mut self, _note: TableNote<'_>) {}
}
