//! The hash-grid encoding 8 points at a time, written once over [`GridLanes`] and compiled
//! for each vector path by [`crate::simd::multiversion!`] (AVX2, also run on AVX-512 CPUs,
//! and NEON): the cells of a block of points (corner entries and weights), then with an even
//! number of features per level the gathers and the interpolation (forward), and with two
//! the corner updates (backward).
//!
//! Each lane performs the operations of [`LevelConsts::cell`] and of the scalar
//! interpolation in the same order, with the same roundings (no fused multiply-adds), so the
//! results are bit-identical to the scalar path's, which handles the last `n % 8` points.

use super::lanes::{GridLanes, LANES};
use super::{add_corner, add_point, point_grad, prefetch};
use crate::simd::SimdPath;
use tensor_core::hashgrid::{HASH_PRIMES, LevelConsts};

/// The cells of a block of points, corner by corner: `entries[c][p]` and `weights[c][p]`
/// are corner `c`'s entry within the level and weight for point `p` of the block.
#[derive(Clone, Copy)]
struct Block {
    entries: [[u32; LANES]; 8],
    weights: [[f32; LANES]; 8],
}

impl Block {
    /// An empty block.
    fn new() -> Self {
        Block {
            entries: [[0; LANES]; 8],
            weights: [[0.0; LANES]; 8],
        }
    }
}

/// Where the backward pass reads a point's gradient: feature `f` of point `p` of the level
/// is at `grad[base + p * point_step + f * feature_step]`.
#[derive(Clone, Copy)]
pub(super) struct GradAt<'a> {
    /// The gradient of the features, all levels.
    pub grad: &'a [f32],
    /// Where feature 0 of point 0 of this level is.
    pub base: usize,
    /// The step from one point to the next.
    pub point_step: usize,
    /// The step from one feature to the next.
    pub feature_step: usize,
}

/// The last entry of a level in `D` dimensions: every corner entry is at most this.
fn last_entry<const D: usize>(c: &LevelConsts) -> u32 {
    if c.hashed {
        c.mask
    } else {
        (c.last_cell + 2).wrapping_pow(D as u32).wrapping_sub(1)
    }
}

/// Encodes the points of `points` (all but the last `n % 8`) at level `c` with an even
/// number `F` of features on `path`, feature `f` of point `p` to `out[f * feature_step + p]`;
/// returns how many points it encoded (0 on the scalar path, or a path this CPU lacks).
///
/// # Panics
/// When `tables` does not hold the level or `out` the `F` rows.
pub(super) fn encode_pairs_on<const D: usize, const F: usize>(
    path: SimdPath,
    c: &LevelConsts,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
    feature_step: usize,
) -> usize {
    if !path.supported() || !F.is_multiple_of(2) {
        return 0;
    }
    // SAFETY: the CPU has the path's instructions (checked above).
    unsafe { encode_pairs_unchecked::<D, F>(path, c, points, tables, out, feature_step) }
}

crate::simd::multiversion! {
    /// [`encode_pairs_on`] on a path the CPU has.
    unsafe fn encode_pairs_unchecked[const D, const F](
        c: &LevelConsts,
        points: &[f32],
        tables: &[f32],
        out: &mut [f32],
        feature_step: usize,
    ) -> usize;
    avx512 uses avx2, V => encode_pairs::<V, D, F>(c, points, tables, out, feature_step);
    otherwise => 0;
}

/// Adds the contributions of the points of `points` (all but the last `n % 8`, in point
/// order) to `part`, level `c`'s table gradient, on `path`; returns how many points it
/// handled (0 on the scalar path, or a path this CPU lacks).
pub(super) fn scatter_blocks_on<const D: usize, const F: usize>(
    path: SimdPath,
    c: &LevelConsts,
    points: &[f32],
    grad: GradAt<'_>,
    part: &mut [f32],
) -> usize {
    if !path.supported() {
        return 0;
    }
    // SAFETY: the CPU has the path's instructions (checked above).
    unsafe { scatter_blocks_unchecked::<D, F>(path, c, points, grad, part) }
}

