//! The target column as people write it: numbers for regression, words or numbers for
//! classes, missing cells dropped.

use std::collections::HashMap;

use super::cells::number;
use super::numbers::NumberFormat;
use super::text::{Cell, ColumnRef, Table};
use crate::error::{Error, Result};
use crate::fitted::label_text;

/// The share of a target's cells (not missing) that may be words in a column of numbers
/// that is still a regression target: the rows of those words are dropped (5%).
pub const STRAY_TARGETS: f64 = 0.05;
/// At most this many distinct whole numbers make a target a handful of codes (10).
pub const MAX_CODES: usize = 10;

/// The task a target asks for when the user does not say, and why when it could be read
/// the other way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskGuess {
    /// Classes (true) or a regression.
    pub classify: bool,
    /// Why, when the target could be read the other way (no option is named).
    pub note: Option<String>,
}

/// The task a target column asks for ([`TaskGuess`]):
///
/// - classes when more than [`STRAY_TARGETS`] of its cells (not missing) are not numbers,
///   or when it holds exactly two distinct numbers;
/// - classes, with a note, when it holds 3 to [`MAX_CODES`] whole numbers counting up by
///   one from 0 or 1 (codes such as 0/1/2), in at least two rows a code on average;
/// - a regression otherwise (with a note when it holds at most [`MAX_CODES`] whole
///   numbers): a few stray words among numbers (`unknown`) are rows to drop, not classes.
pub fn guess_task(column: ColumnRef<'_>) -> TaskGuess {
    let format = target_format(column);
    let mut words = 0usize;
    let mut present = 0usize;
    let mut values: Vec<f64> = Vec::new();
    let mut whole = true;
    let mut buf = String::new();
    for cell in column.cells().filter(|c| !c.is_missing()) {
        present += 1;
        // The f32 of each number: exact for the cells held as numbers, without printing them.
        match number_in(cell, &format).filter(|v| (*v as f32).is_finite()) {
            Some(v) => {
                let v = f64::from(v as f32);
                whole &= v.fract() == 0.0;
                if values.len() <= MAX_CODES && !values.contains(&v) {
                    values.push(v);
                }
            }
            // A number beyond the f32 range is a number (refused later as too large), and
            // no class code.
            None if super::too_large_for_f32(cell.text(&mut buf)) => whole = false,
            None => words += 1,
        }
    }
    let guess = |classify: bool, note: Option<String>| TaskGuess { classify, note };
    if words as f64 > STRAY_TARGETS * present as f64 || values.len() <= 2 {
        return guess(words > 0 || values.len() == 2, None);
    }
    if !whole || values.len() > MAX_CODES {
        return guess(false, None);
    }
    values.sort_by(f64::total_cmp);
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    // Codes name classes that rows share: two rows a code at least, on average.
    let codes = present >= 2 * values.len()
        && (values[0] == 0.0 || values[0] == 1.0)
        && values.windows(2).all(|w| w[1] == w[0] + 1.0);
    if codes {
        guess(
            true,
            Some(format!(
                "the target holds {} whole-number codes ({}): read as classes, not as a \
                 regression",
                values.len(),
                list.join(", ")
            )),
        )
    } else {
        guess(
            false,
            Some(format!(
                "the target holds only {} distinct whole numbers ({}): read as a regression, \
                 though they may be classes",
                values.len(),
                list.join(", ")
            )),
        )
    }
}

/// How a target column writes its numbers: the format that reads the most of its cells
/// (`1,250,000` among `950000` reads both), as for the other columns.
fn target_format(column: ColumnRef<'_>) -> NumberFormat {
    super::counts::count(column, false).format
}

