//! Checkpoints: named f32 tensors plus JSON metadata in one standard `safetensors` file.
//!
//! The metadata JSON (architecture, step, schedule and RNG state, normalisation, ...) is stored
//! as a string under the key [`METADATA_KEY`] of the safetensors header's `__metadata__` map, so
//! the file opens with `safetensors.numpy.load_file` or `safetensors.torch.load_file`.
//!
//! [`Checkpoint::save`] never leaves a torn file: it writes a temporary file in the same folder,
//! syncs it, renames it over the old file and syncs the folder, so a crash at any moment leaves
//! either the old file or the new one, whole. [`Checkpoint::load`] says in one sentence what is
//! wrong with a bad file.

mod compare;
mod fingerprint;
mod format;
mod storage;

pub use crate::output::write_atomic;
pub use compare::{Difference, first_difference};
pub use fingerprint::{DATA_KEY, DataFingerprint};
pub use storage::{Storage, to_f16};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result, read_file};

/// Key of the `__metadata__` entry that holds the checkpoint's JSON metadata.
pub const METADATA_KEY: &str = "iron_learn";

/// Key of the metadata object under which the model architecture is stored, compared by
/// [`Checkpoint::check_architecture`].
pub const ARCHITECTURE_KEY: &str = "architecture";

/// A tensor of f32 values, row-major, with its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedTensor {
    /// Size of each dimension (empty for a scalar).
    pub shape: Vec<usize>,
    /// `shape.iter().product()` values, row-major.
    pub data: Vec<f32>,
}

impl NamedTensor {
    /// A tensor, checking that `data` has as many values as `shape` implies.
    pub fn new(shape: Vec<usize>, data: Vec<f32>) -> Result<Self> {
        let t = Self { shape, data };
        t.check("tensor")?;
        Ok(t)
    }

    /// A scalar (shape `[]`).
    pub fn scalar(value: f32) -> Self {
        Self {
            shape: Vec::new(),
            data: vec![value],
        }
    }

    /// Number of values the shape implies, `None` on overflow.
    pub fn numel(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
    }

    fn check(&self, name: &str) -> Result<()> {
        match self.numel() {
            Some(n) if n == self.data.len() => Ok(()),
            _ => Err(Error::invalid(format!(
                "tensor `{name}` of shape {:?} cannot hold {} values",
                self.shape,
                self.data.len()
            ))),
        }
    }
}

/// Named tensors and a JSON metadata value, saved and loaded as one safetensors file.
///
/// ```
/// use io::checkpoint::Checkpoint;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("model.safetensors");
/// let mut ck = Checkpoint::new(serde_json::json!({"step": 3, "architecture": {"layers": [2, 8, 1]}}));
/// ck.insert("layer0.weight", vec![8, 2], vec![0.5; 16])?;
/// ck.save(&path)?;
/// let back = Checkpoint::load(&path)?;
/// assert_eq!(back, ck);
/// back.check_tensors(&[("layer0.weight", &[8, 2])])?;
/// back.check_architecture(&serde_json::json!({"layers": [2, 8, 1]}))?;
/// assert!(back.check_architecture(&serde_json::json!({"layers": [2, 16, 1]})).is_err());
/// # Ok::<(), io::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Checkpoint {
    /// Tensors by name.
    pub tensors: BTreeMap<String, NamedTensor>,
    /// Free-form metadata; by convention an object with an `architecture` field.
    pub metadata: Value,
}

impl Checkpoint {
    /// An empty checkpoint with this metadata.
    pub fn new(metadata: Value) -> Self {
        Self {
            tensors: BTreeMap::new(),
            metadata,
        }
    }

