//! The folder a process other than rank 0 writes into: a private scratch folder, removed at
//! the run's end, holding a copy of the run folder's files when the run resumes, so that
//! rank 0 alone writes the run folder.

use crate::run_dir::create_dir_all;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// A fresh scratch folder for rank `rank` of this process; with `resume_from`, a copy of
/// that folder's files and subfolders (a run's checkpoints) in it.
pub fn scratch_folder(rank: usize, resume_from: Option<&Path>) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "iron-learn-rank{rank}-{}-{}",
        std::process::id(),
        crate::record::utc_now().replace(':', "")
    ));
    create_dir_all(&dir)?;
    if let Some(from) = resume_from.filter(|p| p.is_dir()) {
        copy_tree(from, &dir)?;
    }
    Ok(dir)
}

/// Copies the files of `from` into `to`, folder by folder (the lock file of a run left out).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    let read = |source| Error::Read {
        path: from.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(from).map_err(read)? {
        let entry = entry.map_err(read)?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            create_dir_all(&dst)?;
            copy_tree(&src, &dst)?;
        } else if entry.file_name() != crate::lock::LOCK_FILE {
            std::fs::copy(&src, &dst).map_err(|source| Error::Read { path: src, source })?;
        }
    }
    Ok(())
}
