//! `auto`'s networks spread over the processes of a run over several ([`train::ranks`]):
//! each network is trained whole by one process (the largest first, each to the process with
//! the fewest parameters to train so far); then each process sends the files of its
//! networks' runs to the others, which load them, so that every process holds every network
//! and makes the same comparison. Rank 0, which writes, holds every run's files.

use super::candidates::Candidate;
use super::network::{RunMode, Trainer};
use crate::Result;
use crate::table::Prepared;
use nn::Mlp;
use tensor_core::Backend;
use train::{Outcome, Reporter, Silent};

impl<B: Backend> Trainer<'_, B> {
    /// The `candidates` spread over the processes: each trains its own whole (the first it
    /// trains with its progress shown), then every process loads the others' from the files
    /// their owners send. The outcomes are in the candidates' order.
    pub(super) fn spread(
        self,
        p: &Prepared,
        candidates: Vec<Candidate<'_, B>>,
        reporter: &mut dyn Reporter,
    ) -> Result<Vec<Outcome<Mlp<B>>>> {
        let world = train::ranks::world();
        let sizes: Vec<usize> = candidates
            .iter()
            .map(|c| c.net.architecture.num_params())
            .collect();
        let owners = owners(&sizes, world.size());
        let mut done: Vec<Option<Outcome<Mlp<B>>>> = candidates.iter().map(|_| None).collect();
        let alone = Trainer {
            mode: RunMode::Alone,
            ..self
        };
        // The first network this process trains shows its progress.
        let mut shown: Option<&mut dyn Reporter> = Some(reporter);
        for (i, c) in candidates.iter().enumerate() {
            if owners[i] == world.rank() {
                let reporter: &mut dyn Reporter = match shown.take() {
                    Some(r) => r,
                    None => &mut Silent,
                };
                done[i] = Some(alone.train(p, &c.net, &c.rows, &c.dir, reporter)?);
            }
        }
        for (i, c) in candidates.iter().enumerate() {
            if self.share_drop_out(world, owners[i], c)? {
                if done[i].is_none() {
                    done[i] = Some(self.dropped_out(&c.net)?);
                }
                continue;
            }
            world.share_files(owners[i], &c.dir)?;
        }
        let reload = Trainer {
            mode: RunMode::Reload,
            ..self
        };
        for (i, c) in candidates.iter().enumerate() {
            if done[i].is_none() {
                done[i] = Some(reload.train(p, &c.net, &c.rows, &c.dir, &mut Silent)?);
            }
        }
        Ok(done.into_iter().flatten().collect())
    }

    /// Whether the network of `c`, trained by process `owner`, dropped out (it diverged):
    /// the owner tells every process, and the others note it too.
    fn share_drop_out(
        self,
        world: &train::ranks::World,
        owner: usize,
        c: &Candidate<'_, B>,
    ) -> Result<bool> {
        let Some(drop_outs) = self.drop_outs else {
            return Ok(false);
        };
        let mut reason = match world.rank() == owner {
            true => drop_outs.reason(&c.dir).unwrap_or_default().into_bytes(),
            false => Vec::new(),
        };
        world.broadcast(owner, &mut reason)?;
        if reason.is_empty() {
            return Ok(false);
        }
        if world.rank() != owner {
            drop_outs.record(&c.dir, String::from_utf8_lossy(&reason).into_owned());
        }
        Ok(true)
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
