//! The folder a process other than rank 0 writes into: a private scratch folder, removed at
//! the run's end, holding a copy of the run folder's files when the run resumes, so that
//! rank 0 alone writes the run folder.

use crate::run_dir::create_dir_all;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// A fresh scratch folder for rank `rank` of this process; with `resume_from`, a copy of
/// that folder's files and subfolders (a run's checkpoints) in it.
pub fn scratch_folder(rank: usize, resume_from: Option<&Path>) -> Result<PathBuf> {
    remove_stale(&std::env::temp_dir());
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

/// The scratch folders in `parent` left by processes that are gone (killed before their
/// end), removed: on systems with `/proc`, those whose process id names no process. A
/// folder that cannot be removed is left.
fn remove_stale(parent: &Path) {
    if !Path::new("/proc").is_dir() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = scratch_pid(&name.to_string_lossy()) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The process id in a scratch folder's name (`iron-learn-rank1-4242-2026...`).
fn scratch_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("iron-learn-rank")?;
    let mut parts = rest.split('-');
    parts.next()?.parse::<usize>().ok()?;
    parts.next()?.parse().ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_folders_of_processes_that_are_gone_are_removed() {
        let parent = tempfile::tempdir().unwrap();
        let gone = parent
            .path()
            .join("iron-learn-rank1-4000000000-2026-11-29T000000Z");
        let alive = parent.path().join(format!(
            "iron-learn-rank1-{}-2026-11-29T000000Z",
            std::process::id()
        ));
        let other = parent.path().join("iron-learn-rankX-1-x");
        for dir in [&gone, &alive, &other] {
            std::fs::create_dir_all(dir.join("folds")).unwrap();
        }
        assert_eq!(scratch_pid("iron-learn-rank12-77-2026"), Some(77));
        assert_eq!(scratch_pid("iron-learn-run-77"), None);
        remove_stale(parent.path());
        assert!(!gone.exists());
        assert!(alive.exists() && other.exists());
    }
}
