//! A run folder's files handed from one process to the others: what a model trained whole on
//! one process needs so that every process can load it.

use super::World;
use crate::{Error, Result};
use std::path::Path;

impl World {
    /// Makes the files of `dir` on process `root` (its files, not its folders; no lock or
    /// temporary file) the files of `dir` on every process: `root` sends them, the others
    /// write them. Every process calls it, with its own `dir`.
    pub fn share_files(&self, root: usize, dir: &Path) -> Result<()> {
        if self.size == 1 {
            return Ok(());
        }
        let mut bytes = match self.rank == root {
            true => pack(dir)?,
            false => Vec::new(),
        };
        self.broadcast(root, &mut bytes)?;
        if self.rank != root {
            unpack(&bytes, dir)?;
        }
        Ok(())
    }

    /// Makes `bytes` on process `root` the bytes of every process.
    pub fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) -> Result<()> {
        #[cfg(feature = "mpi")]
        if let Some(m) = &self.mpi {
            return m.broadcast(root, bytes);
        }
        let _ = (root, bytes);
        Ok(())
    }
}

/// The files of `dir` as (name length, name, data length, data) records, lengths as
/// little-endian u64.
fn pack(dir: &Path) -> Result<Vec<u8>> {
    let read = |source| Error::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read)? {
        let entry = entry.map_err(read)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let shared = !name.starts_with('.') && !name.ends_with(".tmp");
        if shared && entry.path().is_file() {
            names.push(name);
        }
    }
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let path = dir.join(&name);
        let data = std::fs::read(&path).map_err(|source| Error::Read { path, source })?;
        for part in [name.as_bytes(), &data[..]] {
            out.extend((part.len() as u64).to_le_bytes());
            out.extend(part);
        }
    }
    Ok(out)
}

/// Writes the files of [`pack`]'s records into `dir`, each atomically.
fn unpack(mut bytes: &[u8], dir: &Path) -> Result<()> {
    let torn = || Error::Refused("the files sent by another process were cut short".into());
    let take = |bytes: &mut &[u8]| -> Result<Vec<u8>> {
        let (len, rest) = bytes.split_at_checked(8).ok_or_else(torn)?;
        let len = u64::from_le_bytes(len.try_into().map_err(|_| torn())?) as usize;
        let (part, rest) = rest.split_at_checked(len).ok_or_else(torn)?;
        *bytes = rest;
        Ok(part.to_vec())
    };
    crate::run_dir::create_dir_all(dir)?;
    while !bytes.is_empty() {
        let name = String::from_utf8(take(&mut bytes)?).map_err(|_| torn())?;
        let data = take(&mut bytes)?;
        let path = dir.join(&name);
        io::write_file(&path, &data).map_err(|e| Error::Write {
            path,
            source: Box::new(e),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_packs_and_unpacks_to_the_same_files() {
        let (from, to) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(from.path().join("config.json"), "{}").unwrap();
        std::fs::write(from.path().join("model.safetensors"), [0u8, 1, 2, 255]).unwrap();
        std::fs::write(from.path().join(".iron-learn.lock"), "42").unwrap();
        std::fs::create_dir(from.path().join("periodic")).unwrap();
        let bytes = pack(from.path()).unwrap();
        unpack(&bytes, to.path()).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(to.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["config.json", "model.safetensors"]);
        let model = std::fs::read(to.path().join("model.safetensors")).unwrap();
        assert_eq!(model, [0, 1, 2, 255]);
        let cut = unpack(
            &bytes[..bytes.len() - 1],
            tempfile::tempdir().unwrap().path(),
        );
        assert!(cut.unwrap_err().to_string().contains("cut short"));
    }
}
