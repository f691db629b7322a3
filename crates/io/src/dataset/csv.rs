//! CSV datasets: a header row, numeric cells, target columns chosen by name. The text is
//! read by [`read_table`] (its quoting, line and missing-cell rules and errors); this is the
//! numeric view of the table it gives.

use std::io::Read;
use std::path::Path;

use super::table::Dataset;
use crate::error::{Error, Result, read_file};
use crate::table::{ColumnRef, Table, read_table, sniff_delimiter, target_column};

/// How to read a CSV dataset.
///
/// The default reads comma-separated values, takes the last column as the target and all the
/// others as features, and refuses missing values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// Target column names; empty means the last column.
    pub targets: Vec<String>,
    /// Feature column names, in the order wanted; empty means every column that is not a target.
    pub features: Vec<String>,
    /// Drop rows where a used cell is missing (empty or one of
    /// [`MISSING_TOKENS`](crate::table::MISSING_TOKENS), any case) instead of failing.
    pub drop_missing: bool,
    /// Field delimiter (default `b','`).
    pub delimiter: u8,
    /// Read features only, no target (rows to predict); `targets` must then be empty.
    pub features_only: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            targets: Vec::new(),
            features: Vec::new(),
            drop_missing: false,
            delimiter: b',',
            features_only: false,
        }
    }
}

impl CsvOptions {
    /// The default options (last column is the target).
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses the one named column as the target.
    pub fn target(mut self, name: impl Into<String>) -> Self {
        self.targets = vec![name.into()];
        self
    }

    /// Uses the named columns as targets, in this order.
    pub fn targets<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.targets = names.into_iter().map(Into::into).collect();
        self
    }

    /// Uses only the named columns as features, in this order.
    pub fn features<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.features = names.into_iter().map(Into::into).collect();
        self
    }

    /// Drops rows with missing values instead of failing on them.
    pub fn drop_missing(mut self, drop: bool) -> Self {
        self.drop_missing = drop;
        self
    }

    /// Reads features only (no target column): rows to predict.
    pub fn features_only(mut self, features_only: bool) -> Self {
        self.features_only = features_only;
        self
    }

    /// Sets the field delimiter, e.g. `b';'` or `b'\t'`.
    pub fn delimiter(mut self, delimiter: u8) -> Self {
        self.delimiter = delimiter;
        self
    }
}

/// Reads a CSV dataset from a file; see [`read_csv`].
pub fn load_csv(path: impl AsRef<Path>, options: &CsvOptions) -> Result<Dataset> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    let name = path.display().to_string();
    dataset_from_table(
        &read_table(&bytes, &name, Some(options.delimiter))?,
        options,
    )
}

/// Reads a CSV dataset with a header row from any reader.
///
/// `source_name` is used in error messages (a file name, or e.g. `"<stdin>"`). The text is
/// read by [`read_table`] with the options' delimiter (its errors: ragged rows, bad quoting,
/// an empty file, a header without rows, ...), then viewed as numbers by
/// [`dataset_from_table`].
pub fn read_csv<R: Read>(
    mut reader: R,
    source_name: &str,
    options: &CsvOptions,
) -> Result<Dataset> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", Path::new(source_name), e))?;
    dataset_from_table(
        &read_table(&bytes, source_name, Some(options.delimiter))?,
        options,
    )
}