    /// Adds (or replaces) a tensor, checking its size against its shape.
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        shape: Vec<usize>,
        data: Vec<f32>,
    ) -> Result<()> {
        let name = name.into();
        let t = NamedTensor { shape, data };
        t.check(&name)?;
        check_name(&name)?;
        self.tensors.insert(name, t);
        Ok(())
    }

    /// The tensor called `name`, or [`Error::MissingTensor`] listing those present.
    pub fn tensor(&self, name: &str) -> Result<&NamedTensor> {
        self.tensors.get(name).ok_or_else(|| self.missing(name))
    }

    /// Removes and returns the tensor called `name`, or [`Error::MissingTensor`].
    pub fn take(&mut self, name: &str) -> Result<NamedTensor> {
        match self.tensors.remove(name) {
            Some(t) => Ok(t),
            None => Err(self.missing(name)),
        }
    }

    fn missing(&self, name: &str) -> Error {
        Error::MissingTensor {
            name: name.to_string(),
            available: self.tensors.keys().cloned().collect(),
        }
    }

    /// Checks that every expected tensor is present with the expected shape: the first missing
    /// tensor gives [`Error::MissingTensor`], the first different shape [`Error::ShapeMismatch`]
    /// naming both shapes. Extra tensors in the checkpoint are allowed.
    pub fn check_tensors(&self, expected: &[(&str, &[usize])]) -> Result<()> {
        for &(name, shape) in expected {
            let t = self.tensor(name)?;
            if t.shape != shape {
                return Err(Error::ShapeMismatch {
                    name: name.to_string(),
                    expected: shape.to_vec(),
                    found: t.shape.clone(),
                });
            }
        }
        Ok(())
    }

    /// Compares `expected` with the metadata's `architecture` field, failing with
    /// [`Error::ArchitectureMismatch`] that names the first differing field (e.g.
    /// `architecture.layers[1].width`) and both values.
    pub fn check_architecture(&self, expected: &Value) -> Result<()> {
        let Some(stored) = self.metadata.get(ARCHITECTURE_KEY) else {
            return Err(Error::ArchitectureMismatch {
                field: ARCHITECTURE_KEY.to_string(),
                expected: show(Some(expected)),
                found: show(None),
            });
        };
        match first_difference(expected, stored) {
            None => Ok(()),
            Some(d) => {
                let field = if d.path.is_empty() {
                    ARCHITECTURE_KEY.to_string()
                } else if d.path.starts_with('[') {
                    format!("{ARCHITECTURE_KEY}{}", d.path)
                } else {
                    format!("{ARCHITECTURE_KEY}.{}", d.path)
                };
                Err(Error::ArchitectureMismatch {
                    field,
                    expected: show(d.expected.as_ref()),
                    found: show(d.found.as_ref()),
                })
            }
        }
    }

    /// Serialises to the bytes of a safetensors file.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.to_bytes_as(Storage::Float32)
    }

    /// Serialises to the bytes of a safetensors file storing every tensor as `storage`.
    pub fn to_bytes_as(&self, storage: Storage) -> Result<Vec<u8>> {
        let mut bytes = self.header(storage)?;
        format::write_tensors(self, storage, &mut bytes)
            .map_err(|e| Error::invalid(format!("cannot serialise the checkpoint: {e}")))?;
        Ok(bytes)
    }

    /// The safetensors header for `storage`, after checking every tensor's name and size,
    /// and that `storage` holds every value ([`Error::BeyondFloat16`] naming the tensor).
    fn header(&self, storage: Storage) -> Result<Vec<u8>> {
        for (name, t) in &self.tensors {
            check_name(name)?;
            t.check(name)?;
            if storage == Storage::Float16 {
                t.data.iter().try_for_each(|&v| to_f16(name, v).map(drop))?;
            }
        }
        format::header(self, storage)
    }

    /// The bytes a safetensors file storing every tensor as `storage` takes, header
    /// included.
    pub fn file_bytes(&self, storage: Storage) -> Result<u64> {
        let data: usize = self.tensors.values().map(|t| t.data.len()).sum();
        let header = format::header(self, storage)?.len();
        Ok((header + data * storage.bytes_per_value()) as u64)
    }

    /// Parses the bytes of a safetensors file; `source` names it in error messages.
    pub fn from_bytes(bytes: &[u8], source: impl AsRef<Path>) -> Result<Self> {
        format::from_bytes(bytes, source.as_ref())
    }

    /// Writes the checkpoint to `path` through an [`OutputFile`](crate::output::OutputFile),
    /// tensor by tensor (the file is never assembled in memory): a file is replaced atomically
    /// (after a crash at any moment it holds either the previous checkpoint or this one,
    /// whole); a device or pipe is written in place, never replaced.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        self.save_as(path, Storage::Float32)
    }

    /// [`save`](Self::save) storing every tensor as `storage`; a value `storage` cannot hold
    /// is refused before anything is written.
    pub fn save_as(&self, path: impl AsRef<Path>, storage: Storage) -> Result<()> {
        let path = path.as_ref();
        let header = self.header(storage)?;
        let mut out = crate::output::OutputFile::create(path)?;
        out.write_all(&header)
            .and_then(|()| format::write_tensors(self, storage, &mut out))
            .map_err(|e| Error::io("write", path, e))?;
        out.commit()
    }

    /// Reads and checks a checkpoint (tensors stored as `float32` or `float16`, read as
    /// `f32`). A missing file, a truncated file, a file that is not safetensors, a tensor of
    /// another element type, or damaged metadata each give a one-sentence error naming the
    /// file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = read_file(path)?;
        format::from_bytes(&bytes, path)
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name == "__metadata__" {
        return Err(Error::invalid(format!(
            "`{name}` cannot name a checkpoint tensor"
        )));
    }
    Ok(())
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "nothing".to_string(), Value::to_string)
}
