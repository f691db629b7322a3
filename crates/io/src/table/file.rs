//! A table file of any format read here as text tables ([`load_table_file`]): delimited text
//! (the delimiter sniffed; a tab for `.tsv`), Parquet, JSON records or lines, and the seed
//! system's JSON dataset format with its test part and rows without targets.

use std::path::Path;

use super::text::{Table, TextColumn};
use crate::dataset::{Dataset, DatasetFormat, detect_format, parse_json};
use crate::error::{Result, read_file};
use crate::fitted::label_text;

/// A table file read as text tables: its rows, and the test rows and target-less rows a JSON
/// dataset file can carry.
pub struct TableFile {
    /// The rows (all of them for delimited text, Parquet and JSON records; the training part
    /// of a JSON dataset).
    pub rows: Table,
    /// A JSON dataset's test part.
    pub test: Option<Table>,
    /// A JSON dataset's rows without targets (`x_test` with an empty `y_test`).
    pub unlabeled: Option<Table>,
}

impl TableFile {
    /// A file of rows alone.
    fn rows(rows: Table) -> Self {
        TableFile {
            rows,
            test: None,
            unlabeled: None,
        }
    }
}

/// Whether a path names a Parquet file (by its extension, `.parquet` or `.parq`).
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("parq"))
}

/// Reads a table file as text tables: Parquet by its extension; else JSON or delimited text
/// as [`detect_format`] tells them. Delimited text is read by
/// [`read_table`](super::read_table) (the delimiter of [`path_delimiter`](super::path_delimiter),
/// else sniffed), JSON records and lines by [`read_json_table`](super::read_json_table), and
/// the JSON dataset format by [`parse_json`], its numbers written in their shortest form.
pub fn load_table_file(path: &Path) -> Result<TableFile> {
    let name = path.display().to_string();
    let bytes = read_file(path)?;
    if is_parquet(path) {
        return Ok(TableFile::rows(super::read_parquet(bytes, &name)?));
    }
    match detect_format(path, &bytes)? {
        DatasetFormat::Json if !super::is_dataset_json(&bytes) => {
            Ok(TableFile::rows(super::read_json_table(&bytes, &name)?))
        }
        DatasetFormat::Json => json_dataset_tables(&bytes, &name),
        DatasetFormat::Csv => Ok(TableFile::rows(super::read_table(
            &bytes,
            &name,
            super::path_delimiter(path),
        )?)),
    }
}

/// A JSON dataset file's parts as text tables.
fn json_dataset_tables(bytes: &[u8], name: &str) -> Result<TableFile> {
    let split = parse_json(bytes, name)?;
    let unlabeled = match &split.unlabeled_x {
        Some(x) => Some(numbers_table(
            &format!("{name} (x_test)"),
            &split.train.feature_names,
            x,
        )?),
        None => None,
    };
    Ok(TableFile {
        rows: dataset_table(name, &split.train)?,
        test: split
            .test
            .as_ref()
            .map(|t| dataset_table(name, t))
            .transpose()?,
        unlabeled,
    })
}

/// A numeric dataset as a text table: features then targets, numbers in shortest form.
fn dataset_table(source: &str, d: &Dataset) -> Result<Table> {
    let names: Vec<String> = d
        .feature_names
        .iter()
        .chain(&d.target_names)
        .cloned()
        .collect();
    let mut values = Vec::with_capacity(d.rows * names.len());
    for r in 0..d.rows {
        values.extend_from_slice(d.row_x(r));
        values.extend_from_slice(d.row_y(r));
    }
    numbers_table(source, &names, &values)
}

/// Row-major `values` under `names` as a text table.
fn numbers_table(source: &str, names: &[String], values: &[f32]) -> Result<Table> {
    let n = names.len();
    let mut columns = vec![TextColumn::default(); n];
    for row in values.chunks_exact(n.max(1)) {
        for (c, v) in columns.iter_mut().zip(row) {
            c.push(&label_text(*v));
        }
    }
    Table::new(source, names.to_vec(), columns)
}
