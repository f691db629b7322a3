//! Crash-safe file replacement.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces the file at `path` with `bytes` so that, whatever happens (crash, power loss, kill),
/// the file holds either its old content or the new one, whole.
///
/// It writes a temporary file `.NAME.tmp-PID-N` in the same folder, `fsync`s it, renames it
/// over `path` (atomic on POSIX file systems), then `fsync`s the folder so the rename itself is
/// durable. On error the temporary file is removed; a process killed mid-write may leave one
/// behind, which is harmless; [`remove_stale_temporaries`](crate::output::remove_stale_temporaries)
/// clears them. Errors name `path`, not the temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| Error::invalid(format!("`{}` does not name a file", path.display())))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}-{n}", std::process::id()));
    let tmp = dir.join(tmp_name);

    let result = write_and_rename(&tmp, path, &dir, bytes);
    if result.is_err() {
        // Best effort: the temporary file may not exist, or may already be renamed.
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn write_and_rename(tmp: &Path, path: &Path, dir: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(|e| Error::io("write", path, e))?;
    // Errors name the file asked for; the temporary file is an implementation detail.
    file.write_all(bytes)
        .map_err(|e| Error::io("write", path, e))?;
    file.sync_all().map_err(|e| Error::io("write", path, e))?;
    drop(file);
    fs::rename(tmp, path).map_err(|e| Error::io("rename the temporary file onto", path, e))?;
    sync_dir(dir)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io("sync the folder", dir, e))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<()> {
    // Folders cannot be opened for syncing on this platform; the rename is still atomic.
    let _ = File::open;
    Ok(())
}
