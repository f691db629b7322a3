//! `auto`'s networks spread over the processes of a run over several ([`train::ranks`]):
//! each network is trained whole by one process (the largest first, each to the process with
//! the fewest parameters to train so far); then each process sends the files of its
//! networks' runs to the others, which load them, so that every process holds every network
//! and makes the same comparison. Rank 0, which writes, holds every run's files.

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
    /// The networks spread over the processes: each trains its own whole (the first it
    /// trains with its progress shown), then every process loads the others' from the files
    /// their owners send.
    pub(super) fn spread(
        self,
        p: &Prepared,
        first: First<'_>,
        others: Vec<Candidate<'_>>,
        (targets, reporter): (Option<&Standardizer>, &mut dyn Reporter),
    ) -> Result<Trained<B>> {
        let world = train::ranks::world();
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
        let sizes: Vec<usize> = nets.iter().map(|n| n.architecture.num_params()).collect();
        let owners = owners(&sizes, world.size());
        let owner = |i: usize| owners[i];
        let mut plain = first.x;
        let mut done: Vec<Option<Done<B>>> = (0..slots.len()).map(|_| None).collect();
        let alone = Trainer {
            mode: RunMode::Alone,
            ..self
        };
        // The first network this process trains shows its progress.
        let mut shown: Option<&mut dyn Reporter> = Some(reporter);
        let mut silent = Silent;
        for (i, slot) in slots.iter_mut().enumerate() {
            if owner(i) == world.rank() {
                let reporter: &mut dyn Reporter = match shown.take() {
                    Some(r) => r,
                    None => &mut silent,
                };
                done[i] = Some(alone.run_slot(p, nets[i], slot, &mut plain, targets, reporter)?);
            }
        }
        for (i, slot) in slots.iter_mut().enumerate() {
            if let Some(own_x) = self.share_drop_out(world, owner(i), slot)? {
                if done[i].is_none() {
                    done[i] = Some((self.dropped_out(nets[i])?, own_x));
                }
                continue;
            }
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

    /// Whether the network of `slot`, trained by process `owner`, dropped out (it diverged):
    /// the owner tells every process, and the others note it too; `Some` with the slot's own
    /// features (untouched where this process did not train it) when it did.
    fn share_drop_out(
        self,
        world: &train::ranks::World,
        owner: usize,
        slot: &mut Slot<'_>,
    ) -> Result<Option<Option<Vec<f32>>>> {
        let Some(drop_outs) = self.drop_outs else {
            return Ok(None);
        };
        let mut reason = match world.rank() == owner {
            true => drop_outs.reason(&slot.dir).unwrap_or_default().into_bytes(),
            false => Vec::new(),
        };
        world.broadcast(owner, &mut reason)?;
        if reason.is_empty() {
            return Ok(None);
        }
        if world.rank() != owner {
            drop_outs.record(&slot.dir, String::from_utf8_lossy(&reason).into_owned());
        }
        slot.rows = None;
        Ok(Some(slot.x.take()))
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

/// The process that trains each network of `sizes` parameters, `size` processes sharing
/// them: the largest first, each to the process with the fewest parameters so far (the
/// lowest rank on a tie), so that the processes finish about together.
fn owners(sizes: &[usize], size: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(sizes[i]), i));
    let mut load = vec![0usize; size.max(1)];
    let mut owner = vec![0; sizes.len()];
    for i in order {
        let least = (0..load.len()).min_by_key(|&r| (load[r], r)).unwrap_or(0);
        load[least] += sizes[i];
        owner[i] = least;
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::owners;

    #[test]
    fn the_largest_networks_go_first_to_the_least_loaded_process() {
        assert_eq!(owners(&[10, 30, 20], 2), [1, 0, 1]);
        assert_eq!(owners(&[10, 30, 20], 3), [2, 0, 1]);
        assert_eq!(owners(&[10, 30, 20], 1), [0, 0, 0]);
        assert_eq!(owners(&[5, 5, 5], 4), [0, 1, 2]);
    }
}
