//! The multiresolution hash-grid encoding (Müller et al., "Instant Neural Graphics
//! Primitives", 2022): its parameters, their validation, and the per-level layout every
//! backend follows.
//!
//! # Definition
//!
//! A point `x` in `[0, 1]^d` (`d` = 1, 2 or 3) is encoded at `L` levels. Level `l` is a grid
//! of `N_l = floor(N_min * b^l)` cells per axis, whose `(N_l + 1)^d` vertices each own a
//! vector of `F` trainable features. The level's table holds `min(T, (N_l + 1)^d)` vectors:
//! when the whole grid fits, vertex `(i_0, .., i_{d-1})` has entry
//! `i_0 + i_1 (N_l + 1) + i_2 (N_l + 1)^2` (direct indexing); otherwise its entry is the
//! spatial hash `(i_0 * 1 ^ i_1 * 2654435761 ^ i_2 * 805459861) mod T`, in wrapping 32-bit
//! arithmetic. The level's `F` outputs are the d-linear interpolation of the features of
//! the `2^d` vertices of the cell holding `x`.
//!
//! # Conventions
//!
//! - **Coordinates** are in `[0, 1]^d`. Each coordinate is clamped to `[0, 1]` first, so a
//!   point outside the unit cube is encoded as the nearest point on its surface, and its
//!   gradient flows to that point's vertices. A NaN coordinate gives NaN features (and NaN
//!   gradients in the backward pass), as PyTorch would.
//! - **Cells.** The scaled position is `p = x * N_l` (one `f32` product), the cell
//!   `i = min(floor(p), N_l - 1)` and the weight `w = p - i`, so `x = 1` lies in the last
//!   cell with weight 1, and a point on a grid line takes the vertex value exactly.
//! - **Tables** are one buffer, level-major and feature-interleaved: entry `e` of level `l`
//!   is the row `offset_l + e` of a `table_entries x F` matrix ([`HashGridLevel::offset`]).
//! - **Features** form a matrix in one of two [`FeatureLayout`]s: `n x (L * F)` with point
//!   `p`, level `l`, feature `f` at row `p`, column `l * F + f` (point-major), or its
//!   transpose, `(L * F) x n` (feature-major). Feature-major keeps each level's outputs
//!   contiguous, which makes it the fast layout on every backend; a following matrix
//!   product reads it with `trans_a`.
//! - **Backward** scatters `grad_features` (in the same layout as the features) into
//!   `grad_tables` (same layout as the tables),
//!   adding to it (`accumulate = true`) or overwriting it (`accumulate = false`). There is no
//!   gradient with respect to the points.
//!
//! ```
//! use tensor_core::{HashGridConfig, HashGridScale};
//! let spec = HashGridConfig {
//!     scale: HashGridScale::Finest(128),
//!     levels: 4,
//!     ..HashGridConfig::new(2)
//! }
//! .validate()?;
//! let res: Vec<u32> = spec.levels().iter().map(|l| l.resolution).collect();
//! assert_eq!(res, [16, 32, 64, 128]);
//! assert_eq!(spec.output_dim(), 8);
//! assert!(HashGridConfig { levels: 0, ..HashGridConfig::new(2) }.validate().is_err());
//! # Ok::<(), tensor_core::Error>(())
//! ```

mod cell;
mod host;

pub use cell::{Cell, LevelConsts};
pub use host::{backward as host_backward, forward as host_forward};

use crate::{Error, Result, check};

/// The most levels an encoding may have.
pub const MAX_LEVELS: usize = 32;
/// The most features per level.
pub const MAX_FEATURES: usize = 8;
/// The largest `log2` of the table size `T` of one level.
pub const MAX_LOG2_TABLE_SIZE: u32 = 24;
/// The largest resolution (cells per axis) of any level.
pub const MAX_RESOLUTION: u32 = 1 << 24;
/// The factors of the spatial hash, one per axis.
pub const HASH_PRIMES: [u32; 3] = [1, 2_654_435_761, 805_459_861];

/// How the resolution grows from the coarsest level to the finest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HashGridScale {
    /// The factor `b` between consecutive levels (finite, at least 1).
    Growth(f64),
    /// The resolution `N_max` of the finest level; `b = (N_max / N_min)^(1 / (L - 1))`.
    Finest(u32),
}

