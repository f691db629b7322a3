//! The output folder of a run (the library's [`RunFolder`], held until the process ends)
//! and its `metrics.json`.

use crate::cli::TrainArgs;
use anyhow::Result;
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

/// For a run stopped by Ctrl-C or SIGTERM: writes its `metrics.json` again into `dir`, with
/// the signal and the step ([`train::outcome::write_stopped_metrics`]).
pub fn write_if_stopped(dir: &Path, metrics: &impl serde::Serialize) -> Result<()> {
    if let Some(i) = crate::signals::received() {
        train::outcome::write_stopped_metrics(dir, metrics, i.name(), i.step)?;
    }
    Ok(())
}