crate::simd::multiversion! {
    /// [`scatter_blocks_on`] on a path the CPU has.
    unsafe fn scatter_blocks_unchecked[const D, const F](
        c: &LevelConsts,
        points: &[f32],
        grad: GradAt<'_>,
        part: &mut [f32],
    ) -> usize;
    avx512 uses avx2, V => scatter_blocks::<V, D, F>(c, points, grad, part);
    otherwise => 0;
}

/// Fills `out` with the cells of the 8 points at `x` at level `c`.
///
/// # Safety
/// The CPU must run `G`; `x` must point to `8 D` readable values.
#[inline(always)]
unsafe fn cells<G: GridLanes, const D: usize>(c: &LevelConsts, x: *const f32, out: &mut Block) {
    // SAFETY: the CPU runs `G` (the caller's contract); `x` holds the block's coordinates
    // and each row of `out` 8 values.
    unsafe {
        let (zero, one) = (G::splat(0.0), G::splat(1.0));
        let (scale, last) = (G::splat(c.scale), G::splat_u(c.last_cell));
        let xs = G::coords::<D>(x);
        let mut lo = [G::splat_u(0); 3];
        let mut w = [zero; 3];
        for k in 0..D {
            let p = G::mul(G::clamp01(xs[k]), scale);
            lo[k] = G::cell_index(p, last);
            w[k] = G::sub(p, G::to_f32(lo[k]));
        }
        // Entries are in range by construction; the bound keeps a lookup in the level
        // whatever happens.
        let bound = G::splat_u(last_entry::<D>(c));
        for corner in 0..1 << D {
            let mut weight = one;
            let mut entry = G::splat_u(0);
            for k in 0..D {
                let up = (corner >> k) & 1 == 1;
                let ik = if up {
                    G::add_u(lo[k], G::splat_u(1))
                } else {
                    lo[k]
                };
                let factor = if up { w[k] } else { G::sub(one, w[k]) };
                weight = if k == 0 {
                    factor
                } else {
                    G::mul(weight, factor)
                };
                entry = if c.hashed {
                    G::xor_u(entry, G::mul_u(ik, G::splat_u(HASH_PRIMES[k])))
                } else {
                    G::add_u(entry, G::mul_u(ik, G::splat_u(c.strides[k])))
                };
            }
            if c.hashed {
                entry = G::and_u(entry, G::splat_u(c.mask));
            }
            G::store_u(G::min_u(entry, bound), &mut out.entries[corner]);
            G::store(weight, out.weights[corner].as_mut_ptr());
        }
    }
}

/// The `F` features (an even number, at most 8) of level `c` of 8 points whose cells are
/// `block`, feature `f` written to `out[f * feature_step + p]`: the features are gathered
/// two at a time.
///
/// # Safety
/// The CPU must run `G`; `tables` must hold the level's rows up to its last entry
/// ([`last_entry`]) from `F c.offset` on, and `out` must have `(F - 1) feature_step + 8`
/// writable values.
#[inline(always)]
unsafe fn interpolate_pairs<G: GridLanes, const D: usize, const F: usize>(
    c: &LevelConsts,
    block: &Block,
    tables: *const f32,
    out: *mut f32,
    feature_step: usize,
) {
    // SAFETY: every entry is at most the level's last one (see `cells`), so each of its
    // pairs is inside the level's rows.
    unsafe {
        let rows = tables.add(F * c.offset);
        let mut acc = [G::splat(0.0); 8];
        for corner in 0..1 << D {
            // Pair `j` of entry `e` is pair `e F / 2 + j` of the level's rows.
            let pairs: [u32; LANES] = match F {
                2 => block.entries[corner],
                _ => block.entries[corner].map(|e| e * (F / 2) as u32),
            };
            let w = G::load(block.weights[corner].as_ptr());
            for j in 0..F / 2 {
                let (t0, t1) = G::gather_pairs(rows.add(2 * j), &pairs);
                acc[2 * j] = G::add(acc[2 * j], G::mul(w, t0));
                acc[2 * j + 1] = G::add(acc[2 * j + 1], G::mul(w, t1));
            }
        }
        for (f, a) in acc.iter().take(F).enumerate() {
            G::store(*a, out.add(f * feature_step));
        }
    }
}