/// The parameters of a hash-grid encoding, as a user gives them; [`validate`](Self::validate)
/// checks them and computes the levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HashGridConfig {
    /// Input dimensions `d`: 1, 2 or 3.
    pub dims: usize,
    /// Levels `L`: 1 to [`MAX_LEVELS`].
    pub levels: usize,
    /// Features per level `F`: 1 to [`MAX_FEATURES`].
    pub features: usize,
    /// `log2` of the most entries `T` one level's table may have: 1 to [`MAX_LOG2_TABLE_SIZE`].
    pub log2_table_size: u32,
    /// Resolution `N_min` of the coarsest level: 1 to [`MAX_RESOLUTION`].
    pub base_resolution: u32,
    /// How the resolution grows with the level.
    pub scale: HashGridScale,
}

impl HashGridConfig {
    /// The usual settings for `dims`-dimensional inputs: 16 levels of 2 features, tables of
    /// 2^19 entries, resolutions from 16 to 2048.
    pub fn new(dims: usize) -> Self {
        HashGridConfig {
            dims,
            levels: 16,
            features: 2,
            log2_table_size: 19,
            base_resolution: 16,
            scale: HashGridScale::Finest(2048),
        }
    }

    /// Checks every parameter (the first invalid one is reported, in one line) and computes
    /// the levels.
    pub fn validate(&self) -> Result<HashGridSpec> {
        let bad = |reason: String| Error::InvalidArgument {
            op: "hash grid",
            reason,
        };
        if !(1..=3).contains(&self.dims) {
            return Err(bad(format!(
                "input dimensions must be 1, 2 or 3, got {}",
                self.dims
            )));
        }
        if !(1..=MAX_LEVELS).contains(&self.levels) {
            return Err(bad(format!(
                "levels must be between 1 and {MAX_LEVELS}, got {}",
                self.levels
            )));
        }
        if !(1..=MAX_FEATURES).contains(&self.features) {
            return Err(bad(format!(
                "features per level must be between 1 and {MAX_FEATURES}, got {}",
                self.features
            )));
        }
        if !(1..=MAX_LOG2_TABLE_SIZE).contains(&self.log2_table_size) {
            return Err(bad(format!(
                "log2 of the table size must be between 1 and {MAX_LOG2_TABLE_SIZE} (at most \
                 2^{MAX_LOG2_TABLE_SIZE} entries per level), got {}",
                self.log2_table_size
            )));
        }
        let base = self.base_resolution;
        if !(1..=MAX_RESOLUTION).contains(&base) {
            return Err(bad(format!(
                "base resolution must be between 1 and {MAX_RESOLUTION}, got {base}"
            )));
        }
        let top = (self.levels - 1) as f64;
        let growth = match self.scale {
            HashGridScale::Growth(b) => {
                if !(b.is_finite() && b >= 1.0) {
                    return Err(bad(format!(
                        "the growth factor between levels must be a finite number >= 1, got {b}"
                    )));
                }
                let finest = f64::from(base) * b.powf(top);
                if finest >= f64::from(MAX_RESOLUTION) + 1.0 {
                    return Err(bad(format!(
                        "base resolution {base} grown by {b} over {} levels reaches {finest:.0}, \
                         above the largest resolution {MAX_RESOLUTION}",
                        self.levels
                    )));
                }
                b
            }
            HashGridScale::Finest(finest) => {
                if finest < base {
                    return Err(bad(format!(
                        "base resolution {base} is above the finest resolution {finest}"
                    )));
                }
                if finest > MAX_RESOLUTION {
                    return Err(bad(format!(
                        "finest resolution must be at most {MAX_RESOLUTION}, got {finest}"
                    )));
                }
                if self.levels == 1 && finest != base {
                    return Err(bad(format!(
                        "a single level has only the base resolution {base}, but the finest \
                         resolution is {finest}; use more levels or make them equal"
                    )));
                }
                if self.levels == 1 {
                    1.0
                } else {
                    (f64::from(finest) / f64::from(base)).powf(1.0 / top)
                }
            }
        };
        let cap = match self.scale {
            HashGridScale::Finest(finest) => finest,
            HashGridScale::Growth(_) => MAX_RESOLUTION,
        };
        let table_cap = 1u64 << self.log2_table_size;
        let mut levels = Vec::with_capacity(self.levels);
        let mut offset = 0usize;
        for l in 0..self.levels {
            // floor(N_min * b^l); the small tolerance makes the finest level exactly N_max
            // when the growth was derived from it.
            let exact = f64::from(base) * growth.powf(l as f64);
            let resolution = ((exact + 1e-6).floor() as u32).clamp(base, cap);
            let vertices = u64::from(resolution + 1)
                .checked_pow(self.dims as u32)
                .unwrap_or(u64::MAX);
            let table_size = vertices.min(table_cap) as u32;
            levels.push(HashGridLevel {
                resolution,
                table_size,
                offset,
                hashed: vertices > table_cap,
            });
            offset = offset
                .checked_add(table_size as usize)
                .ok_or_else(|| bad("the tables do not fit in memory".into()))?;
        }
        offset
            .checked_mul(self.features)
            .ok_or_else(|| bad("the tables do not fit in memory".into()))?;
        Ok(HashGridSpec {
            config: *self,
            growth,
            levels,
            table_entries: offset,
        })
    }
}

