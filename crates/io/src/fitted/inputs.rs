//! Rows to predict, read from a CSV or JSON file and put in a model's column order.

use std::path::Path;

use serde::Deserialize;

use crate::dataset::{CsvOptions, DatasetFormat, dataset_from_table, detect_format};
use crate::error::{Error, Result, read_file};

/// Input rows in a model's feature order, with the file's columns it did not use.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRows {
    /// `rows * features` values, row-major, in the model's feature order.
    pub x: Vec<f32>,
    /// Number of rows.
    pub rows: usize,
    /// Columns of the file that are not features of the model (a target column, ids, ...).
    pub ignored: Vec<String>,
}

/// Reads rows to predict from a file:
///
/// - CSV (`.csv`, `.tsv`, `.txt`, or text): columns matched to `feature_names` by name, in
///   any order; other columns are reported in [`InputRows::ignored`]; a missing feature is
///   an error naming it.
/// - JSON in the dataset format `{n, m, x, m_test, x_test, ...}`: the rows of `x_test` when
///   it has any, else those of `x` (only `n` and one of them are required); columns are
///   matched by position. A model trained on such a file names its features `x0`, `x1`, ...
///   by position and leaves out the columns training dropped (a constant column): rows of
///   the `n` columns it was trained on are accepted, and the dropped columns skipped.
pub fn load_inputs(path: impl AsRef<Path>, feature_names: &[String]) -> Result<InputRows> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    let name = path.display().to_string();
    match detect_format(path, &bytes)? {
        DatasetFormat::Json => json_inputs(&bytes, &name, feature_names),
        DatasetFormat::Csv => {
            let delimiter = crate::table::path_delimiter(path).unwrap_or(b',');
            read_csv_inputs(&bytes, &name, feature_names, delimiter)
        }
    }
}

/// Reads CSV text (with a header) into rows of `feature_names`, matched by name.
pub fn read_csv_inputs(
    text: &[u8],
    source_name: &str,
    feature_names: &[String],
    delimiter: u8,
) -> Result<InputRows> {
    let table = crate::table::read_table(text, source_name, Some(delimiter))?;
    let options = CsvOptions::new()
        .features(feature_names.iter().cloned())
        .features_only(true)
        .delimiter(delimiter);
    let data = dataset_from_table(&table, &options)?;
    let ignored = table
        .names()
        .iter()
        .filter(|h| !feature_names.contains(h))
        .cloned()
        .collect();
    Ok(InputRows {
        x: data.x,
        rows: data.rows,
        ignored,
    })
}

#[derive(Deserialize)]
struct RawInputs {
    n: usize,
    #[serde(default)]
    m: Option<usize>,
    #[serde(default)]
    x: Vec<f32>,
    #[serde(default)]
    m_test: Option<usize>,
    #[serde(default)]
    x_test: Vec<f32>,
}

/// The position in a row of `n` positional columns (`x0`, `x1`, ...) of each of `names`;
/// `None` when a name is not one of them.
fn positions(n: usize, names: &[String]) -> Option<Vec<usize>> {
    names
        .iter()
        .map(|name| {
            let i: usize = name.strip_prefix('x')?.parse().ok()?;
            (i < n && format!("x{i}") == *name).then_some(i)
        })
        .collect()
}

fn json_inputs(text: &[u8], source_name: &str, names: &[String]) -> Result<InputRows> {
    let json_err = |message: String| Error::Json {
        source_name: source_name.to_string(),
        message,
    };
    let raw: RawInputs = serde_json::from_slice(text).map_err(|e| json_err(e.to_string()))?;
    let features = raw.n;
    let kept = match positions(raw.n, names) {
        _ if raw.n == names.len() => None,
        Some(kept) => Some(kept),
        None => {
            return Err(json_err(format!(
                "`n` is {} but the model takes {} features per row ({}), which are not \
                 positional columns x0, x1, ... of this file",
                raw.n,
                names.len(),
                shown_names(names)
            )));
        }
    };
    let (field, values, declared) = if raw.x_test.is_empty() {
        ("x", raw.x, raw.m)
    } else {
        ("x_test", raw.x_test, raw.m_test)
    };
    if values.is_empty() {
        return Err(json_err(
            "it has no rows to predict in `x_test` or `x`".into(),
        ));
    }
    if !values.len().is_multiple_of(features) {
        return Err(json_err(format!(
            "`{field}` has {} values, not a whole number of rows of n = {features}",
            values.len()
        )));
    }
    let rows = values.len() / features;
    if let Some(m) = declared.filter(|&m| m != rows) {
        return Err(json_err(format!(
            "`{field}` holds {rows} rows but the file declares {m}"
        )));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(json_err(format!("`{field}`[{i}] is not a finite number")));
    }
    let Some(kept) = kept else {
        return Ok(InputRows {
            x: values,
            rows,
            ignored: Vec::new(),
        });
    };
    let x = values
        .chunks_exact(features)
        .flat_map(|row| kept.iter().map(move |&i| row[i]))
        .collect();
    let ignored = (0..raw.n)
        .filter(|i| !kept.contains(i))
        .map(|i| format!("x{i}"))
        .collect();
    Ok(InputRows { x, rows, ignored })
}

/// At most eight names, then how many more.
fn shown_names(names: &[String]) -> String {
    let mut text = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 8 {
        text += &format!(", ... {} more", names.len() - 8);
    }
    text
}
