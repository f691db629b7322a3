//! The data file entry of `config.json`, as the jobs extend it (rows, target, image size).

use anyhow::Result;
use serde_json::Value;
use std::path::Path;

/// A data file as recorded: its path as given, its size in bytes and its SHA-256.
pub fn data_file(path: &Path) -> Result<Value> {
    Ok(serde_json::to_value(train::record::DataFile::read(path)?)?)
}
