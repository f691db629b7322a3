//! What a checkpoint was trained on: column names, shape and a hash of the values, so that a
//! run is never resumed on other data by mistake; and the check that its tensors are finite.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Checkpoint;
use crate::error::{Error, Result};

/// Key of the checkpoint metadata under which the [`DataFingerprint`] is stored.
pub const DATA_KEY: &str = "data";

/// A summary of a training set that tells two data sets apart: the column names (when there
/// are any), the shape, and a 64-bit FNV-1a hash of the shape and of every value's bits.
///
/// ```
/// use io::checkpoint::DataFingerprint;
/// let names = vec!["a".to_string(), "y".to_string()];
/// let a = DataFingerprint::new(names.clone(), vec![2, 1, 1], [&[1.0, 2.0][..], &[3.0, 4.0]]);
/// let b = DataFingerprint::new(names, vec![2, 1, 1], [&[1.0, 2.0][..], &[3.0, 5.0]]);
/// assert!(a.difference(&a).is_none());
/// assert!(b.difference(&a).unwrap().contains("values"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFingerprint {
    /// Column names (features then targets); empty when the data has none (images).
    pub names: Vec<String>,
    /// The shape, e.g. `[rows, features, targets]`.
    pub shape: Vec<usize>,
    /// `fnv1a64:` and 16 hex digits.
    pub hash: String,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl DataFingerprint {
    /// The fingerprint of `parts` (e.g. inputs, then targets) of this shape.
    pub fn new<'a>(
        names: Vec<String>,
        shape: Vec<usize>,
        parts: impl IntoIterator<Item = &'a [f32]>,
    ) -> Self {
        let parts = parts
            .into_iter()
            .map(|part| (part.len(), part.iter().copied()));
        Self::of_values(names, shape, parts)
    }

    /// The fingerprint of parts given as their lengths and values (each part's values made
    /// as they are hashed, from a compact copy for instance): the same as [`Self::new`] on
    /// the same values.
    pub fn of_values<I: Iterator<Item = f32>>(
        names: Vec<String>,
        shape: Vec<usize>,
        parts: impl IntoIterator<Item = (usize, I)>,
    ) -> Self {
        let mut h = FNV_OFFSET;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h ^= u64::from(b);
                h = h.wrapping_mul(FNV_PRIME);
            }
        };
        for &d in &shape {
            eat(&(d as u64).to_le_bytes());
        }
        for (len, values) in parts {
            eat(&(len as u64).to_le_bytes());
            for v in values {
                eat(&v.to_bits().to_le_bytes());
            }
        }
        DataFingerprint {
            names,
            shape,
            hash: format!("fnv1a64:{h:016x}"),
        }
    }

    /// How `self` (the data now) differs from `stored` (the data of a checkpoint), in words;
    /// `None` when they are the same.
    pub fn difference(&self, stored: &DataFingerprint) -> Option<String> {
        let dims = |s: &[usize]| s.iter().map(usize::to_string).collect::<Vec<_>>().join("x");
        if self.names != stored.names {
            return Some(format!(
                "the columns are {} now but were {}",
                show_names(&self.names),
                show_names(&stored.names)
            ));
        }
        if self.shape != stored.shape {
            return Some(format!(
                "the data is {} now but was {}",
                dims(&self.shape),
                dims(&stored.shape)
            ));
        }
        (self.hash != stored.hash).then(|| {
            format!(
                "the data has the same shape ({}) but other values",
                dims(&self.shape)
            )
        })
    }
}

fn show_names(names: &[String]) -> String {
    if names.is_empty() {
        return "unnamed".to_string();
    }
    let mut shown = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 8 {
        shown.push_str(&format!(", ... ({} in all)", names.len()));
    }
    shown
}

impl Checkpoint {
    /// The stored [`DataFingerprint`], `None` for checkpoints written without one.
    pub fn data_fingerprint(&self) -> Result<Option<DataFingerprint>> {
        match self.metadata.get(DATA_KEY) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value(v.clone()).map(Some).map_err(|e| {
                Error::invalid(format!(
                    "the checkpoint's data fingerprint is unreadable: {e}"
                ))
            }),
        }
    }

    /// The first tensor value that is NaN or infinite among the tensors whose name starts with
    /// `prefix`: its tensor name, index and value.
    pub fn first_non_finite(&self, prefix: &str) -> Option<(&str, usize, f32)> {
        self.tensors
            .iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .find_map(|(name, t)| {
                t.data
                    .iter()
                    .position(|v| !v.is_finite())
                    .map(|i| (name.as_str(), i, t.data[i]))
            })
    }
}
