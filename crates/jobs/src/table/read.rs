//! Table files read within a memory budget, and the row operations of table jobs: dropping
//! rows with a missing target or cell, seeded splits (stratified by class or not), the
//! target column.

use std::path::Path;

use crate::{Error, Result};
use io::image::{MemoryBudget, human_bytes};
use io::table::{Table, TableFile, is_parquet};
use tensor_core::rand::SeedableRng;
use tensor_core::rand::seq::SliceRandom;
use tensor_core::rand_chacha::ChaCha8Rng;

/// Reads a table file as text tables ([`io::table::load_table_file`]: CSV, Parquet or
/// JSON); a text file whose reading would not fit in `budget` is refused before it is read.
pub fn read_any(path: &Path, budget: Option<&MemoryBudget>) -> Result<TableFile> {
    if !is_parquet(path) {
        refuse_beyond_budget(path, budget)?;
    }
    Ok(io::table::load_table_file(path)?)
}

/// Refuses, in one line saying what would fit and before reading it, a text table whose
/// reading would not fit in `budget` ([`io::table::estimate_text_table`], and the program
/// itself, [`PROGRAM_BYTES`](train::budget::PROGRAM_BYTES)).
fn refuse_beyond_budget(path: &Path, budget: Option<&MemoryBudget>) -> Result<()> {
    let (Some(estimate), Some(budget)) = (io::table::estimate_text_table(path), budget) else {
        return Ok(());
    };
    let program = train::budget::PROGRAM_BYTES as u64;
    let need = estimate.bytes() + program;
    if need > budget.bytes {
        return Err(Error::refused(format!(
            "`{}` ({}, about {} rows x {} columns) takes about {} to read, over the memory \
             budget of {} ({}); about {} rows of it would fit",
            path.display(),
            human_bytes(estimate.file_bytes as f64),
            estimate.rows,
            estimate.columns,
            human_bytes(need as f64),
            human_bytes(budget.bytes as f64),
            budget.source,
            estimate.rows_within(budget.bytes.saturating_sub(program))
        )));
    }
    Ok(())
}

/// Drops the rows whose `target` is missing, adding a one-line note giving the count to
/// `notes`.
pub fn drop_missing_targets(table: Table, target: &str, notes: &mut Vec<String>) -> Result<Table> {
    let (keep, dropped) = io::table::rows_with_target(&table, target)?;
    if dropped == 0 {
        return Ok(table);
    }
    notes.push(format!(
        "dropped {dropped} row{} of {} whose target `{target}` is missing",
        if dropped == 1 { "" } else { "s" },
        table.source
    ));
    Ok(table.select_rows(&keep)?)
}

/// Drops the rows with a missing cell in any column but those of `ignore` (`--drop-missing`).
/// A note saying how many rows went is added to `notes`.
pub fn drop_incomplete_rows(
    table: Table,
    ignore: &[String],
    notes: &mut Vec<String>,
) -> Result<Table> {
    let ignored: Vec<usize> = ignore.iter().filter_map(|n| table.position(n)).collect();
    let used: Vec<usize> = (0..table.names().len())
        .filter(|c| !ignored.contains(c))
        .collect();
    let keep: Vec<usize> = (0..table.rows())
        .filter(|&r| used.iter().all(|&c| !table.column(c).cell(r).is_missing()))
        .collect();
    if keep.is_empty() {
        return Err(Error::refused(format!(
            "`{}` has no rows without a missing cell{}",
            table.source,
            empty_columns(&table, &used)
        )));
    }
    if keep.len() < table.rows() {
        notes.push(format!(
            "dropped {} rows of {} with a missing cell, as asked",
            table.rows() - keep.len(),
            table.source
        ));
    }
    Ok(table.select_rows(&keep)?)
}

/// The columns of `used` missing in every row, which leave no row whole, in words (empty
/// when there are none).
fn empty_columns(table: &Table, used: &[usize]) -> String {
    const SHOWN: usize = 5;
    let empty: Vec<String> = used
        .iter()
        .filter(|&&c| table.column(c).cells().all(|cell| cell.is_missing()))
        .map(|&c| format!("`{}`", io::table::shown(&table.names()[c])))
        .collect();
    let mut names = empty
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if empty.len() > SHOWN {
        names += &format!(" and {} more", empty.len() - SHOWN);
    }
    match empty.len() {
        0 => String::new(),
        1 => format!(": the column {names} is missing in every row; leave it out"),
        _ => format!(": the columns {names} are missing in every row; leave them out"),
    }
}

