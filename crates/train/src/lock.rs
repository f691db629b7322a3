//! An exclusive lock on a run folder, so that two runs never write into one `--out`.
//!
//! The lock is an advisory exclusive lock ([`File::try_lock`]: `flock` on Unix) on the hidden
//! file `.iron-learn.lock` inside the folder.
//! The kernel drops it when the process ends, however it ends (even SIGKILL), so a killed run
//! never leaves a folder locked; the file, which holds the owner's process id for messages,
//! is removed when the run ends normally.

use crate::{Error, Result};
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// Name of the lock file inside a run folder.
pub const LOCK_FILE: &str = ".iron-learn.lock";

/// A held lock; dropping it releases the lock (the file stays, see [`RunLock::release`]).
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    // Held open: closing the file releases the lock.
    _file: File,
}

impl RunLock {
    /// Locks `dir` (an existing folder), or fails at once with one line naming the process
    /// that holds it.
    pub fn acquire(dir: &Path) -> Result<RunLock> {
        let path = dir.join(LOCK_FILE);
        // A run that ends removes its lock file while holding the lock; a process that opened
        // the old file just before then locks an unlinked file, sees that the path no longer
        // names it, and tries again with a fresh file.
        for _ in 0..16 {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| Error::Refused(format!("cannot lock {}: {e}", dir.display())))?;
            if !try_lock(&file)? {
                let owner = std::fs::read_to_string(&path).unwrap_or_default();
                let owner = owner.trim();
                let by = if owner.is_empty() {
                    "another iron-learn run".to_string()
                } else {
                    format!("another iron-learn run (process {owner})")
                };
                return Err(Error::FolderInUse {
                    dir: dir.to_path_buf(),
                    by,
                });
            }
            if same_file(&file, &path) {
                write_pid(&file);
                return Ok(RunLock { path, _file: file });
            }
        }
        Err(Error::Refused(format!(
            "cannot lock {}: its lock file keeps changing",
            dir.display()
        )))
    }

    /// Removes the lock file, then releases the lock.
    pub fn release(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// An exclusive lock without waiting (`flock(LOCK_EX | LOCK_NB)` on Unix): true when locked,
/// false when another process holds it.
fn try_lock(file: &File) -> Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(e)) => {
            Err(Error::Refused(format!("cannot lock the run folder: {e}")))
        }
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Without inode numbers a lock file removed under the lock cannot be told apart: it is
/// taken as the same.
#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> bool {
    true
}

/// Records this process id in the lock file (for the message another run prints).
fn write_pid(mut file: &File) {
    use std::io::{Seek, Write};
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = writeln!(file, "{}", std::process::id());
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_folder_fails_until_the_first_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        let e = RunLock::acquire(dir.path()).unwrap_err();
        assert!(
            matches!(&e, Error::FolderInUse { dir: d, .. } if d == dir.path()),
            "{e}"
        );
        let e = e.to_string();
        assert!(
            e.contains("in use") && e.contains(&std::process::id().to_string()),
            "{e}"
        );
        assert!(!e.contains("--"), "{e}");
        first.release();
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = RunLock::acquire(dir.path()).unwrap();
        drop(again);
        // Dropped without release: the file stays, the lock does not.
        assert!(dir.path().join(LOCK_FILE).exists());
        RunLock::acquire(dir.path()).unwrap().release();
    }
}