/// How the `target` column of `table` writes its numbers, read as the feature columns are
/// ([`infer_schema`](super::infer_schema)): the format that reads the most of its cells,
/// and where `1,234` reads either way while another column writes a decimal comma, the
/// comma as decimal. Read it on the whole table, before any split: a part whose cells all
/// read either way (`2,184`) would otherwise take the comma as grouping thousands where
/// the rest of the table takes it as decimal.
pub fn target_number_format(table: &Table, target: &str) -> Result<NumberFormat> {
    let t = table.require(target)?;
    let counted = super::counts::count(table.column(t), false);
    if counted.comma_sure || counted.format.group != Some(',') {
        return Ok(counted.format);
    }
    let comma_elsewhere = (0..table.names().len())
        .filter(|&c| c != t)
        .any(|c| super::counts::count(table.column(c), false).comma_sure);
    Ok(match comma_elsewhere {
        true => super::counts::count(table.column(t), true).format,
        false => counted.format,
    })
}

/// The number a target cell holds in `format`, if it holds one.
fn number_in(cell: Cell<'_>, format: &NumberFormat) -> Option<f64> {
    match cell {
        Cell::Text(t) if !format.is_plain() => format.read(t),
        cell => cell.number(),
    }
}

/// Whether a target asks for classification when the user does not say
/// ([`guess_task`]).
pub fn looks_categorical(column: ColumnRef<'_>) -> bool {
    guess_task(column).classify
}

/// The rows of `table` whose `target` cell is a number, and the texts of the others (not
/// missing) in the order met: the rows a regression keeps.
pub fn rows_with_number_target(table: &Table, target: &str) -> Result<(Vec<usize>, Vec<String>)> {
    let format = target_number_format(table, target)?;
    let column = table.column(table.require(target)?);
    let mut keep = Vec::with_capacity(column.len());
    let mut dropped = Vec::new();
    let mut buf = String::new();
    for (r, cell) in column.cells().enumerate() {
        match number_in(cell, &format).filter(|v| (*v as f32).is_finite()) {
            Some(_) => keep.push(r),
            None if cell.is_missing() => {}
            // Kept, so that the regression's targets refuse it as too large for an f32.
            None if super::too_large_for_f32(cell.text(&mut buf)) => keep.push(r),
            None => dropped.push(cell.text(&mut buf).to_string()),
        }
    }
    Ok((keep, dropped))
}

/// The target column's index: the column `asked` for, or else the last column (the one
/// rule for a target left unnamed). Errors on a name the table lacks, listing its columns,
/// and on a table without columns.
pub fn target_column(table: &Table, asked: Option<&str>) -> Result<usize> {
    match asked {
        Some(name) => table.require(name),
        None => table
            .names()
            .len()
            .checked_sub(1)
            .ok_or_else(|| Error::Table {
                source_name: table.source.clone(),
                message: "it has no columns".into(),
            }),
    }
}

/// The rows of `table` whose `target` cell is not missing, and how many were dropped.
pub fn rows_with_target(table: &Table, target: &str) -> Result<(Vec<usize>, usize)> {
    let column = table.column(table.require(target)?);
    let keep: Vec<usize> = (0..column.len())
        .filter(|&r| !column.cell(r).is_missing())
        .collect();
    let dropped = column.len() - keep.len();
    if keep.is_empty() {
        return Err(Error::Table {
            source_name: table.source.clone(),
            message: format!("the target `{target}` is missing in every row"),
        });
    }
    Ok((keep, dropped))
}

/// The regression targets of `table`: every cell of `target` must be a number, in the format
/// the column writes ([`target_number_format`]; rows with a missing target are to be dropped
/// first).
pub fn regression_targets(table: &Table, target: &str) -> Result<Vec<f32>> {
    regression_targets_as(table, target, &target_number_format(table, target)?)
}