/// [`encode_pairs_on`] over `G`.
///
/// # Safety
/// The CPU must run `G`.
#[inline(always)]
unsafe fn encode_pairs<G: GridLanes, const D: usize, const F: usize>(
    c: &LevelConsts,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
    feature_step: usize,
) -> usize {
    let blocks = points.len() / D / LANES;
    let mut block = Block::new();
    let rows_end = F * (c.offset + last_entry::<D>(c) as usize + 1);
    assert!(
        F <= 8 && tables.len() >= rows_end && out.len() >= (F - 1) * feature_step + blocks * LANES,
        "the level's table rows and the output rows"
    );
    for b in 0..blocks {
        // SAFETY: block b's 8 points lie inside `points`; the table and output rows were
        // checked above; the CPU runs `G` (the caller's contract).
        unsafe {
            cells::<G, D>(c, points.as_ptr().add(b * LANES * D), &mut block);
            let out = out.as_mut_ptr().add(b * LANES);
            interpolate_pairs::<G, D, F>(c, &block, tables.as_ptr(), out, feature_step);
        }
    }
    blocks * LANES
}

/// [`add_point`](super::add_point) for two features on a level indexed directly, where
/// corners `2j` and `2j + 1` differ along the first axis only and so are neighbouring
/// entries: each pair of corners is one 4-lane update, the same multiplications and
/// additions as the scalar path's (a pair that is not adjacent, which only clamped entries
/// could give, takes the scalar path).
///
/// # Safety
/// The CPU must run `G`.
#[inline(always)]
unsafe fn add_point_pairs<G: GridLanes, const D: usize>(
    entries: [u32; 8],
    weights: [f32; 8],
    g: [f32; 2],
    part: &mut [f32],
) {
    for j in 0..1 << (D - 1) {
        let (k0, k1) = (2 * j, 2 * j + 1);
        let at = entries[k0] as usize * 2;
        if entries[k1] == entries[k0].wrapping_add(1) && at + 4 <= part.len() {
            // SAFETY: values at..at + 4 lie inside `part` (checked above); the CPU runs `G`.
            unsafe {
                G::add_two_corners(part.as_mut_ptr().add(at), weights[k0], weights[k1], g);
            }
        } else {
            add_corner(entries[k0], weights[k0], g, part);
            add_corner(entries[k1], weights[k1], g, part);
        }
    }
}

/// [`scatter_blocks_on`] over `G`: the cells computed 8 points at a time (the next block's
/// corners prefetched while this block's are updated, in point order).
///
/// # Safety
/// The CPU must run `G`.
#[inline(always)]
unsafe fn scatter_blocks<G: GridLanes, const D: usize, const F: usize>(
    c: &LevelConsts,
    points: &[f32],
    grad: GradAt<'_>,
    part: &mut [f32],
) -> usize {
    let blocks = points.len() / D / LANES;
    let (mut now, mut next) = (Block::new(), Block::new());
    let block_at = |b: usize| points[b * LANES * D..(b + 1) * LANES * D].as_ptr();
    if blocks > 0 {
        // SAFETY: block 0's 8 points lie inside `points`; the CPU runs `G`.
        unsafe { cells::<G, D>(c, block_at(0), &mut now) };
    }
    for b in 0..blocks {
        if b + 1 < blocks {
            // SAFETY: block b + 1's 8 points lie inside `points`; the CPU runs `G`.
            unsafe { cells::<G, D>(c, block_at(b + 1), &mut next) };
            for corner in &next.entries[..1 << D] {
                for &e in corner {
                    prefetch(part.as_ptr(), e as usize * F);
                }
            }
        }
        for p in 0..LANES {
            let at = grad.base + (b * LANES + p) * grad.point_step;
            let g = point_grad::<F>(grad.grad, at, grad.feature_step);
            let entries = std::array::from_fn(|k| now.entries[k][p]);
            let weights = std::array::from_fn(|k| now.weights[k][p]);
            if F == 2 && !c.hashed {
                // SAFETY: the CPU runs `G` (this function's contract).
                unsafe { add_point_pairs::<G, D>(entries, weights, [g[0], g[F - 1]], part) };
            } else {
                add_point::<D, F>(entries, weights, g, part);
            }
        }
        std::mem::swap(&mut now, &mut next);
    }
    blocks * LANES
}
