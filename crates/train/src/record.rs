//! `config.json`: the record of a run: its resolved settings (every default filled in), the
//! data it read (path, size, SHA-256), the command line, the tool version and the device.
//! A resumed run keeps the record and appends what it changed.

use crate::{Error, Result};
use nn::{Loss, LrSchedule, OptimizerConfig, TrainLength};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The file name inside a run folder.
pub const FILE_NAME: &str = "config.json";

/// Writes `bytes` to `path` atomically (see [`io::write_file`]); a failure names the file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    io::write_file(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source: Box::new(source),
    })
}

/// A typed record (a job's `config.json` entries, its metrics) as JSON entries, to merge
/// with others; a value that is not a record (a number, a list) gives an error.
pub fn entries<T: Serialize + ?Sized>(value: &T) -> Result<Map<String, Value>> {
    match serde_json::to_value(value).map_err(|e| Error::json("the record", e))? {
        Value::Object(m) => Ok(m),
        other => Err(Error::Refused(format!(
            "the record {other} is not a set of named entries"
        ))),
    }
}

/// A data file as recorded: its path as given, its size in bytes and its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFile {
    /// The path as given.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, in lowercase hex.
    pub sha256: String,
}

impl DataFile {
    /// Reads and hashes the file at `path`, streaming (a buffer's worth of memory).
    pub fn read(path: &Path) -> Result<Self> {
        let read_error = |source| Error::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut file = std::fs::File::open(path).map_err(read_error)?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = file.read(&mut buffer).map_err(read_error)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            bytes += n as u64;
        }
        let sha256 = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(DataFile {
            path: path.display().to_string(),
            bytes,
            sha256,
        })
    }
}

/// The program that wrote a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: "iron-learn".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The learning-rate schedule as recorded: its name and its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleRecord {
    /// `constant`, `step` or `cosine`.
    pub name: String,
    /// The schedule itself.
    pub detail: LrSchedule,
}

/// Early stopping as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EarlyStoppingRecord {
    /// Patience in epochs, as asked.
    pub patience_epochs: u64,
    /// Patience in evaluations, as applied (evaluations come every few epochs).
    pub patience_evaluations: Option<u64>,
    /// Whether the best weights are restored at the end (always).
    pub restore_best_weights: bool,
}

/// The training settings of a run, resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingRecord {
    /// The optimizer and its settings.
    pub optimizer: OptimizerConfig,
    /// The base learning rate.
    pub lr: f32,
    /// The schedule.
    pub schedule: ScheduleRecord,
    /// The length as asked (steps or epochs).
    pub length: TrainLength,
    /// The length in steps.
    pub total_steps: u64,
    /// Steps in one pass over the training data.
    pub steps_per_epoch: u64,
    /// Rows per step; `"full"` for full-batch training.
    #[serde(with = "batch_text")]
    pub batch: Option<usize>,
    /// Training rows (pixels drawn per step for a batch source).
    pub train_rows: usize,
    /// Validation rows.
    pub validation_rows: Option<usize>,
    /// The loss.
    pub loss: Loss,
    /// What the reported loss is.
    pub loss_units: String,
    /// Early stopping, when on.
    pub early_stopping: Option<EarlyStoppingRecord>,
    /// Steps between rows of `history.csv`.
    pub log_every_steps: u64,
    /// Epochs between evaluations.
    pub eval_every_epochs: u64,
    /// Steps between checkpoints (0: only at the end).
    pub checkpoint_every_steps: u64,
    /// Input rows averaged per target (area supervision; 1: none).
    pub area_supervision: usize,
}

/// `Option<usize>` as a number, or `"full"` for `None`.
mod batch_text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Batch {
        Rows(usize),
        Full(String),
    }

    pub fn serialize<S: Serializer>(v: &Option<usize>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(n) => Batch::Rows(*n),
            None => Batch::Full("full".into()),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
        Ok(match Batch::deserialize(d)? {
            Batch::Rows(n) => Some(n),
            Batch::Full(_) => None,
        })
    }
}

/// A resumed part of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeRecord {
    /// The command line of the resume.
    pub command: Vec<String>,
    /// When it started.
    pub started: String,
    /// The step it resumed at.
    pub step: u64,
    /// The device it ran on.
    pub device: String,
    /// Its settings (the length may differ from the first part's).
    pub training: TrainingRecord,
}

