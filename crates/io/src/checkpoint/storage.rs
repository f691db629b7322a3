//! How a safetensors file stores its values: `float32` (every checkpoint), or `float16` (a
//! compact model file: half the bytes, each value rounded to 11 significant bits). Values
//! are always `f32` in memory; a `float16` file is widened exactly when it is read, so a
//! model loaded from it computes with the stored (rounded) values.

use half::f16;
use safetensors::Dtype;

use crate::error::{Error, Result};

/// The element type a file stores its tensors in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Storage {
    /// `float32`: exactly the values in memory.
    #[default]
    Float32,
    /// `float16`: half the bytes, values rounded to nearest even; a value beyond
    /// `float16`'s range (±65504) is refused rather than stored as an infinity.
    Float16,
}

impl Storage {
    /// Bytes one value takes in the file.
    pub fn bytes_per_value(self) -> usize {
        match self {
            Storage::Float32 => 4,
            Storage::Float16 => 2,
        }
    }

    /// The safetensors element type.
    pub(super) fn dtype(self) -> Dtype {
        match self {
            Storage::Float32 => Dtype::F32,
            Storage::Float16 => Dtype::F16,
        }
    }

    /// The storage of a safetensors element type this crate reads, if any.
    pub(super) fn of_dtype(dtype: Dtype) -> Option<Self> {
        match dtype {
            Dtype::F32 => Some(Storage::Float32),
            Dtype::F16 => Some(Storage::Float16),
            _ => None,
        }
    }

    /// `data` (the tensor `name`'s values) as this storage's little-endian bytes.
    pub fn encode(self, name: &str, data: &[f32]) -> Result<Vec<u8>> {
        match self {
            Storage::Float32 => Ok(data.iter().flat_map(|v| v.to_le_bytes()).collect()),
            Storage::Float16 => {
                let mut out = Vec::with_capacity(data.len() * 2);
                for &v in data {
                    out.extend_from_slice(&to_f16(name, v)?.to_le_bytes());
                }
                Ok(out)
            }
        }
    }

    /// The values of this storage's little-endian `bytes` (a whole number of values).
    pub(super) fn decode(self, bytes: &[u8]) -> Vec<f32> {
        match self {
            Storage::Float32 => bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            Storage::Float16 => bytes
                .chunks_exact(2)
                .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
        }
    }

    /// The values a file of this storage gives back for `data` (the tensor `name`'s).
    pub fn round(self, name: &str, data: &[f32]) -> Result<Vec<f32>> {
        match self {
            Storage::Float32 => Ok(data.to_vec()),
            Storage::Float16 => data
                .iter()
                .map(|&v| to_f16(name, v).map(f16::to_f32))
                .collect(),
        }
    }
}

/// `v` (a value of the tensor `name`) rounded to `float16`, refused beyond its range.
pub fn to_f16(name: &str, v: f32) -> Result<f16> {
    let h = f16::from_f32(v);
    if v.is_finite() && !h.is_finite() {
        return Err(Error::BeyondFloat16 {
            tensor: name.to_string(),
            value: v,
        });
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float16_rounds_to_eleven_bits_and_refuses_what_it_cannot_hold() {
        let s = Storage::Float16;
        let v = [0.1f32, -3.0, 1.0 + 1.0 / 4096.0, 65504.0, 1e-8];
        let back = s.decode(&s.encode("t", &v).unwrap());
        assert_eq!(back, s.round("t", &v).unwrap());
        for (a, b) in v.iter().zip(&back) {
            assert!((a - b).abs() <= a.abs() / 2048.0 + 6e-8, "{a} {b}");
        }
        assert_eq!(back[1], -3.0);
        assert_eq!(back[3], 65504.0);
        let e = s.encode("w", &[1e5]).unwrap_err();
        assert!(matches!(e, Error::BeyondFloat16 { ref tensor, .. } if tensor == "w"));
        let f = Storage::Float32;
        assert_eq!(f.decode(&f.encode("t", &v).unwrap()), v);
    }
}
