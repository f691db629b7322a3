//! The one place where a run writes its files (records, tables, plots, pictures).
//!
//! Everything is encoded in memory first, then written with [`train::record::write_file`]
//! (the library's [`io::write_file`], whose failure names the file): a regular
//! file is replaced atomically (temporary file in the same folder, synced, renamed), so a
//! crash or a kill never leaves a torn or empty file, and a device such as `/dev/full` is
//! written in place. Every failure (full disk, missing folder, read-only file system) is an
//! error that names the file, so the run exits non-zero with one line.

use anyhow::{Context, Result};
use io::Picture;
use serde::Serialize;
use std::path::Path;
use train::record::write_file;

/// Writes `value` as pretty-printed JSON followed by a newline.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .with_context(|| format!("cannot encode {} as JSON", path.display()))?;
    text.push('\n');
    Ok(write_file(path, text.as_bytes())?)
}

/// Writes a picture in the format its name asks for (`.png`, `.jpg`, `.webp`, `.bmp`; no
/// extension: PNG); another extension is refused.
pub fn write_picture(path: &Path, picture: &Picture) -> Result<()> {
    io::image::save_picture(picture, path)
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_files_are_written_whole_and_failures_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.json");
        write_json(&p, &serde_json::json!({"a": 1})).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\n  \"a\": 1\n}\n");
        let e = write_json(&dir.path().join("none/x.json"), "x").unwrap_err();
        assert!(format!("{e:#}").contains("none/x.json"), "{e:#}");
    }
}
