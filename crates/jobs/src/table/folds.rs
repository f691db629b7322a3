//! The splits of a k-fold cross-validation: every row tested once, in one of `k` folds of
//! nearly equal size (by class, for a classifier), drawn once for all folds by a seeded
//! shuffle.

use super::read::class_members;
use crate::{Error, Result};
use io::table::Table;
use tensor_core::rand::SeedableRng;
use tensor_core::rand::seq::SliceRandom;
use tensor_core::rand_chacha::ChaCha8Rng;

/// The most folds a cross-validation takes.
pub const MAX_FOLDS: usize = 20;

/// One fold of a k-fold cross-validation: the rows a table job tests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    /// Which fold, from 0.
    pub index: usize,
    /// How many folds.
    pub of: usize,
}

/// The rows of `table` outside fold `fold` and inside it: `(kept, held)`, each in file
/// order. The rows are shuffled by `seed` (a `ChaCha8Rng`) and dealt to the folds in turn;
/// with `target` (a classifier's), class by class, each class's rows continuing the deal
/// where the class before stopped, so that every fold holds each class in proportion.
pub fn split_fold(
    table: &Table,
    fold: Fold,
    target: Option<&str>,
    seed: u64,
) -> Result<(Table, Table)> {
    let rows = table.rows();
    if rows < fold.of {
        return Err(Error::refused(format!(
            "`{}` has {rows} rows: too few for {} folds",
            table.source, fold.of
        )));
    }
    let groups = match target {
        Some(t) => class_members(table, t)?,
        None => vec![(0..rows).collect()],
    };
    let folds = deal_folds(groups, rows, fold.of, seed);
    let (held, kept): (Vec<usize>, Vec<usize>) = (0..rows).partition(|&r| folds[r] == fold.index);
    Ok((table.select_rows(&kept)?, table.select_rows(&held)?))
}

/// The fold of each of `rows` rows, from 0 to `of - 1`: the rows of each group (a class's
/// rows, or every row in one group) shuffled by `seed` (a `ChaCha8Rng`) and dealt to the
/// folds in turn, each group continuing the deal where the one before stopped, so that
/// every fold holds each group in proportion.
pub fn deal_folds(groups: Vec<Vec<usize>>, rows: usize, of: usize, seed: u64) -> Vec<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut folds = vec![0; rows];
    let mut dealt = 0usize;
    for mut members in groups {
        members.shuffle(&mut rng);
        for r in members {
            folds[r] = dealt % of.max(1);
            dealt += 1;
        }
    }
    folds
}
