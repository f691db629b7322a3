//! `auto`'s networks spread over the processes of a run over several ([`train::ranks`]):
//! network `i` is trained whole by process `i mod N`; then each process sends the files of
//! its networks' runs to the others, which load them, so that every process holds every
//! network and makes the same comparison. Rank 0, which writes, holds every run's files.

use super::candidates::{Candidate, First, Trained};
use super::network::{Network, NetworkRows, RunMode, Trainer};
use crate::Result;
use crate::table::Prepared;
use io::Standardizer;
use nn::Mlp;
use std::path::PathBuf;
use tensor_core::Backend;
use train::{Outcome, Reporter, Silent};

/// A network to train or load: its rows, its own training features (`None`: the plain ones)
/// and its run folder.
struct Slot<'a> {
    rows: Option<NetworkRows<'a>>,
    x: Option<Vec<f32>>,
    own: bool,
    dir: PathBuf,
}

/// A trained or loaded network, with its own features given back.
type Done<B> = (Outcome<Mlp<B>>, Option<Vec<f32>>);

impl<B: Backend> Trainer<'_, B> {
    /// The networks spread over the processes: each trains its own whole (the first, rank
    /// 0's, with its progress shown), then every process loads the others' from the files
    /// their owners send.
    pub(super) fn spread(
        self,
        p: &Prepared,
        first: First<'_>,
        others: Vec<Candidate<'_>>,
        (targets, reporter): (Option<&Standardizer>, &mut dyn Reporter),
    ) -> Result<Trained<B>> {
        let world = train::ranks::world();
        let owner = |i: usize| i % world.size();
        let mut slots = vec![Slot {
            rows: Some(first.rows),
            x: None,
            own: false,
            dir: first.dir.to_path_buf(),
        }];
        let mut owned = Vec::with_capacity(others.len());
        for c in others {
            owned.push(c.net);
            slots.push(Slot {
                rows: Some(c.rows),
                own: c.x.is_some(),
                x: c.x,
                dir: c.dir,
            });
        }
        let nets: Vec<&Network> = std::iter::once(first.net).chain(&owned).collect();
        let mut plain = first.x;
        let mut done: Vec<Option<Done<B>>> = (0..slots.len()).map(|_| None).collect();
        let alone = Trainer {
            mode: RunMode::Alone,
            ..self
        };
        let mut shown: Option<&mut dyn Reporter> = Some(reporter);
        for (i, slot) in slots.iter_mut().enumerate() {
            if owner(i) == world.rank() {
                let reporter: &mut dyn Reporter = match (i, shown.take()) {
                    (0, Some(r)) => r,
                    _ => &mut Silent,
                };
                done[i] = Some(alone.run_slot(p, nets[i], slot, &mut plain, targets, reporter)?);
            }
        }
        for (i, slot) in slots.iter().enumerate() {
            world.share_files(owner(i), &slot.dir)?;
        }
        let reload = Trainer {
            mode: RunMode::Reload,
            ..self
        };
        for (i, slot) in slots.iter_mut().enumerate() {
            if done[i].is_none() {
                let quiet = &mut Silent;
                done[i] = Some(reload.run_slot(p, nets[i], slot, &mut plain, targets, quiet)?);
            }
        }
        let mut done = done.into_iter().flatten();
        let (first, _) = done
            .next()
            .ok_or_else(|| crate::Error::refused("no network"))?;
        Ok(((first, plain), done.collect()))
    }

    /// Trains (or loads) the network of `slot`, on its own features or on `plain` (taken
    /// for the run and put back).
    fn run_slot(
        self,
        p: &Prepared,
        net: &Network,
        slot: &mut Slot<'_>,
        plain: &mut Vec<f32>,
        targets: Option<&Standardizer>,
        reporter: &mut dyn Reporter,
    ) -> Result<Done<B>> {
        let rows = slot
            .rows
            .take()
            .ok_or_else(|| crate::Error::refused("a network was trained twice"))?;
        let x = match slot.own {
            true => slot.x.take().unwrap_or_default(),
            false => std::mem::take(plain),
        };
        let (out, x) = self.train(p, (rows, x), net, targets, (&slot.dir, reporter))?;
        Ok(match slot.own {
            true => (out, Some(x)),
            false => {
                *plain = x;
                (out, None)
            }
        })
    }
}
