//! Mini-batch planning and the per-epoch shuffle.

use crate::{Result, config_err};
use tensor_core::rand::{RngCore, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;

/// How a training set of `rows` rows is cut into batches.
///
/// Every batch has exactly `batch` rows so that the training buffers are reused; when
/// `rows` is not a multiple of `batch`, the last `rows % batch` rows of each epoch's
/// order are **dropped** for that epoch (with shuffling, different rows each epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPlan {
    /// Rows in the training set.
    pub rows: usize,
    /// Rows per batch (`rows` for full-batch training).
    pub batch: usize,
    /// Updates per epoch (`rows / batch`).
    pub steps_per_epoch: u64,
    /// Whether every step sees the whole set (no gathering).
    pub full_batch: bool,
}

impl BatchPlan {
    /// The plan for `rows` rows with batches of `batch_size` (`None`, or a size of at
    /// least `rows`, means full batch).
    pub fn new(rows: usize, batch_size: Option<usize>) -> Result<Self> {
        if rows == 0 {
            return Err(config_err("the training set is empty"));
        }
        if rows > u32::MAX as usize {
            return Err(config_err(format!(
                "the training set has {rows} rows; at most {} are supported",
                u32::MAX
            )));
        }
        match batch_size {
            Some(0) => Err(config_err("the batch size must be at least 1")),
            Some(b) if b < rows => Ok(BatchPlan {
                rows,
                batch: b,
                steps_per_epoch: (rows / b) as u64,
                full_batch: false,
            }),
            _ => Ok(BatchPlan {
                rows,
                batch: rows,
                steps_per_epoch: 1,
                full_batch: true,
            }),
        }
    }
}

/// The row order of epoch `epoch`: a Fisher–Yates shuffle of `0..n` driven by a
/// `ChaCha8Rng` seeded with `seed` on stream `epoch`.
///
/// It depends on `(seed, epoch, n)` alone, so a resumed run needs no generator state.
pub fn epoch_permutation(seed: u64, epoch: u64, n: usize) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(epoch);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = bounded(&mut rng, i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}

/// A uniform integer in `0..range` (Lemire's widening multiply with rejection).
fn bounded(rng: &mut ChaCha8Rng, range: u64) -> u64 {
    let threshold = range.wrapping_neg() % range;
    loop {
        let x = rng.next_u64();
        let m = (x as u128) * (range as u128);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_permutations_and_depend_on_epoch() {
        let a = epoch_permutation(1, 0, 100);
        let b = epoch_permutation(1, 1, 100);
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, (0..100).collect::<Vec<u32>>());
        assert_ne!(a, b);
        assert_eq!(a, epoch_permutation(1, 0, 100));
    }

    #[test]
    fn plans_drop_the_partial_batch() {
        let p = BatchPlan::new(10, Some(3)).unwrap();
        assert_eq!((p.batch, p.steps_per_epoch, p.full_batch), (3, 3, false));
        assert!(BatchPlan::new(10, Some(10)).unwrap().full_batch);
        assert!(BatchPlan::new(10, Some(0)).is_err());
        assert!(BatchPlan::new(0, None).is_err());
    }
}
