//! The one way the tool writes its output files (JSON, CSV, text, images, plots).
//!
//! Everything is encoded in memory first, then written with [`io::write_file`]: a regular
//! file is replaced atomically (temporary file in the same folder, synced, renamed), so a
//! crash or a kill never leaves a torn or empty file, and a device such as `/dev/full` is
//! written in place. Every failure (full disk, missing folder, read-only file system) is an
//! error that names the file, so the run exits non-zero with one line.

use anyhow::{Context, Result};
use io::Picture;
use serde::Serialize;
use std::fmt::Display;
use std::path::Path;

/// Writes `bytes` to `path` (see the module documentation).
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    io::write_file(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Writes a text file.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    write_bytes(path, text.as_bytes())
}

/// Writes `value` as pretty-printed JSON followed by a newline.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .with_context(|| format!("cannot encode {} as JSON", path.display()))?;
    text.push('\n');
    write_text(path, &text)
}

/// Writes a CSV file (run records such as `history.csv`): the header, then one line per row. Fields holding a comma, a quote or
/// a line break are quoted.
#[allow(dead_code)] // for the run record's CSV files
pub fn write_csv<R, F>(path: &Path, header: &[&str], rows: R) -> Result<()>
where
    R: IntoIterator,
    R::Item: IntoIterator<Item = F>,
    F: Display,
{
    write_text(path, &csv_text(header, rows))
}

/// The text [`write_csv`] writes.
#[allow(dead_code)] // for the run record's CSV files
pub fn csv_text<R, F>(header: &[&str], rows: R) -> String
where
    R: IntoIterator,
    R::Item: IntoIterator<Item = F>,
    F: Display,
{
    let mut text = String::new();
    let mut push_line = |fields: &mut dyn Iterator<Item = String>| {
        for (i, field) in fields.enumerate() {
            if i > 0 {
                text.push(',');
            }
            if field.contains([',', '"', '\n', '\r']) {
                text.push('"');
                text.push_str(&field.replace('"', "\"\""));
                text.push('"');
            } else {
                text.push_str(&field);
            }
        }
        text.push('\n');
    };
    push_line(&mut header.iter().map(|h| h.to_string()));
    for row in rows {
        push_line(&mut row.into_iter().map(|f| f.to_string()));
    }
    text
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
    fn csv_quotes_only_what_needs_it() {
        let text = csv_text(&["step", "note"], [["1", "plain"], ["2", "a,b \"c\""]]);
        assert_eq!(text, "step,note\n1,plain\n2,\"a,b \"\"c\"\"\"\n");
    }

    #[test]
    fn json_and_csv_files_are_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.json");
        write_json(&p, &serde_json::json!({"a": 1})).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\n  \"a\": 1\n}\n");
        let p = dir.path().join("h.csv");
        write_csv(&p, &["x", "y"], [[1.5, 2.0], [3.0, 4.25]]).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "x,y\n1.5,2\n3,4.25\n");
        let e = write_text(&dir.path().join("none/x.txt"), "x").unwrap_err();
        assert!(format!("{e:#}").contains("none/x.txt"), "{e:#}");
    }
}
