//! CSV datasets: a header row, numeric cells, target columns chosen by name.

use crate::table::read::csv_error;
use std::io::Read;
use std::path::Path;

use super::table::Dataset;
use crate::error::{Error, Result};
use crate::table::RowPlace;

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
    /// Drop rows where a used cell is missing (empty, `NA`, `N/A` or `nan`, any case) instead of
    /// failing.
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
    let file = std::fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    read_csv(
        std::io::BufReader::new(file),
        &path.display().to_string(),
        options,
    )
}

/// Reads a CSV dataset with a header row from any reader.
///
/// `source_name` is used in error messages (a file name, or e.g. `"<stdin>"`). Cells are trimmed.
/// Only the chosen columns are parsed, so other columns may hold text.
pub fn read_csv<R: Read>(reader: R, source_name: &str, options: &CsvOptions) -> Result<Dataset> {
    let mut rdr = ::csv::ReaderBuilder::new()
        .delimiter(options.delimiter)
        .has_headers(true)
        .trim(::csv::Trim::All)
        .from_reader(reader);
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| csv_error(e, source_name))?
        .iter()
        .map(str::to_string)
        .collect();
    if header.is_empty() || (header.len() == 1 && header[0].is_empty()) {
        return Err(Error::EmptyFile {
            source_name: source_name.to_string(),
        });
    }
    if header.len() == 1 && options.delimiter == b',' {
        let separator = if header[0].contains(';') {
            Some("semicolons")
        } else if header[0].contains('\t') {
            Some("tabs")
        } else {
            None
        };
        if let Some(separator) = separator {
            return Err(Error::WrongSeparator {
                source_name: source_name.to_string(),
                header: header[0].chars().take(80).collect(),
                separator,
            });
        }
    }
    let (feature_cols, target_cols) = choose_columns(&header, options, source_name)?;

    let mut x = Vec::new();
    let mut y = Vec::new();
    let mut rows = 0usize;
    let mut dropped = 0usize;
    // Cells are checked left to right so that an error names the first bad column.
    let mut used: Vec<(usize, bool, usize)> = feature_cols
        .iter()
        .enumerate()
        .map(|(k, &c)| (c, false, k))
        .chain(target_cols.iter().enumerate().map(|(k, &c)| (c, true, k)))
        .collect();
    used.sort_unstable();
    let mut record = ::csv::StringRecord::new();
    let mut fvals = vec![0f32; feature_cols.len()];
    let mut tvals = vec![0f32; target_cols.len()];
    loop {
        match rdr.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(e, source_name)),
        }
        let line = record.position().map_or(0, ::csv::Position::line);
        let cell = |col: usize| -> Result<Option<f32>> {
            let text = record.get(col).unwrap_or("");
            parse_cell(text).map_err(|too_large| {
                let (source_name, column, value) = (
                    source_name.to_string(),
                    header[col].clone(),
                    text.to_string(),
                );
                if too_large {
                    Error::NumberTooLarge {
                        source_name,
                        place: RowPlace::Line(line),
                        column,
                        value,
                    }
                } else {
                    Error::BadNumber {
                        source_name,
                        place: RowPlace::Line(line),
                        column,
                        value,
                    }
                }
            })
        };
        let mut missing: Option<usize> = None;
        for &(col, is_target, k) in &used {
            match cell(col)? {
                Some(v) if is_target => tvals[k] = v,
                Some(v) => fvals[k] = v,
                None => {
                    missing.get_or_insert(col);
                }
            }
        }
        if let Some(col) = missing {
            if options.drop_missing {
                dropped += 1;
                continue;
            }
            return Err(Error::MissingValue {
                source_name: source_name.to_string(),
                place: RowPlace::Line(line),
                column: header[col].clone(),
                value: record.get(col).unwrap_or("").to_string(),
            });
        }
        x.extend_from_slice(&fvals);
        y.extend_from_slice(&tvals);
        rows += 1;
    }
    if rows == 0 {
        return Err(Error::NoDataRows {
            source_name: source_name.to_string(),
            dropped,
        });
    }
    Ok(Dataset {
        x,
        y,
        rows,
        n_features: feature_cols.len(),
        n_targets: target_cols.len(),
        feature_names: feature_cols.iter().map(|&c| header[c].clone()).collect(),
        target_names: target_cols.iter().map(|&c| header[c].clone()).collect(),
    })
}

/// `Ok(None)` for a missing value, `Ok(Some(v))` for a finite number, `Err(true)` for a
/// number beyond the f32 range, `Err(false)` for anything else.
fn parse_cell(text: &str) -> std::result::Result<Option<f32>, bool> {
    let t = text.trim();
    if t.is_empty()
        || t.eq_ignore_ascii_case("na")
        || t.eq_ignore_ascii_case("n/a")
        || t.eq_ignore_ascii_case("nan")
    {
        return Ok(None);
    }
    match t.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        // "1e39" reads as infinity in f32 but is a finite number: say it is too large.
        Ok(_) => Err(t.parse::<f64>().is_ok_and(f64::is_finite)),
        Err(_) => Err(false),
    }
}

/// Resolves the feature and target column indices from the options.
fn choose_columns(
    header: &[String],
    options: &CsvOptions,
    source_name: &str,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let find = |name: &str| -> Result<usize> {
        let mut hits = header.iter().enumerate().filter(|(_, h)| *h == name);
        match (hits.next(), hits.next()) {
            (Some((i, _)), None) => Ok(i),
            (Some(_), Some(_)) => Err(Error::invalid(format!(
                "`{source_name}` has more than one column named `{name}`"
            ))),
            (None, _) => Err(Error::UnknownColumn {
                source_name: source_name.to_string(),
                name: name.to_string(),
                available: header.to_vec(),
            }),
        }
    };
    if options.features_only && !options.targets.is_empty() {
        return Err(Error::invalid(
            "a features-only read cannot also choose target columns",
        ));
    }
    let targets: Vec<usize> = if options.features_only {
        Vec::new()
    } else if options.targets.is_empty() {
        vec![header.len() - 1]
    } else {
        options
            .targets
            .iter()
            .map(|n| find(n))
            .collect::<Result<_>>()?
    };
    let features: Vec<usize> = if options.features.is_empty() {
        (0..header.len()).filter(|c| !targets.contains(c)).collect()
    } else {
        options
            .features
            .iter()
            .map(|n| find(n))
            .collect::<Result<_>>()?
    };
    for (i, c) in targets.iter().chain(&features).enumerate() {
        if targets.iter().chain(&features).skip(i + 1).any(|d| d == c) {
            return Err(Error::invalid(format!(
                "column `{}` of `{source_name}` is chosen twice (as a feature or target)",
                header[*c]
            )));
        }
    }
    if features.is_empty() {
        return Err(Error::invalid(format!(
            "`{source_name}` has no feature columns besides the target"
        )));
    }
    Ok((features, targets))
}