/// [`regression_targets`] read in `format`: the format of the whole table's target, for a
/// part of it (a training, validation or test split).
pub fn regression_targets_as(
    table: &Table,
    target: &str,
    format: &NumberFormat,
) -> Result<Vec<f32>> {
    let column = table.column(table.require(target)?);
    let mut out = Vec::with_capacity(column.len());
    let mut buf = String::new();
    for (r, cell) in column.cells().enumerate() {
        match number_in(cell, format) {
            Some(v) if (v as f32).is_finite() => out.push(v as f32),
            Some(_) => {
                return Err(Error::NumberTooLarge {
                    source_name: table.source.clone(),
                    place: table.place(r),
                    column: target.to_string(),
                    value: cell.text(&mut buf).trim().to_string(),
                });
            }
            _ => {
                let cell = super::shown(cell.text(&mut buf));
                return Err(Error::Table {
                    source_name: table.source.clone(),
                    message: format!(
                        "the regression target `{target}` holds text (`{cell}`, {}); \
                         a regression target must be numbers (set the task to classification \
                         to predict classes)",
                        table.place(r)
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// The class labels of a target column, in the model's output order: numeric labels in
/// ascending order of value, written in their shortest form (`1`, `2.5`), word labels in
/// text order. Errors when there is only one.
pub fn class_labels(table: &Table, target: &str) -> Result<Vec<String>> {
    let column = table.column(table.require(target)?);
    let words = distinct_texts(column);
    let mut words: Vec<&str> = words.iter().map(|w| w.as_str()).collect();
    words.sort_unstable();
    let numeric: Option<Vec<f64>> = words.iter().map(|w| number(w)).collect();
    let labels: Vec<String> = match numeric {
        Some(mut values) => {
            values.sort_by(f64::total_cmp);
            values.dedup();
            values.into_iter().map(number_label).collect()
        }
        None => words.into_iter().map(str::to_string).collect(),
    };
    if labels.len() < 2 {
        return Err(Error::Table {
            source_name: table.source.clone(),
            message: format!(
                "the target `{target}` has a single class ({}); there is nothing to classify",
                labels.first().map_or("none", String::as_str)
            ),
        });
    }
    Ok(labels)
}

/// The distinct texts of the cells that are not missing (each number and each dictionary
/// code looked at once).
fn distinct_texts(column: ColumnRef<'_>) -> Vec<String> {
    let mut numbers: Vec<u32> = Vec::new();
    let mut codes: Vec<u32> = Vec::new();
    for (r, code) in column.codes().enumerate() {
        match (code, column.cell(r)) {
            (Some(code), cell) if !cell.is_missing() => codes.push(code),
            (None, Cell::Number(v)) => numbers.push(v.to_bits()),
            _ => {}
        }
    }
    for list in [&mut numbers, &mut codes] {
        list.sort_unstable();
        list.dedup();
    }
    let data = column.data();
    let numbers = numbers.into_iter().map(|b| f32::from_bits(b).to_string());
    let texts = codes.into_iter().map(|c| data.code_text(c).to_string());
    numbers.chain(texts).collect()
}

/// The label of a class whose cells read as the number `v`: its shortest text as an `f32`
/// (`1`, `2.5`) when the `f32` holds it exactly, else as an `f64` (`16777217`), so that two
/// numbers one `f32` cannot tell apart stay two classes.
fn number_label(v: f64) -> String {
    let single = v as f32;
    if f64::from(single) == v {
        label_text(single)
    } else {
        format!("{v}")
    }
}

/// The index in `labels` of each row's target; `None` for a label not in `labels` (each
/// distinct cell looked up once).
pub fn class_indices(column: ColumnRef<'_>, labels: &[String]) -> Vec<Option<usize>> {
    let numeric = labels.iter().all(|l| number(l).is_some());
    let mut seen: HashMap<(bool, u32), Option<usize>> = HashMap::new();
    let mut buf = String::new();
    (0..column.len())
        .map(|r| {
            let cell = column.cell(r);
            let key = match column.data().code(column.index(r)) {
                Some(code) => (true, code),
                None => (false, cell.number_f32().map_or(0, f32::to_bits)),
            };
            *seen.entry(key).or_insert_with(|| {
                let text = cell.text(&mut buf);
                let key = match (numeric, number(text)) {
                    (true, Some(v)) => number_label(v),
                    _ => text.to_string(),
                };
                labels.iter().position(|l| *l == key)
            })
        })
        .collect()
}