/// Splits about `fraction` of the rows off, drawn as [`io::dataset::split_indices`] draws
/// them, each part in file order: `(kept, held)`.
pub fn split_rows(table: &Table, fraction: f32, seed: u64) -> Result<(Table, Table)> {
    let Some((kept, held)) = io::dataset::split_indices(table.rows(), fraction, seed) else {
        return Err(Error::refused(format!(
            "`{}` has {} row: too few to hold some out",
            table.source,
            table.rows()
        )));
    };
    Ok((table.select_rows(&kept)?, table.select_rows(&held)?))
}

/// Splits about `fraction` of the rows off class by class (stratified on the text of the
/// `target` column): each class gives its share, by largest remainder so that the parts hold
/// as many rows as [`split_rows`] would, and never its last row, so that every class stays in
/// the kept part (a class of one row is kept whole). The draw is a `ChaCha8Rng` seeded by
/// `seed`, classes taken in the order they first appear; each part in file order:
/// `(kept, held)`.
pub fn split_rows_by_class(
    table: &Table,
    target: &str,
    fraction: f32,
    seed: u64,
) -> Result<(Table, Table)> {
    let rows = table.rows();
    if rows < 2 {
        return split_rows(table, fraction, seed);
    }
    let mut classes = class_members(table, target)?;
    let want = io::dataset::held_count(rows, fraction);
    let shares = class_shares(&classes, want, fraction);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut held_idx, mut kept_idx) = (Vec::new(), Vec::new());
    for (members, held) in classes.iter_mut().zip(shares) {
        members.shuffle(&mut rng);
        held_idx.extend_from_slice(&members[..held]);
        kept_idx.extend_from_slice(&members[held..]);
    }
    if held_idx.is_empty() {
        return Err(Error::refused(format!(
            "`{}`: every class of `{target}` has a single row; none can be held out",
            table.source
        )));
    }
    held_idx.sort_unstable();
    kept_idx.sort_unstable();
    Ok((table.select_rows(&kept_idx)?, table.select_rows(&held_idx)?))
}

/// The rows of each class of the `target` column (on the text of its cells), classes in
/// the order they first appear, each class's rows in file order.
pub(super) fn class_members(table: &Table, target: &str) -> Result<Vec<Vec<usize>>> {
    let column = table.column(table.require(target)?);
    let mut classes: Vec<Vec<usize>> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut buf = String::new();
    for r in 0..table.rows() {
        let label = column.cell(r).text(&mut buf).trim().to_string();
        let k = *index.entry(label).or_insert_with(|| {
            classes.push(Vec::new());
            classes.len() - 1
        });
        classes[k].push(r);
    }
    Ok(classes)
}

/// Rows each class gives to the held part: its share of `want` rounded down, then one more
/// to the classes with the largest remainders, never a class's last row.
fn class_shares(classes: &[Vec<usize>], want: usize, fraction: f32) -> Vec<usize> {
    let exact: Vec<f64> = classes
        .iter()
        .map(|c| c.len() as f64 * f64::from(fraction))
        .collect();
    let cap = |k: usize| classes[k].len() - 1;
    let mut shares: Vec<usize> = exact
        .iter()
        .enumerate()
        .map(|(k, e)| (e.floor() as usize).min(cap(k)))
        .collect();
    let mut order: Vec<usize> = (0..classes.len()).collect();
    order.sort_by(|&a, &b| {
        let rem = |k: usize| exact[k] - exact[k].floor();
        rem(b).total_cmp(&rem(a)).then(a.cmp(&b))
    });
    let mut total: usize = shares.iter().sum();
    for &k in order.iter().cycle().take(2 * classes.len()) {
        if total >= want {
            break;
        }
        if shares[k] < cap(k) {
            shares[k] += 1;
            total += 1;
        }
    }
    shares
}

/// The target column's name: the one `asked` for, or the last column
/// ([`io::table::target_column`]).
pub fn target_name(table: &Table, asked: Option<&str>) -> Result<String> {
    let c = io::table::target_column(table, asked)?;
    Ok(table.names()[c].clone())
}
