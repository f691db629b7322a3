//! `config.json`: the record of a run: its resolved settings (every default filled in), the
//! data it read (path, size, SHA-256), the command line, the tool version and the device.
//! A resumed run keeps the record and appends what it changed.

use super::output::write_file;
use super::run_dir::utc_fields;
use super::sha256::digest_reader;
use anyhow::{Context, Result};
use serde_json::{Map, Value, json};
use std::path::Path;

/// The file name inside a run folder.
pub const FILE_NAME: &str = "config.json";

/// A data file as recorded: its path as given, its size in bytes and its SHA-256.
pub fn data_file(path: &Path) -> Result<Value> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (sha256, bytes) =
        digest_reader(file).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(json!({
        "path": path.display().to_string(),
        "bytes": bytes,
        "sha256": sha256,
    }))
}

/// The command line as typed (arguments that are not UTF-8 are shown lossily).
pub fn command_line() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The current UTC time as ISO 8601, e.g. `2026-11-23T15:04:05Z`.
pub fn utc_now() -> String {
    let [y, mo, d, h, mi, s] = utc_fields();
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// What every record starts with: tool, version, command, start time.
pub fn header() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "tool".into(),
        json!({ "name": "iron-learn", "version": env!("CARGO_PKG_VERSION") }),
    );
    m.insert("command".into(), json!(command_line()));
    m.insert("started".into(), json!(utc_now()));
    m
}

/// Numbers that are exactly an `f32` (settings are f32 throughout) written as that `f32`
/// prints (`0.05`, not `0.05000000074505806`).
pub fn tidy_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64() {
                let f = x as f32;
                if f64::from(f) == x
                    && let Ok(short) = f.to_string().parse::<f64>()
                    && let Some(tidy) = serde_json::Number::from_f64(short)
                {
                    *n = tidy;
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy_floats),
        Value::Object(map) => map.values_mut().for_each(tidy_floats),
        _ => {}
    }
}

/// Writes the record of a fresh run.
pub fn write_new(dir: &Path, record: &Map<String, Value>) -> Result<()> {
    let mut value = Value::Object(record.clone());
    tidy_floats(&mut value);
    let text = serde_json::to_string_pretty(&value)? + "\n";
    write_file(&dir.join(FILE_NAME), text.as_bytes())
}

/// Records a resumed part of a run: appends `entry` (step, command, time, settings that may
/// differ) to the `resumes` list of the existing record, or writes `fresh` with that list when
/// the folder has no readable record.
pub fn append_resume(dir: &Path, entry: Value, fresh: &Map<String, Value>) -> Result<()> {
    let existing = std::fs::read_to_string(dir.join(FILE_NAME))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        });
    let mut record = existing.unwrap_or_else(|| fresh.clone());
    let resumes = record
        .entry("resumes")
        .or_insert_with(|| Value::Array(Vec::new()));
    match resumes {
        Value::Array(list) => list.push(entry),
        other => *other = Value::Array(vec![entry]),
    }
    write_new(dir, &record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_time_has_the_expected_shape() {
        let t = utc_now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }

    #[test]
    fn data_files_are_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        std::fs::write(&path, "abc").unwrap();
        let v = data_file(&path).unwrap();
        assert_eq!(v["bytes"], 3);
        assert_eq!(
            v["sha256"],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(data_file(&dir.path().join("missing.csv")).is_err());
    }

    #[test]
    fn f32_settings_print_as_typed() {
        let mut v =
            json!({"lr": f64::from(0.05f32), "list": [f64::from(3e-3f32)], "x": 0.1, "n": 3});
        tidy_floats(&mut v);
        assert_eq!(v.to_string(), r#"{"list":[0.003],"lr":0.05,"n":3,"x":0.1}"#);
    }

    #[test]
    fn resumes_are_appended() {
        let dir = tempfile::tempdir().unwrap();
        let mut fresh = Map::new();
        fresh.insert("job".into(), json!("xor"));
        write_new(dir.path(), &fresh).unwrap();
        append_resume(dir.path(), json!({"step": 5}), &fresh).unwrap();
        append_resume(dir.path(), json!({"step": 9}), &fresh).unwrap();
        let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["job"], "xor");
        assert_eq!(v["resumes"], json!([{"step": 5}, {"step": 9}]));
    }
}
