//! The output folder of a run (the library's [`RunFolder`], held until the process ends)
//! and its `metrics.json`.

use crate::cli::TrainArgs;
use anyhow::Result;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use train::run_dir::RunFolder;

/// The folder a run writes into, ready for writing ([`RunFolder::prepare`]): `--out` or a
/// fresh `runs/<job>-<time>`, locked against other runs until the process ends; one that
/// holds another run's checkpoint needs `--resume` or `--force`.
pub fn prepare(args: &TrainArgs, job: &str) -> Result<PathBuf> {
    // From here on, Ctrl-C and SIGTERM stop the run cleanly instead of killing it.
    crate::signals::watch();
    let folder = RunFolder::prepare(args.out.as_deref(), job, args.resume || args.force)?;
    let dir = folder.dir().to_path_buf();
    HELD.lock().unwrap_or_else(|e| e.into_inner()).push(folder);
    Ok(dir)
}

/// The run folders this process holds.
static HELD: Mutex<Vec<RunFolder>> = Mutex::new(Vec::new());

/// Releases the run folders this process holds, at its end ([`RunFolder::release`]): a
/// failed run leaves no empty folder.
pub fn release_all(succeeded: bool) {
    let held = std::mem::take(&mut *HELD.lock().unwrap_or_else(|e| e.into_inner()));
    for folder in held {
        folder.release(succeeded);
    }
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
    let path = dir.join(train::outcome::METRICS_FILE);
    Ok(train::outcome::write_metrics(&path, &metrics)?)
}
