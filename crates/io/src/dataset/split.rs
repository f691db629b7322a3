//! Seeded train/test split: the one draw of held-out rows, for datasets here and for the
//! table jobs' text tables.

use tensor_core::rand::SeedableRng;
use tensor_core::rand::seq::SliceRandom;
use tensor_core::rand_chacha::ChaCha8Rng;

use super::table::{DataSplit, Dataset};
use crate::error::{Error, Result};

/// How many of `rows` rows a share `fraction` holds out: the share rounded, at least one
/// and never all (`rows` must be at least 2).
pub fn held_count(rows: usize, fraction: f32) -> usize {
    ((rows as f64 * f64::from(fraction)).round() as usize).clamp(1, rows.max(2) - 1)
}

/// The indices of `rows` rows split in two, about `fraction` of them held out: `(kept,
/// held)`, each in increasing order; `None` when there are fewer than 2 rows.
///
/// The held rows are drawn with a `ChaCha8Rng` seeded by `seed`: the same seed gives the
/// same split.
pub fn split_indices(rows: usize, fraction: f32, seed: u64) -> Option<(Vec<usize>, Vec<usize>)> {
    if rows < 2 {
        return None;
    }
    let mut order: Vec<usize> = (0..rows).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let (held, kept) = order.split_at_mut(held_count(rows, fraction));
    held.sort_unstable();
    kept.sort_unstable();
    Some((kept.to_vec(), held.to_vec()))
}

/// Splits `data` into a training and a test part, the test part holding about
/// `test_fraction` of the rows (at least one row in each part), drawn by [`split_indices`].
/// Each part keeps the rows in their original order.
pub fn train_test_split(data: &Dataset, test_fraction: f32, seed: u64) -> Result<DataSplit> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(Error::invalid(format!(
            "test fraction must be between 0 and 1 (exclusive), got {test_fraction}"
        )));
    }
    let Some((train_idx, test_idx)) = split_indices(data.rows, test_fraction, seed) else {
        return Err(Error::invalid(format!(
            "cannot split a dataset of {} row into train and test parts",
            data.rows
        )));
    };
    Ok(DataSplit {
        train: data.select_rows(&train_idx)?,
        test: Some(data.select_rows(&test_idx)?),
        unlabeled_x: None,
    })
}
