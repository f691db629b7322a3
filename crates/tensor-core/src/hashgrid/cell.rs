//! The `f32` lookup of one point at one level, shared by the host implementation and the CPU
//! backend (the CUDA kernels follow it operation for operation).

use super::{HASH_PRIMES, HashGridLevel};

/// The constants of one level's lookup, computed once per call.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LevelConsts {
    /// The resolution as an `f32`: the scaled position is `x * scale`.
    pub scale: f32,
    /// The last cell index, `resolution - 1`.
    pub last_cell: u32,
    /// Directly indexed levels: the entry step along each axis, `(resolution + 1)^k`.
    pub strides: [u32; 3],
    /// Hashed levels: `T - 1` (the table size is a power of two).
    pub mask: u32,
    /// Whether the level is hashed.
    pub hashed: bool,
    /// The level's first entry in the table matrix.
    pub offset: usize,
}

impl LevelConsts {
    /// The constants of `level`.
    pub fn new(level: &HashGridLevel) -> Self {
        let side = level.resolution.wrapping_add(1);
        LevelConsts {
            scale: level.resolution as f32,
            last_cell: level.resolution - 1,
            strides: [1, side, side.wrapping_mul(side)],
            mask: level.table_size.wrapping_sub(1),
            hashed: level.hashed,
            offset: level.offset,
        }
    }

    /// The cell holding `x` (`D` coordinates, `D` = 1, 2 or 3; see the module docs of
    /// [`hashgrid`](crate::hashgrid) for clamping and NaN).
    #[inline(always)]
    pub fn cell<const D: usize>(&self, x: &[f32]) -> Cell {
        let mut lo = [0u32; 3];
        let mut w = [0f32; 3];
        for k in 0..D {
            let p = x[k].clamp(0.0, 1.0) * self.scale;
            // `as` saturates: a NaN position gives cell 0 (and a NaN weight).
            let i = (p as u32).min(self.last_cell);
            lo[k] = i;
            w[k] = p - i as f32;
        }
        let mut cell = Cell {
            entries: [0; 8],
            weights: [0.0; 8],
        };
        for c in 0..(1 << D) {
            let mut weight = 1.0f32;
            let mut entry = 0u32;
            for k in 0..D {
                let up = (c >> k) & 1 == 1;
                let ik = lo[k] + u32::from(up);
                let factor = if up { w[k] } else { 1.0 - w[k] };
                weight = if k == 0 { factor } else { weight * factor };
                entry = if self.hashed {
                    entry ^ ik.wrapping_mul(HASH_PRIMES[k])
                } else {
                    entry + ik * self.strides[k]
                };
            }
            cell.entries[c] = if self.hashed {
                entry & self.mask
            } else {
                entry
            };
            cell.weights[c] = weight;
        }
        cell
    }
}

/// The `2^d` corners of a point's cell: their entries within the level's table (corner `c`
/// takes the upper vertex along axis `k` when bit `k` of `c` is set) and their weights.
/// Only the first `2^d` of each array are used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Entries within the level (add [`LevelConsts::offset`] for the table row).
    pub entries: [u32; 8],
    /// d-linear interpolation weights, summing to 1.
    pub weights: [f32; 8],
}
