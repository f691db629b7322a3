//! Writing output files: every failure is an error, a crash never leaves a torn file, and a
//! device, a pipe or the command's own input is never replaced.
//!
//! [`OutputFile`] is the one routine that writes a file this project produces (PNG, JSON,
//! CSV, plots, checkpoints, ONNX graphs), whole or streamed as it is produced;
//! [`write_file`] writes bytes already in memory through it. Regular files are replaced
//! atomically; devices and pipes (`/dev/full`, `/dev/stdout`, a FIFO) are written in place,
//! so that a full disk or a broken pipe is reported instead of a silently empty file, and a
//! device is never replaced by a regular file. [`refuse_own_input`] refuses an output that is
//! one of the command's inputs before anything is written.

mod same_file;
mod stream;

pub use same_file::refuse_own_input;
pub use stream::OutputFile;

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to `path` through an [`OutputFile`] (see there: atomic replacement of
/// files, devices and pipes in place, folders refused), reporting every failure (full disk,
/// missing folder, permission, read-only file system) as an error that names the file.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("metrics.json");
/// io::write_file(&path, b"{}\n")?;
/// assert_eq!(std::fs::read(&path)?, b"{}\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = OutputFile::create(path)?;
    out.write_all(bytes)
        .map_err(|e| Error::io("write", path, e))?;
    out.commit()
}

/// Replaces the file at `path` with `bytes` so that, whatever happens (crash, power loss,
/// kill), the file holds either its old content or the new one, whole: a temporary file
/// `.NAME.tmp-PID-N` in the same folder is synced, renamed over `path`, and the folder
/// synced. Unlike [`write_file`] it never writes in place: it is for files this project owns
/// (a run's checkpoint), not for paths a user names. Errors name `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = OutputFile::replacing(path, path)?;
    out.write_all(bytes)
        .map_err(|e| Error::io("write", path, e))?;
    out.commit()
}

/// Whether `name` is a temporary file left by [`write_atomic`]: `.NAME.tmp-PID-N`.
///
/// ```
/// use std::ffi::OsStr;
/// assert!(io::output::is_temporary(OsStr::new(".loss.png.tmp-4242-0")));
/// assert!(!io::output::is_temporary(OsStr::new("loss.png")));
/// assert!(!io::output::is_temporary(OsStr::new(".notes.tmp-later")));
/// ```
pub fn is_temporary(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some((_, suffix)) = rest.rsplit_once(".tmp-") else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    suffix
        .split_once('-')
        .is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// Removes the temporary files that killed writers left in `dir` (see [`is_temporary`]) and
/// returns how many there were. Call it only while no other process writes into `dir` (for
/// a run folder: while holding its lock). Sub-folders are left alone.
pub fn remove_stale_temporaries(dir: &Path) -> Result<usize> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("list", dir, e))?;
    let mut removed = 0;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && is_temporary(&entry.file_name()) {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            removed += 1;
        }
    }
    Ok(removed)
}
