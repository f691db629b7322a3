//! `auto`'s comparison: the second network, trained on periodic inputs (the network's own
//! encoding of the plain rows) or on the piecewise-linear rows of the table, against the
//! first network and their mean ([`auto::better_network`]), a third network on
//! piecewise-linear rows ([`auto::challenge`]), then the linear model ([`auto::select`]).

use super::encodings::fits_piecewise;
use super::network::Trainer;
use super::{TableNote, TableReporter};
use crate::table::{Encoded, Prepared};
use crate::tabular::Kept;
use crate::tabular::auto::{self, NetworkNote, NumericEncoding, SecondNetwork, Selected};
use crate::{Outcome, Result};
use io::Standardizer;
use nn::Mlp;
use std::path::Path;
use tensor_core::Backend;

/// What the second network reads and where its run goes.
pub(super) struct Second<'a> {
    /// Its inputs.
    pub(super) inputs: NumericEncoding,
    /// Classes of the target (0: regression).
    pub(super) classes: usize,
    /// A regression target's statistics.
    pub(super) targets: Option<&'a Standardizer>,
    /// The job's run folder (the second network's is inside).
    pub(super) dir: &'a Path,
    /// A third network's inputs (piecewise), if `auto` trains one.
    pub(super) third: Option<NumericEncoding>,
}

/// The network kept among the two and their mean, with the training rows' plain features
/// given back and, for piecewise inputs, the table's parts in that encoding (their
/// training features included).
struct SecondKept<B: Backend> {
    outcome: Outcome<Mlp<B>>,
    note: NetworkNote,
    x: Vec<f32>,
    parts: Option<Encoded>,
}

/// The kept model, the training rows' features in its encoding, and the choice.
pub(super) type Compared<B> = (Outcome<Mlp<B>>, Vec<f32>, Option<Selected>);

/// Whether the table's parts piecewise-linear in `bins` bins fit in the memory budget; a
/// note when they do not (`auto` trains no network on them).
fn fits(p: &Prepared, bins: usize, reporter: &mut dyn TableReporter) -> Result<bool> {
    let fits = fits_piecewise(p, bins)?;
    if !fits {
        reporter.note(TableNote::PiecewiseSkipped { bins });
    }
    Ok(fits)
}

