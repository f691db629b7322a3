//! The parts of a bagged table job: the table encoded once on every row, then, for each
//! fold, its rows to train on (the other folds') and to validate on (its own), in the one
//! encoding; the piecewise-linear rows likewise, their bins fitted once on every row.

use crate::Result;
use crate::table::{Encoded, Prepared, deal_folds};

/// The rows of each fold, by a stratified deal (by class for a classifier): `folds[f]` are
/// the rows of fold `f`, in table order.
pub(super) fn fold_rows(p: &Prepared, of: usize, seed: u64) -> Vec<Vec<usize>> {
    let rows = p.train.rows;
    let groups: Vec<Vec<usize>> = match &p.labels {
        Some(labels) => (0..labels.len())
            .map(|c| (0..rows).filter(|&r| p.train.y[r] as usize == c).collect())
            .collect(),
        None => vec![(0..rows).collect()],
    };
    let dealt = deal_folds(groups, rows, of, seed);
    let mut folds = vec![Vec::new(); of];
    for (r, &f) in dealt.iter().enumerate() {
        folds[f].push(r);
    }
    folds
}

/// The rows outside fold `fold`, in table order.
pub(super) fn rows_outside(folds: &[Vec<usize>], fold: usize) -> Vec<usize> {
    let mut rows: Vec<usize> = folds
        .iter()
        .enumerate()
        .filter(|(f, _)| *f != fold)
        .flat_map(|(_, r)| r.iter().copied())
        .collect();
    rows.sort_unstable();
    rows
}

/// `p` (every row in its training part) with `train` rows to train on and `val` rows to
/// validate on; no test rows and no rows without targets.
pub(super) fn fold_part(p: &Prepared, train: &[usize], val: &[usize]) -> Result<Prepared> {
    Ok(Prepared {
        train: p.train.select_rows(train)?,
        val: Some(p.train.select_rows(val)?),
        test: None,
        test_table: p.test_table.clone(),
        unlabeled: None,
        labels: p.labels.clone(),
        encoding: p.encoding.clone(),
        schema: p.schema.clone(),
        target: p.target.clone(),
        classify: p.classify,
        notes: p.notes.clone(),
        task_note: p.task_note.clone(),
        table_bytes: p.table_bytes,
        target_range: p.target_range.clone(),
    })
}

/// `all` (every row, piecewise-linear) with `train` rows to train on and `val` rows to
/// validate on.
pub(super) fn fold_encoded(all: &Encoded, train: &[usize], val: &[usize]) -> Result<Encoded> {
    Ok(Encoded {
        encoding: all.encoding.clone(),
        train: all.train.select_rows(train)?,
        val: Some(all.train.select_rows(val)?),
        test: None,
        schema: all.schema.clone(),
    })
}

/// Rows `rows` of `outputs` (`width` per row, in the order of `rows`) written into `into`
/// (every row of the table).
pub(super) fn scatter(into: &mut [f32], outputs: &[f32], rows: &[usize], width: usize) {
    for (chunk, &r) in outputs.chunks_exact(width).zip(rows) {
        into[r * width..(r + 1) * width].copy_from_slice(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_outside_a_fold_are_every_other_row_in_order() {
        let folds = vec![vec![1, 4], vec![0, 3], vec![2]];
        assert_eq!(rows_outside(&folds, 1), [1, 2, 4]);
        let mut into = vec![0.0; 10];
        scatter(&mut into, &[1.0, 2.0, 3.0, 4.0], &[4, 1], 2);
        assert_eq!(into, [0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0]);
    }
}
