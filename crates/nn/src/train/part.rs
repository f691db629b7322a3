//! Data-parallel training on parts: each process holds only its own rows of the training
//! and validation sets ([`Holding::Part`]), and takes from every global batch the rows that
//! fall in its part, a number that varies from step to step.

use super::replicas::Replicas;
use crate::{Error, Result, config_err};
use std::ops::Range;

/// What each process of a data-parallel run holds of the data it trains on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Holding {
    /// Every process holds the whole training and validation sets and computes a fixed
    /// share of each global batch ([`share`](super::share)).
    #[default]
    Whole,
    /// Each process holds only its part of the rows: the processes' parts, in the order of
    /// their ranks, make the whole training set (and the whole validation set). Any split
    /// works; [`share`](super::share) of the whole set's rows is the usual one. Each
    /// process computes the rows of each global batch that fall in its part, so that the
    /// run takes the steps one process takes on the whole set (up to the order of
    /// summation). A [`BatchSource`](super::BatchSource) makes its own part
    /// ([`BatchSource::part_rows`](super::BatchSource::part_rows)).
    Part,
}

/// Where this process's rows lie in the whole training and validation sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PartRows {
    /// The whole training set's rows this process holds.
    pub train: Range<usize>,
    /// The whole training set's rows.
    pub train_total: usize,
    /// The whole validation set's rows.
    pub val_total: usize,
}

impl PartRows {
    /// Learns every process's part from the number of training and validation rows each
    /// holds (`held`), with one sum over the processes: each count is sent as two 16-bit
    /// halves, summed exactly in `f32`.
    pub fn exchange(replicas: &dyn Replicas, held: (usize, usize)) -> Result<Self> {
        let (rank, size) = (replicas.rank(), replicas.size());
        let mut counts = vec![0f32; 4 * size];
        for (k, n) in [held.0, held.1].into_iter().enumerate() {
            if n > u32::MAX as usize {
                return Err(config_err(format!(
                    "a part of {n} rows; at most {} are supported",
                    u32::MAX
                )));
            }
            counts[4 * rank + 2 * k] = (n >> 16) as f32;
            counts[4 * rank + 2 * k + 1] = (n & 0xffff) as f32;
        }
        replicas.sum(&mut counts).map_err(Error::Config)?;
        let count = |r: usize, k: usize| {
            ((counts[4 * r + 2 * k] as usize) << 16) + counts[4 * r + 2 * k + 1] as usize
        };
        let first: usize = (0..rank).map(|r| count(r, 0)).sum();
        Ok(PartRows {
            train: first..first + held.0,
            train_total: (0..size).map(|r| count(r, 0)).sum(),
            val_total: (0..size).map(|r| count(r, 1)).sum(),
        })
    }

    /// The rows of a global batch (`batch`, rows of the whole set) that this process holds,
    /// as indices into its part, in the batch's order.
    pub fn local(&self, batch: impl Iterator<Item = usize>, out: &mut Vec<u32>) {
        out.clear();
        let Range { start, end } = self.train;
        out.extend(
            batch
                .filter(|r| (start..end).contains(r))
                .map(|r| (r - start) as u32),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Alone;

    impl Replicas for Alone {
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            1
        }
        fn sum(&self, _: &mut [f32]) -> std::result::Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn counts_beyond_f32_precision_are_exchanged_exactly() {
        let n = (1 << 24) + 3;
        let part = PartRows::exchange(&Alone, (n, 7)).unwrap();
        assert_eq!(part.train, 0..n);
        assert_eq!((part.train_total, part.val_total), (n, 7));
    }

    #[test]
    fn a_batch_keeps_the_rows_of_the_part_in_order() {
        let part = PartRows {
            train: 10..20,
            train_total: 30,
            val_total: 0,
        };
        let mut out = Vec::new();
        part.local([25, 12, 3, 19, 10, 20].into_iter(), &mut out);
        assert_eq!(out, [2, 9, 0]);
    }
}