impl<B: Backend> Trainer<'_, B> {
    /// `auto`'s choice among the network `out` (trained on the plain rows of `p`, whose
    /// training features are `x`), the second network when there is one, their mean, and
    /// the linear model. `p` ends in the encoding of the kept model, whose training features
    /// are given back.
    pub(super) fn compare(
        &mut self,
        p: &mut Prepared,
        (out, x): (Outcome<Mlp<B>>, Vec<f32>),
        second: Option<Second<'_>>,
        targets: Option<&Standardizer>,
    ) -> Result<Compared<B>> {
        let (mut out, mut x, mut note, mut parts) = (out, x, None, None);
        let second = match second {
            Some(Second {
                inputs: NumericEncoding::Piecewise(bins),
                ..
            }) if !fits(p, bins, self.reporter)? => None,
            second => second,
        };
        if let Some(second) = second {
            let mut kept = self.second_network(p, out, x, &second)?;
            if let Some(NumericEncoding::Piecewise(bins)) = second.third
                && fits(p, bins, self.reporter)?
            {
                kept = self.third_network(p, kept, bins, &second)?;
            }
            (out, x, parts) = (kept.outcome, kept.x, kept.parts);
            note = Some(kept.note);
        }
        let second_rows = note.as_ref().is_some_and(|n| n.second_rows);
        let selected = auto::select(self.backend, p, &x, &mut out, targets, note)?;
        let network_kept = selected
            .as_ref()
            .is_none_or(|c| c.choice.kept == Kept::Network);
        if let (Some(mut parts), true) = (parts, network_kept && second_rows) {
            // The kept network reads the piecewise rows: the job reports and saves them.
            p.swap_encoded(&mut parts);
            x = std::mem::take(&mut p.train.x);
        }
        Ok((out, x, selected))
    }

    /// Trains the second network on `s.inputs` beside the first (`first`, trained on the
    /// plain rows of `p`, whose training features are `x`), and keeps the best of the two
    /// and their mean. `p` is as it was on return.
    fn second_network(
        &mut self,
        p: &mut Prepared,
        first: Outcome<Mlp<B>>,
        x: Vec<f32>,
        s: &Second<'_>,
    ) -> Result<SecondKept<B>> {
        let NumericEncoding::Piecewise(bins) = s.inputs else {
            let dir = s.dir.join(s.inputs.dir());
            create_dir(&dir)?;
            let bands = match s.inputs {
                NumericEncoding::Periodic(n) => n,
                _ => 0,
            };
            let net = self.network(p.train.n_features, s.classes, bands)?;
            let (outcome, x) = self.train(p, (&p.train, x), &net, s.targets, &dir)?;
            let second = SecondNetwork {
                outcome,
                inputs: s.inputs,
                rows: None,
            };
            let (outcome, note) = auto::better_network(self.backend, p, first, second, s.targets)?;
            return Ok(SecondKept {
                outcome,
                note,
                x,
                parts: None,
            });
        };
        let (outcome, parts) = self.piecewise_network(p, &x, bins, s)?;
        let columns = parts.encoding.plain_columns();
        let second = SecondNetwork {
            outcome,
            inputs: s.inputs,
            rows: parts.val.as_ref().map(|v| (v, columns.as_slice())),
        };
        let (outcome, note) = auto::better_network(self.backend, p, first, second, s.targets)?;
        Ok(SecondKept {
            outcome,
            note,
            x,
            parts: Some(parts),
        })
    }

    /// A network on the piecewise-linear rows of `p` in `bins` bins, fitted on the plain
    /// training features `x`; with the table's parts in that encoding (their training
    /// features included). `p` is as it was on return.
    fn piecewise_network(
        &mut self,
        p: &mut Prepared,
        x: &[f32],
        bins: usize,
        s: &Second<'_>,
    ) -> Result<(Outcome<Mlp<B>>, Encoded)> {
        let dir = s.dir.join(auto::PIECEWISE_DIR);
        create_dir(&dir)?;
        let mut parts = p.piecewise(x, bins)?;
        p.swap_encoded(&mut parts);
        let wide = std::mem::take(&mut p.train.x);
        let net = self.network(p.train.n_features, s.classes, 0);
        let trained = net.and_then(|net| self.train(p, (&p.train, wide), &net, s.targets, &dir));
        let trained = trained.map(|(outcome, wide)| {
            p.train.x = wide;
            outcome
        });
        p.swap_encoded(&mut parts);
        Ok((trained?, parts))
    }

    /// `auto`'s third network, on piecewise-linear rows in `bins` bins, against the network
    /// kept among two (`kept`).
    fn third_network(
        &mut self,
        p: &mut Prepared,
        kept: SecondKept<B>,
        bins: usize,
        s: &Second<'_>,
    ) -> Result<SecondKept<B>> {
        let (outcome, parts) = self.piecewise_network(p, &kept.x, bins, s)?;
        let columns = parts.encoding.plain_columns();
        let third = SecondNetwork {
            outcome,
            inputs: NumericEncoding::Piecewise(bins),
            rows: parts.val.as_ref().map(|v| (v, columns.as_slice())),
        };
        let backend = self.backend;
        let (outcome, note) =
            auto::challenge(backend, p, kept.outcome, kept.note, third, s.targets)?;
        let parts = note.second_rows.then_some(parts).or(kept.parts);
        Ok(SecondKept {
            outcome,
            note,
            x: kept.x,
            parts,
        })
    }
}

/// Creates a run folder inside the job's.
fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| crate::Error::CreateDir {
        path: dir.to_path_buf(),
        source,
    })
}