/// How the `L * F` features of `n` points are laid out in a row-major matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeatureLayout {
    /// `n x (L * F)`: one row per point, feature `f` of level `l` in column `l * F + f`.
    PointMajor,
    /// `(L * F) x n`: the transpose, one row per feature, each level's `F` rows contiguous.
    FeatureMajor,
}

impl FeatureLayout {
    /// The matrix shape of `n` points with `width = L * F` features each.
    pub fn shape(self, n: usize, width: usize) -> [usize; 2] {
        match self {
            FeatureLayout::PointMajor => [n, width],
            FeatureLayout::FeatureMajor => [width, n],
        }
    }

    /// The element steps `(per point, per feature column)` for `n` points of `width`
    /// features: feature `j` of point `p` is at `p * point + j * feature`.
    pub fn strides(self, n: usize, width: usize) -> (usize, usize) {
        match self {
            FeatureLayout::PointMajor => (width, 1),
            FeatureLayout::FeatureMajor => (1, n),
        }
    }
}

/// The layout of one level (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashGridLevel {
    /// Cells per axis, `floor(N_min * b^l)`.
    pub resolution: u32,
    /// Entries of this level's table, `min(T, (resolution + 1)^d)`.
    pub table_size: u32,
    /// The first entry (row of the `table_entries x F` table matrix) of this level.
    pub offset: usize,
    /// Whether vertices are hashed (the grid has more vertices than `T`) or indexed directly.
    pub hashed: bool,
}

/// A validated hash-grid encoding: its parameters and the layout of its levels.
#[derive(Debug, Clone, PartialEq)]
pub struct HashGridSpec {
    config: HashGridConfig,
    growth: f64,
    levels: Vec<HashGridLevel>,
    table_entries: usize,
}

impl HashGridSpec {
    /// The parameters this encoding was built from.
    pub fn config(&self) -> &HashGridConfig {
        &self.config
    }

    /// Input dimensions `d`.
    pub fn dims(&self) -> usize {
        self.config.dims
    }

    /// Features per level `F`.
    pub fn features(&self) -> usize {
        self.config.features
    }

    /// The growth factor `b` between levels (1 for a single level).
    pub fn growth(&self) -> f64 {
        self.growth
    }

    /// Every level, coarsest first.
    pub fn levels(&self) -> &[HashGridLevel] {
        &self.levels
    }

    /// Features per point, `L * F`: the columns of the encoded matrix.
    pub fn output_dim(&self) -> usize {
        self.levels.len() * self.config.features
    }

    /// Entries of all levels' tables together (rows of the table matrix).
    pub fn table_entries(&self) -> usize {
        self.table_entries
    }

    /// Trainable parameters, `table_entries * F`: the length of the table buffer.
    pub fn param_count(&self) -> usize {
        self.table_entries * self.config.features
    }

    /// Checks the buffers of [`HashGridForwardOp::hashgrid_forward`](crate::HashGridForwardOp::hashgrid_forward)
    /// on `n` points, as the backend contract asks: `points` holds `n * d` values, `tables`
    /// [`param_count`](Self::param_count), `out` `n * L * F`; otherwise
    /// [`Error::BufferLength`] (or [`Error::InvalidArgument`] when `n` overflows).
    pub fn check_forward(&self, n: usize, points: usize, tables: usize, out: usize) -> Result<()> {
        let op = "hashgrid_forward";
        check::buffer_len(op, "points", points, check::elements(op, n, self.dims())?)?;
        check::buffer_len(op, "tables", tables, self.param_count())?;
        check::buffer_len(op, "out", out, check::elements(op, n, self.output_dim())?)
    }

    /// Checks the buffers of [`HashGridBackwardOp::hashgrid_backward`](crate::HashGridBackwardOp::hashgrid_backward)
    /// on `n` points, as [`check_forward`](Self::check_forward) does.
    pub fn check_backward(
        &self,
        n: usize,
        points: usize,
        grad_features: usize,
        grad_tables: usize,
    ) -> Result<()> {
        let op = "hashgrid_backward";
        check::buffer_len(op, "points", points, check::elements(op, n, self.dims())?)?;
        let features = check::elements(op, n, self.output_dim())?;
        check::buffer_len(op, "grad_features", grad_features, features)?;
        check::buffer_len(op, "grad_tables", grad_tables, self.param_count())
    }
}
