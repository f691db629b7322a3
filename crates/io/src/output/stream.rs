//! [`OutputFile`]: the one routine that writes an output file, whole or as it is produced.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// How an [`OutputFile`] reaches its destination.
enum Destination {
    /// A temporary file `dir/.NAME.tmp-PID-N`, renamed over `target` by
    /// [`OutputFile::commit`].
    Replace {
        tmp: PathBuf,
        target: PathBuf,
        dir: PathBuf,
    },
    /// A device or a pipe, written directly: it cannot (and must not) be renamed over.
    InPlace,
}

/// An output file being written: bytes go through [`Write`], and [`OutputFile::commit`]
/// makes them the file's content.
///
/// - A new path, or an existing regular file, is written to a temporary file in the same
///   folder, synced, and renamed over the path by `commit`, so that a crash, a kill or an
///   error leaves the old content or the new one, whole, never a part; an `OutputFile`
///   dropped without `commit` removes its temporary file and changes nothing.
/// - A symbolic link to a regular file replaces the file it points to, keeping the link.
/// - Anything else that exists (a device such as `/dev/null` or `/dev/full`, a named pipe, a
///   socket) is opened and written in place: it is never replaced by a regular file.
/// - A folder is an error.
///
/// Every failure (full disk, missing folder, permission) is an error naming the path asked
/// for, not the temporary file.
///
/// ```
/// use std::io::Write;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("rows.csv");
/// let mut out = io::output::OutputFile::create(&path)?;
/// out.write_all(b"x,y\n")?;
/// out.write_all(b"1,2\n")?;
/// assert!(!path.exists()); // nothing is visible before the commit
/// out.commit()?;
/// assert_eq!(std::fs::read(&path)?, b"x,y\n1,2\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OutputFile {
    path: PathBuf,
    destination: Destination,
    writer: Option<BufWriter<File>>,
}

impl OutputFile {
    /// Opens `path` for writing, as the type's documentation describes.
    pub fn create(path: &Path) -> Result<Self> {
        match fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::replacing(path, path),
            Err(e) => Err(Error::io("inspect", path, e)),
            Ok(meta) if meta.file_type().is_symlink() => match fs::metadata(path) {
                Ok(target) if target.is_file() => {
                    let real = fs::canonicalize(path).map_err(|e| Error::io("resolve", path, e))?;
                    Self::replacing(path, &real)
                }
                Ok(target) if target.is_dir() => Err(is_a_folder(path)),
                // A device or pipe behind the link, or a dangling link (create what it names).
                _ => Self::in_place(path),
            },
            Ok(meta) if meta.is_file() => Self::replacing(path, path),
            Ok(meta) if meta.is_dir() => Err(is_a_folder(path)),
            Ok(_) => Self::in_place(path),
        }
    }

    /// Opens a temporary file beside `target`, to be renamed over it; errors name `shown`.
    pub(crate) fn replacing(shown: &Path, target: &Path) -> Result<Self> {
        let name = target
            .file_name()
            .ok_or_else(|| Error::invalid(format!("`{}` does not name a file", shown.display())))?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(Error::NoFolder {
                dir,
                file: shown.to_path_buf(),
            });
        }
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp-{}-{n}", std::process::id()));
        let tmp = dir.join(tmp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io("write", shown, e))?;
        Ok(OutputFile {
            path: shown.to_path_buf(),
            destination: Destination::Replace {
                tmp,
                target: target.to_path_buf(),
                dir,
            },
            writer: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    fn in_place(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| Error::io("open", path, e))?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            destination: Destination::InPlace,
            writer: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// The path asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes and syncs what was written and, for a file, renames it into place (then syncs
    /// the folder, so that the rename itself is durable).
    pub fn commit(mut self) -> Result<()> {
        let path = self.path.clone();
        let writer = self
            .writer
            .take()
            .expect("an uncommitted output has its writer");
        let file = writer
            .into_inner()
            .map_err(|e| Error::io("write", &path, e.into_error()))?;
        let destination = std::mem::replace(&mut self.destination, Destination::InPlace);
        match destination {
            Destination::InPlace => Ok(()),
            Destination::Replace { tmp, target, dir } => {
                let renamed = file
                    .sync_all()
                    .map_err(|e| Error::io("write", &path, e))
                    .and_then(|()| {
                        drop(file);
                        fs::rename(&tmp, &target)
                            .map_err(|e| Error::io("rename the temporary file onto", &path, e))
                    });
                if renamed.is_err() {
                    let _ = fs::remove_file(&tmp);
                }
                renamed?;
                sync_dir(&dir)
            }
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer
            .as_mut()
            .expect("an uncommitted output has its writer")
            .write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer
            .as_mut()
            .expect("an uncommitted output has its writer")
            .flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Not committed (an error, or a panic): the temporary file goes, the target stays.
        if let Destination::Replace { tmp, .. } = &self.destination {
            self.writer = None;
            let _ = fs::remove_file(tmp);
        }
    }
}

fn is_a_folder(path: &Path) -> Error {
    Error::invalid(format!(
        "cannot write `{}`: it is a folder, not a file",
        path.display()
    ))
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
    Ok(())
}