/// The chosen columns of a table as numbers: a [`Dataset`] of its features and targets.
///
/// Cells are trimmed; only the chosen columns are read, so other columns may hold text.
/// Errors, naming the row's line and the column: a cell that is not a number
/// ([`Error::BadNumber`]) or is beyond the `f32` range ([`Error::NumberTooLarge`]), the first
/// in the row from the left; a missing cell ([`Error::MissingValue`]) unless
/// [`CsvOptions::drop_missing`]; no rows left ([`Error::NoDataRows`]). A table of one column
/// whose name holds another delimiter than the comma asked for is
/// [`Error::WrongSeparator`].
pub fn dataset_from_table(table: &Table, options: &CsvOptions) -> Result<Dataset> {
    refuse_wrong_separator(table, options.delimiter)?;
    let (feature_cols, target_cols) = choose_columns(table, options)?;
    // Cells are checked left to right so that an error names the first bad column.
    let mut used: Vec<(usize, bool, usize)> = feature_cols
        .iter()
        .enumerate()
        .map(|(k, &c)| (c, false, k))
        .chain(target_cols.iter().enumerate().map(|(k, &c)| (c, true, k)))
        .collect();
    used.sort_unstable();
    let columns: Vec<(ColumnRef<'_>, bool, usize)> = used
        .iter()
        .map(|&(c, is_target, k)| (table.column(c), is_target, k))
        .collect();
    let mut values = RowValues::new(feature_cols.len(), target_cols.len(), table.rows());
    let mut dropped = 0usize;
    for r in 0..table.rows() {
        let mut missing: Option<usize> = None;
        for (&(c, _, _), &(column, is_target, k)) in used.iter().zip(&columns) {
            let cell = column.cell(r);
            if cell.is_missing() {
                missing.get_or_insert(c);
                continue;
            }
            let v = cell.number_f32().ok_or_else(|| table.not_a_number(r, c))?;
            values.set(is_target, k, v);
        }
        match missing {
            None => values.keep_row(),
            Some(_) if options.drop_missing => dropped += 1,
            Some(c) => return Err(missing_value(table, r, c)),
        }
    }
    if values.rows == 0 {
        return Err(Error::NoDataRows {
            source_name: table.source.clone(),
            dropped,
        });
    }
    let names = |cols: &[usize]| cols.iter().map(|&c| table.names()[c].clone()).collect();
    Ok(Dataset {
        rows: values.rows,
        x: values.x,
        y: values.y,
        n_features: feature_cols.len(),
        n_targets: target_cols.len(),
        feature_names: names(&feature_cols),
        target_names: names(&target_cols),
    })
}

/// The values of the rows kept so far, and those of the row being read.
struct RowValues {
    x: Vec<f32>,
    y: Vec<f32>,
    rows: usize,
    features: Vec<f32>,
    targets: Vec<f32>,
}

impl RowValues {
    fn new(features: usize, targets: usize, rows: usize) -> Self {
        RowValues {
            x: Vec::with_capacity(features * rows),
            y: Vec::with_capacity(targets * rows),
            rows: 0,
            features: vec![0.0; features],
            targets: vec![0.0; targets],
        }
    }

    /// Sets value `k` of the row's targets (`is_target`) or features.
    fn set(&mut self, is_target: bool, k: usize, v: f32) {
        match is_target {
            true => self.targets[k] = v,
            false => self.features[k] = v,
        }
    }

    /// Keeps the row's values.
    fn keep_row(&mut self) {
        self.x.extend_from_slice(&self.features);
        self.y.extend_from_slice(&self.targets);
        self.rows += 1;
    }
}

/// The error for the missing cell `c` of row `r`.
fn missing_value(table: &Table, r: usize, c: usize) -> Error {
    let value = table.column(c).cell(r).text(&mut String::new()).to_string();
    Error::MissingValue {
        source_name: table.source.clone(),
        place: table.place(r),
        column: table.names()[c].clone(),
        value: value.trim().to_string(),
    }
}

/// Errors when a table read with commas is one column whose name the delimiter sniffer
/// ([`sniff_delimiter`]) finds split by another delimiter.
fn refuse_wrong_separator(table: &Table, delimiter: u8) -> Result<()> {
    let [header] = table.names() else {
        return Ok(());
    };
    if delimiter != b',' {
        return Ok(());
    }
    let separator = match sniff_delimiter(header.as_bytes()) {
        b';' => "semicolons",
        b'\t' => "tabs",
        b'|' => "vertical bars",
        _ => return Ok(()),
    };
    Err(Error::WrongSeparator {
        source_name: table.source.clone(),
        header: header.chars().take(80).collect(),
        separator,
    })
}

/// Resolves the feature and target column indices from the options; an unnamed target is
/// the last column ([`target_column`]).
fn choose_columns(table: &Table, options: &CsvOptions) -> Result<(Vec<usize>, Vec<usize>)> {
    let source_name = &table.source;
    if options.features_only && !options.targets.is_empty() {
        return Err(Error::invalid(
            "a features-only read cannot also choose target columns",
        ));
    }
    let require = |names: &[String]| -> Result<Vec<usize>> {
        names.iter().map(|n| table.require(n)).collect()
    };
    let targets: Vec<usize> = if options.features_only {
        Vec::new()
    } else if options.targets.is_empty() {
        vec![target_column(table, None)?]
    } else {
        require(&options.targets)?
    };
    let features: Vec<usize> = if options.features.is_empty() {
        (0..table.names().len())
            .filter(|c| !targets.contains(c))
            .collect()
    } else {
        require(&options.features)?
    };
    let chosen: Vec<usize> = targets.iter().chain(&features).copied().collect();
    let twice = (1..chosen.len()).find(|&i| chosen[..i].contains(&chosen[i]));
    if let Some(i) = twice {
        return Err(Error::invalid(format!(
            "column `{}` of `{source_name}` is chosen twice (as a feature or target)",
            table.names()[chosen[i]]
        )));
    }
    if features.is_empty() {
        return Err(Error::invalid(format!(
            "`{source_name}` has no feature columns besides the target"
        )));
    }
    Ok((features, targets))
}
