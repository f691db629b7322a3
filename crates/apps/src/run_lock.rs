//! An exclusive lock on a run folder, so that two runs never write into one `--out`.
//!
//! The lock is an advisory `flock` on the hidden file `.iron-learn.lock` inside the folder.
//! The kernel drops it when the process ends, however it ends (even SIGKILL), so a killed run
//! never leaves a folder locked; the file, which holds the owner's process id for messages,
//! is removed when the run ends normally.

use anyhow::{Result, bail};
use std::fs::File;
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
                .map_err(|e| anyhow::anyhow!("cannot lock {}: {e}", dir.display()))?;
            if !sys::try_lock(&file)? {
                let owner = std::fs::read_to_string(&path).unwrap_or_default();
                let owner = owner.trim();
                let by = if owner.is_empty() {
                    "another iron-learn run".to_string()
                } else {
                    format!("another iron-learn run (process {owner})")
                };
                bail!(
                    "{} is in use by {by}; wait for it to finish or choose another --out",
                    dir.display()
                );
            }
            if sys::same_file(&file, &path) {
                sys::write_pid(&file);
                return Ok(RunLock { path, _file: file });
            }
        }
        bail!(
            "cannot lock {}: its lock file keeps changing",
            dir.display()
        )
    }

    /// Removes the lock file, then releases the lock.
    pub fn release(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(unix)]
mod sys {
    use anyhow::Result;
    use std::fs::File;
    use std::io::{Seek, Write};
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::AsRawFd;
    use std::path::Path;

    /// `flock(LOCK_EX | LOCK_NB)`: true when locked, false when another process holds it.
    pub fn try_lock(file: &File) -> Result<bool> {
        // SAFETY: `flock` on a file descriptor owned by `file`, which outlives the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            Ok(false)
        } else {
            Err(anyhow::anyhow!("cannot lock the run folder: {err}"))
        }
    }

    /// Whether `path` still names the open `file`.
    pub fn same_file(file: &File, path: &Path) -> bool {
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    /// Records this process id in the lock file (for the message another run prints).
    pub fn write_pid(mut file: &File) {
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = writeln!(file, "{}", std::process::id());
    }
}

#[cfg(not(unix))]
mod sys {
    //! Without `flock` the folder is not locked; the other protections (fresh folders, the
    //! checkpoint check) still apply.
    use anyhow::Result;
    use std::fs::File;
    use std::path::Path;

    pub fn try_lock(_file: &File) -> Result<bool> {
        Ok(true)
    }

    pub fn same_file(_file: &File, _path: &Path) -> bool {
        true
    }

    pub fn write_pid(_file: &File) {}
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_folder_fails_until_the_first_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        let e = RunLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("in use") && e.contains(&std::process::id().to_string()),
            "{e}"
        );
        first.release();
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = RunLock::acquire(dir.path()).unwrap();
        drop(again);
        // Dropped without release: the file stays, the lock does not.
        assert!(dir.path().join(LOCK_FILE).exists());
        RunLock::acquire(dir.path()).unwrap().release();
    }
}
