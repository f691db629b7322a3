//! The output folder of a run and its `metrics.json`.

use crate::cli::TrainArgs;
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use train::lock::RunLock;
use train::record::utc_fields;

/// The folder a run writes into, ready for writing: created (a default name is a fresh
/// folder `runs/<job>-<time>`, with `-2`, `-3`... when a run of the same job started in the
/// same second), locked against other runs until the process ends, cleared of temporary files
/// left by killed runs, and refused when it holds another run's checkpoint that neither
/// `--resume` nor `--force` allows to touch.
pub fn prepare(args: &TrainArgs, job: &str) -> Result<PathBuf> {
    let (dir, created) = match args.out.as_deref() {
        Some(p) => {
            let created = !p.exists();
            std::fs::create_dir_all(p)
                .with_context(|| format!("cannot create the output folder {}", p.display()))?;
            (p.to_path_buf(), created)
        }
        None => (fresh_folder(Path::new("runs"), job)?, true),
    };
    // From here on, Ctrl-C and SIGTERM stop the run cleanly instead of killing it.
    crate::signals::watch();
    let lock = RunLock::acquire(&dir);
    let lock = match lock {
        Ok(lock) => lock,
        Err(e) => {
            if created {
                let _ = std::fs::remove_dir(&dir);
            }
            return Err(e.into());
        }
    };
    HELD.lock().unwrap_or_else(|e| e.into_inner()).push(Held {
        dir: dir.clone(),
        created,
        lock,
    });
    io::output::remove_stale_temporaries(&dir)
        .with_context(|| format!("cannot clear {}", dir.display()))?;
    let checkpoint = dir.join(train::checkpoint::FILE_NAME);
    if !args.resume && !args.force && checkpoint.exists() {
        bail!(
            "{} already holds a run's checkpoint; continue it with --resume, start afresh over it with --force, or choose another --out",
            dir.display()
        );
    }
    Ok(dir)
}

/// Creates `parent/<job>-<time>` (or `-2`, `-3`... when taken): creating a folder is atomic,
/// so two runs never get the same one.
fn fresh_folder(parent: &Path, job: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create the output folder {}", parent.display()))?;
    let base = format!("{job}-{}", timestamp());
    for n in 1..10_000 {
        let name = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let dir = parent.join(name);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot create the output folder {}", dir.display()));
            }
        }
    }
    bail!(
        "cannot find a free folder name for {base} in {}",
        parent.display()
    )
}

/// A run folder this process holds.
struct Held {
    dir: PathBuf,
    created: bool,
    lock: RunLock,
}

static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Releases the run folders this process holds, at its end: removes their lock files and,
/// when the run failed, the folders it created that hold nothing but the run's own record
/// (`config.json`, written before the first step): a failed run leaves no empty folder.
pub fn release_all(succeeded: bool) {
    let held = std::mem::take(&mut *HELD.lock().unwrap_or_else(|e| e.into_inner()));
    for h in held {
        h.lock.release();
        if !succeeded && h.created && holds_only_the_record(&h.dir) {
            let _ = std::fs::remove_file(h.dir.join(train::record::FILE_NAME));
            // Fails (and keeps the folder) unless it is empty now.
            let _ = std::fs::remove_dir(&h.dir);
        }
    }
}

/// Whether `dir` holds no file but the run record.
fn holds_only_the_record(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .all(|e| e.file_name() == train::record::FILE_NAME)
    })
}

/// UTC time as `YYYYmmdd-HHMMSS`.
fn timestamp() -> String {
    let [y, mo, d, h, mi, s] = utc_fields();
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}")
}

/// Writes `metrics.json` (pretty-printed) into `dir`; a run stopped by Ctrl-C or SIGTERM
/// also records `interrupted_by` (the signal) and `interrupted_at_step`.
pub fn write_metrics(dir: &Path, metrics: &impl serde::Serialize) -> Result<()> {
    let mut metrics = match serde_json::to_value(metrics)? {
        Value::Object(m) => m,
        other => anyhow::bail!("the metrics are not a record: {other}"),
    };
    if let Some(i) = crate::signals::received() {
        metrics.insert("interrupted".into(), Value::Bool(true));
        metrics.insert("interrupted_by".into(), Value::from(i.name()));
        if let Some(step) = i.step {
            metrics.insert("interrupted_at_step".into(), Value::from(step));
        }
    }
    super::output::write_json(&dir.join("metrics.json"), &metrics)
}

#[cfg(test)]
mod tests {
    use super::fresh_folder;

    #[test]
    fn default_folders_never_collide() {
        let parent = tempfile::tempdir().unwrap();
        let dirs: Vec<_> = (0..5)
            .map(|_| fresh_folder(parent.path(), "xor").unwrap())
            .collect();
        let mut names: Vec<_> = dirs.iter().map(|d| d.file_name().unwrap()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 5, "{dirs:?}");
        assert!(dirs.iter().all(|d| d.is_dir()));
    }
}
