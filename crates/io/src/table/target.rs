//! The target column as people write it: numbers for regression, words or numbers for
//! classes, missing cells dropped.

use super::cells::{is_missing, number};
use super::text::{Table, TextColumn};
use crate::error::{Error, Result};
use crate::fitted::label_text;

/// Whether a target asks for regression or classification when the user does not say:
/// classification when any cell (not missing) is not a number, or when there are exactly
/// two distinct numbers; regression otherwise.
pub fn looks_categorical(column: &TextColumn) -> bool {
    let mut first: Option<f64> = None;
    let mut second: Option<f64> = None;
    let mut more = false;
    for cell in column.iter().filter(|c| !is_missing(c)) {
        let Some(v) = number(cell) else {
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
        .filter(|&r| !is_missing(column.get(r)))
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
    for (r, cell) in column.iter().enumerate() {
        match number(cell) {
            Some(v) if (v as f32).is_finite() => out.push(v as f32),
            _ => {
                return Err(Error::Table {
                    source_name: table.source.clone(),
                    message: format!(
                        "the regression target `{target}` holds text (`{cell}`, data row {}); \
                         a regression target must be numbers (to predict classes, use \
                         --task classification)",
                        r + 1
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
    let mut words: Vec<&str> = column.iter().filter(|c| !is_missing(c)).collect();
    words.sort_unstable();
    words.dedup();
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

/// The index in `labels` of each row's target; `None` for a label not in `labels`.
pub fn class_indices(column: &TextColumn, labels: &[String]) -> Vec<Option<usize>> {
    let numeric = labels.iter().all(|l| number(l).is_some());
    column
        .iter()
        .map(|cell| {
            let key = match (numeric, number(cell)) {
                (true, Some(v)) => label_text(v as f32),
                _ => cell.to_string(),
            };
            labels.iter().position(|l| *l == key)
        })
        .collect()
}
