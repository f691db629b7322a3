//! Writing output files: every failure is an error, and a crash never leaves a torn file.
//!
//! [`write_file`] is the one way this project writes a file it produces (PNG, JSON, CSV,
//! plots, checkpoints): encode the whole content in memory first, then hand the bytes over.
//! Regular files are replaced atomically with [`write_atomic`]; devices and pipes (`/dev/full`,
//! `/dev/stdout`) are written directly, so that a full disk or a broken pipe is reported
//! instead of a silently empty file.

use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

pub use crate::checkpoint::write_atomic;
use crate::error::{Error, Result};

/// Writes `bytes` to `path`, reporting every failure (full disk, missing folder, permission,
/// read-only file system) as an error that names the file.
///
/// - A new file, or an existing regular file, is replaced atomically ([`write_atomic`]: a
///   temporary file in the same folder, synced, renamed over `path`): after a crash the file
///   holds its old content or the new one, never a part.
/// - A symbolic link to a regular file replaces the file it points to, keeping the link.
/// - Anything else that exists (a character device such as `/dev/full` or `/dev/null`, a
///   named pipe) is opened and written in place, since it cannot be renamed over.
/// - A folder is an error.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("metrics.json");
/// io::write_file(&path, b"{}\n")?;
/// assert_eq!(std::fs::read(&path)?, b"{}\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => write_atomic(path, bytes),
        Err(e) => Err(Error::io("inspect", path, e)),
        Ok(meta) if meta.file_type().is_symlink() => match fs::metadata(path) {
            Ok(target) if target.is_file() => {
                let real = fs::canonicalize(path).map_err(|e| Error::io("resolve", path, e))?;
                write_atomic(&real, bytes)
            }
            Ok(target) if target.is_dir() => Err(is_a_folder(path)),
            Ok(_) => write_in_place(path, bytes),
            // A dangling link: create the file it names.
            Err(_) => write_in_place(path, bytes),
        },
        Ok(meta) if meta.is_file() => write_atomic(path, bytes),
        Ok(meta) if meta.is_dir() => Err(is_a_folder(path)),
        Ok(_) => write_in_place(path, bytes),
    }
}

fn is_a_folder(path: &Path) -> Error {
    Error::invalid(format!(
        "cannot write `{}`: it is a folder, not a file",
        path.display()
    ))
}

/// Opens and writes a device, pipe or link target directly (no rename is possible there).
fn write_in_place(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(|e| Error::io("open", path, e))?;
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|e| Error::io("write", path, e))
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
