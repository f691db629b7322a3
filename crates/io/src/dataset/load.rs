//! [`load_dataset`]: one entry point for CSV and JSON datasets.

use std::path::Path;

use super::csv::{CsvOptions, read_csv};
use super::json::parse_json;
use super::split::train_test_split;
use super::table::DataSplit;
use crate::error::{Error, Result, read_file};
use crate::table::path_delimiter;

/// The file formats [`load_dataset`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatasetFormat {
    /// Delimited text with a header row.
    Csv,
    /// The seed system's JSON format.
    Json,
}

/// Options for [`load_dataset`].
#[derive(Debug, Clone, PartialEq)]
pub struct LoadOptions {
    /// How to read a CSV file (ignored for JSON).
    pub csv: CsvOptions,
    /// The format; `None` tells it from the extension, then from the content.
    pub format: Option<DatasetFormat>,
    /// When the file has no test part, split this fraction of the rows off as one; `None` keeps
    /// every row for training.
    pub test_fraction: Option<f32>,
    /// Seed of the split.
    pub seed: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            csv: CsvOptions::default(),
            format: None,
            test_fraction: None,
            seed: 42,
        }
    }
}

/// Tells the format of a dataset file from its extension (`.csv`, `.tsv`, `.txt`, `.json`,
/// `.jsonl` or `.ndjson`), or else from its content (JSON starts with `{` or `[`; CSV is
/// UTF-8 text).
pub fn detect_format(path: &Path, content: &[u8]) -> Result<DatasetFormat> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv" | "tsv" | "txt") => return Ok(DatasetFormat::Csv),
        Some("json" | "jsonl" | "ndjson") => return Ok(DatasetFormat::Json),
        _ => {}
    }
    let first = content.iter().find(|b| !b.is_ascii_whitespace());
    match first {
        Some(b'{' | b'[') => Ok(DatasetFormat::Json),
        Some(_) if std::str::from_utf8(content).is_ok() && !content.contains(&0) => {
            Ok(DatasetFormat::Csv)
        }
        None => Err(Error::EmptyFile {
            source_name: path.display().to_string(),
        }),
        Some(_) => Err(Error::UnknownFormat {
            path: path.to_path_buf(),
        }),
    }
}

/// Loads a CSV or JSON dataset, then, if the file has no test part and
/// [`LoadOptions::test_fraction`] is set, splits one off with [`train_test_split`].
///
/// A `.tsv` file is read with a tab delimiter unless another delimiter than `,` was asked for.
pub fn load_dataset(path: impl AsRef<Path>, options: &LoadOptions) -> Result<DataSplit> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    let name = path.display().to_string();
    let format = match options.format {
        Some(f) => f,
        None => detect_format(path, &bytes)?,
    };
    let mut split = match format {
        DatasetFormat::Json => parse_json(&bytes, &name)?,
        DatasetFormat::Csv => {
            let mut csv = options.csv.clone();
            if csv.delimiter == b',' {
                csv.delimiter = path_delimiter(path).unwrap_or(b',');
            }
            DataSplit::train_only(read_csv(bytes.as_slice(), &name, &csv)?)
        }
    };
    if split.test.is_none()
        && let Some(fraction) = options.test_fraction
    {
        let unlabeled = split.unlabeled_x.take();
        split = train_test_split(&split.train, fraction, options.seed)?;
        split.unlabeled_x = unlabeled;
    }
    Ok(split)
}