/// The whole of `config.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The program that wrote it.
    pub tool: Tool,
    /// The command line.
    pub command: Vec<String>,
    /// When the run started (UTC, ISO 8601).
    pub started: String,
    /// The job (`xor`, `image-fit`, ...).
    pub job: String,
    /// The device it trained on.
    pub device: String,
    /// The seed.
    pub seed: u64,
    /// The training settings.
    pub training: TrainingRecord,
    /// The network's configuration.
    pub architecture: Value,
    /// The job's own entries (`data`, `options`).
    #[serde(flatten)]
    pub job_entries: Map<String, Value>,
    /// Resumed parts, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumes: Vec<ResumeRecord>,
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

/// The current UTC time as year, month, day, hour, minute and second.
pub fn utc_fields() -> [i64; 6] {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = ((secs / 86_400) as i64, (secs % 86_400) as i64);
    let (y, m, d) = civil_date(days);
    [
        y,
        m.into(),
        d.into(),
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
    ]
}

/// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian calendar).
pub fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
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

/// Writes `value` as pretty-printed JSON (keys sorted, f32 settings tidied) to `path`.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut value = serde_json::to_value(value)
        .map_err(|e| Error::json(format!("cannot encode {}", path.display()), e))?;
    tidy_floats(&mut value);
    let text = serde_json::to_string_pretty(&value)
        .map_err(|e| Error::json(format!("cannot encode {}", path.display()), e))?;
    write_file(path, (text + "\n").as_bytes())
}

/// The earlier record of the run in `dir`, as JSON (`None` when it has none or it is not
/// a JSON object).
pub fn read_value(dir: &Path) -> Option<Map<String, Value>> {
    let text = std::fs::read_to_string(dir.join(FILE_NAME)).ok()?;
    match serde_json::from_str::<Value>(&text).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

impl RunRecord {
    /// Writes the record of a fresh run into `dir`.
    pub fn write_new(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(FILE_NAME), self)
    }

    /// Records a resumed part of a run: appends `entry` to the `resumes` list of the record
    /// already in `dir` (kept as it is, whatever version wrote it), or writes this record
    /// with that list when the folder has no readable record.
    pub fn append_resume(&self, dir: &Path, entry: ResumeRecord) -> Result<()> {
        let Some(mut existing) = read_value(dir) else {
            let mut fresh = self.clone();
            fresh.resumes.push(entry);
            return fresh.write_new(dir);
        };
        let entry = serde_json::to_value(&entry)
            .map_err(|e| Error::json("cannot encode the resume entry", e))?;
        let resumes = existing
            .entry("resumes")
            .or_insert_with(|| Value::Array(Vec::new()));
        match resumes {
            Value::Array(list) => list.push(entry),
            other => *other = Value::Array(vec![entry]),
        }
        write_json(&dir.join(FILE_NAME), &existing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn iso_time_has_the_expected_shape() {
        let t = utc_now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(20_779), (2026, 11, 22));
    }

    #[test]
    fn data_files_are_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        std::fs::write(&path, "abc").unwrap();
        let f = DataFile::read(&path).unwrap();
        assert_eq!(f.bytes, 3);
        assert_eq!(
            f.sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Longer than one buffer: the FIPS 180-2 test of a million `a`.
        std::fs::write(&path, vec![b'a'; 1_000_000]).unwrap();
        assert_eq!(
            DataFile::read(&path).unwrap().sha256,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
        assert!(DataFile::read(&dir.path().join("missing.csv")).is_err());
    }

    #[test]
    fn f32_settings_print_as_typed() {
        let mut v =
            json!({"lr": f64::from(0.05f32), "list": [f64::from(3e-3f32)], "x": 0.1, "n": 3});
        tidy_floats(&mut v);
        assert_eq!(v.to_string(), r#"{"list":[0.003],"lr":0.05,"n":3,"x":0.1}"#);
    }

    #[test]
    fn batches_read_back_as_written() {
        let t = crate::run::tests::training_record(Some(64));
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["batch"], 64);
        let full = serde_json::to_value(crate::run::tests::training_record(None)).unwrap();
        assert_eq!(full["batch"], "full");
        let back: TrainingRecord = serde_json::from_value(full).unwrap();
        assert_eq!(back.batch, None);
    }

    #[test]
    fn resumes_are_appended_to_the_record_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let record = crate::run::tests::run_record();
        record.write_new(dir.path()).unwrap();
        let entry = |step| ResumeRecord {
            command: vec!["again".into()],
            started: utc_now(),
            step,
            device: "cpu".into(),
            training: record.training.clone(),
        };
        record.append_resume(dir.path(), entry(5)).unwrap();
        record.append_resume(dir.path(), entry(9)).unwrap();
        let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
        let back: RunRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back.job, "xor");
        let steps: Vec<u64> = back.resumes.iter().map(|r| r.step).collect();
        assert_eq!(steps, [5, 9]);
        assert_eq!(back.job_entries["options"]["hidden"], "4");
    }
}
