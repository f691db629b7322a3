//! Seeded train/test split.

use tensor_core::rand::SeedableRng;
use tensor_core::rand::seq::SliceRandom;
use tensor_core::rand_chacha::ChaCha8Rng;

use super::table::{DataSplit, Dataset};
use crate::error::{Error, Result};

/// Splits `data` into a training and a test part, the test part holding about
/// `test_fraction` of the rows (at least one row in each part).
///
/// The rows are drawn with a `ChaCha8Rng` seeded by `seed`: the same seed gives the same split.
/// Each part keeps the rows in their original order.
pub fn train_test_split(data: &Dataset, test_fraction: f32, seed: u64) -> Result<DataSplit> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(Error::invalid(format!(
            "test fraction must be between 0 and 1 (exclusive), got {test_fraction}"
        )));
    }
    if data.rows < 2 {
        return Err(Error::invalid(format!(
            "cannot split a dataset of {} row into train and test parts",
            data.rows
        )));
    }
    let n_test =
        ((data.rows as f64 * f64::from(test_fraction)).round() as usize).clamp(1, data.rows - 1);
    let mut order: Vec<usize> = (0..data.rows).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let (test_idx, train_idx) = order.split_at_mut(n_test);
    test_idx.sort_unstable();
    train_idx.sort_unstable();
    Ok(DataSplit {
        train: data.select_rows(train_idx)?,
        test: Some(data.select_rows(test_idx)?),
        unlabeled_x: None,
    })
}
