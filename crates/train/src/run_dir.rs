//! The folder a run writes into, ready for writing ([`RunFolder::prepare`]): created (a
//! default name is a fresh folder `runs/<job>-<time>`), locked against other runs, cleared
//! of temporary files left by killed runs, and refused when it holds another run's
//! checkpoint that the caller did not ask to continue or replace.

use crate::lock::RunLock;
use crate::record::utc_fields;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Where runs without a folder of their own go: `runs/<job>-<time>`.
pub const RUNS_FOLDER: &str = "runs";

/// A run folder this process holds (locked) until [`release`](RunFolder::release).
#[derive(Debug)]
pub struct RunFolder {
    dir: PathBuf,
    created: bool,
    /// The lock of the run folder; none for a scratch folder.
    lock: Option<RunLock>,
}

impl RunFolder {
    /// The folder `out` (created where missing), or a fresh `runs/<job>-<time>` (with
    /// `-2`, `-3`... when a run of the same job started in the same second), locked and
    /// cleared of stale temporary files. A folder holding a checkpoint is refused unless
    /// `reuse` (the run continues it or starts afresh over it). On a process but rank 0 of
    /// several ([`crate::ranks`]), a private scratch folder instead (a copy of `out` when
    /// reusing it), removed at [`release`](Self::release): rank 0 alone writes the run folder.
    pub fn prepare(out: Option<&Path>, job: &str, reuse: bool) -> Result<RunFolder> {
        let rank = crate::ranks::world().rank();
        if rank != 0 {
            // Rank 0 alone writes the run folder; this process writes a scratch copy.
            let from = out.filter(|_| reuse);
            let dir = crate::ranks::scratch_folder(rank, from)?;
            return Ok(RunFolder {
                dir,
                created: true,
                lock: None,
            });
        }
        let (dir, created) = match out {
            Some(p) => {
                let created = !p.exists();
                create_dir_all(p)?;
                (p.to_path_buf(), created)
            }
            None => (fresh_folder(Path::new(RUNS_FOLDER), job)?, true),
        };
        let lock = match RunLock::acquire(&dir) {
            Ok(lock) => lock,
            Err(e) => {
                if created {
                    let _ = std::fs::remove_dir(&dir);
                }
                return Err(e);
            }
        };
        let folder = RunFolder {
            dir,
            created,
            lock: Some(lock),
        };
        match folder.check(reuse) {
            Ok(()) => Ok(folder),
            Err(e) => {
                folder.release(false);
                Err(e)
            }
        }
    }

    /// Clears stale temporaries, and refuses a checkpoint that is not to be reused.
    fn check(&self, reuse: bool) -> Result<()> {
        let dir = &self.dir;
        io::output::remove_stale_temporaries(dir).map_err(|e| Error::Clear {
            dir: dir.clone(),
            source: Box::new(e),
        })?;
        if !reuse && dir.join(crate::checkpoint::FILE_NAME).exists() {
            return Err(Error::FolderHoldsRun { dir: dir.clone() });
        }
        Ok(())
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Unlocks the folder (removing its lock file) at the run's end; when the run failed,
    /// removes a folder it created that holds nothing but the run's record (`config.json`,
    /// written before the first step): a failed run leaves no empty folder.
    pub fn release(self, succeeded: bool) {
        let Some(lock) = self.lock else {
            // A scratch folder of a rank but 0.
            let _ = std::fs::remove_dir_all(&self.dir);
            return;
        };
        lock.release();
        if !succeeded && self.created && holds_only_the_record(&self.dir) {
            let _ = std::fs::remove_file(self.dir.join(crate::record::FILE_NAME));
            // Fails (and keeps the folder) unless it is empty now.
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// Creates `dir` and its parents where missing.
pub(crate) fn create_dir_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
        path: dir.to_path_buf(),
        source,
    })
}

/// Creates `parent/<job>-<time>` (or `-2`, `-3`... when taken): creating a folder is atomic,
/// so two runs never get the same one.
pub fn fresh_folder(parent: &Path, job: &str) -> Result<PathBuf> {
    create_dir_all(parent)?;
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
            Err(source) => return Err(Error::CreateDir { path: dir, source }),
        }
    }
    Err(Error::Refused(format!(
        "cannot find a free folder name for {base} in {}",
        parent.display()
    )))
}

/// Whether `dir` holds no file but the run record.
fn holds_only_the_record(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .filter_map(std::result::Result::ok)
            .all(|e| e.file_name() == crate::record::FILE_NAME)
    })
}

/// UTC time as `YYYYmmdd-HHMMSS`.
fn timestamp() -> String {
    let [y, mo, d, h, mi, s] = utc_fields();
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}")
}
