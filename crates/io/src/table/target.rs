//! The target column as people write it: numbers for regression, words or numbers for
//! classes, missing cells dropped.

use std::collections::HashMap;

use super::cells::number;
use super::text::{Cell, ColumnRef, Table};
use crate::error::{Error, Result};
use crate::fitted::label_text;

/// Whether a target asks for regression or classification when the user does not say:
/// classification when any cell (not missing) is not a number, or when there are exactly
/// two distinct numbers; regression otherwise.
pub fn looks_categorical(column: ColumnRef<'_>) -> bool {
    let mut first: Option<f64> = None;
    let mut second: Option<f64> = None;
    let mut more = false;
    for cell in column.cells().filter(|c| !c.is_missing()) {
        let Some(v) = cell.number() else {
            return true;
        };
        match (first, second) {
            (None, _) => first = Some(v),
            (Some(a), None) if a != v => second = Some(v),
            (Some(a), Some(b)) if a != v && b != v => more = true,
            _ => {}
        }
    }
    second.is_some() && !more
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

/// The regression targets of `table`: every cell of `target` must be a number (rows with a
/// missing target are to be dropped first).
pub fn regression_targets(table: &Table, target: &str) -> Result<Vec<f32>> {
    let column = table.column(table.require(target)?);
    let mut out = Vec::with_capacity(column.len());
    let mut buf = String::new();
    for (r, cell) in column.cells().enumerate() {
        match cell.number() {
            Some(v) if (v as f32).is_finite() => out.push(v as f32),
            Some(_) => {
                return Err(Error::NumberTooLarge {
                    source_name: table.source.clone(),
                    line: table.line(r),
                    column: target.to_string(),
                    value: cell.text(&mut buf).trim().to_string(),
                });
            }
            _ => {
                let cell = super::shown(cell.text(&mut buf));
                return Err(Error::Table {
                    source_name: table.source.clone(),
                    message: format!(
                        "the regression target `{target}` holds text (`{cell}`, line {}); \
                         a regression target must be numbers (to predict classes, use \
                         --task classification)",
                        table.line(r)
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
    let numeric: Option<Vec<f32>> = words.iter().map(|w| number(w).map(|v| v as f32)).collect();
    let labels: Vec<String> = match numeric {
        Some(mut values) => {
            values.sort_by(f32::total_cmp);
            values.dedup();
            values.into_iter().map(label_text).collect()
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
                    (true, Some(v)) => label_text(v as f32),
                    _ => text.to_string(),
                };
                labels.iter().position(|l| *l == key)
            })
        })
        .collect()
}
