//! The outer-product kernel: a tile of `C` held in registers, updated once per step of the
//! shared dimension with one row of `op(B)` (loaded as vectors) times one column of `op(A)`
//! (broadcast element by element). It needs the rows of `op(B)` contiguous.
//!
//! Written once over [`F32s`] and instantiated per path (see [`region`]): tiles are up to
//! `V::MAX_NV` registers wide and `V::FULL_ROWS[nv]` rows high, so that the accumulators
//! fill the register file. Every element of `C` is computed by the same sequence of fused
//! multiply-adds, in the order of the shared dimension, whatever the path, tile, mask or
//! region it falls in: results do not depend on how the caller cuts the product, nor on
//! the width of the vectors.

use super::{EpiKind, Region, Write};
use crate::simd::vector::F32s;

/// Loads register `v` of a row at `p` (only the lanes of `mask` when `part`).
#[inline(always)]
unsafe fn load<V: F32s>(p: *const f32, part: bool, mask: V::Mask) -> V {
    // SAFETY: the caller guarantees the lanes readable.
    unsafe {
        if part {
            V::load_part(p, mask)
        } else {
            V::load(p)
        }
    }
}

/// Stores `x` to `p` (only the lanes of `mask` when `part`).
#[inline(always)]
unsafe fn store<V: F32s>(p: *mut f32, x: V, part: bool, mask: V::Mask) {
    // SAFETY: the caller guarantees the lanes writable.
    unsafe {
        if part {
            x.store_part(p, mask)
        } else {
            x.store(p)
        }
    }
}

/// The epilogue of register `v` of row `i` of the tile at `r`.
///
/// # Safety
/// The epilogue's pointers in `r` must be valid for the tile.
#[inline(always)]
unsafe fn epilogue<V: F32s>(r: &Region, i: usize, v: usize, out: V, part: bool, m: V::Mask) -> V {
    let lanes = V::LANES;
    // SAFETY: the bias has the tile's columns and the ReLU input its elements.
    unsafe {
        match r.epi {
            EpiKind::None => out,
            EpiKind::Bias => out.add(load(r.bias.add(lanes * v), part, m)),
            EpiKind::BiasRelu => out.add(load(r.bias.add(lanes * v), part, m)).relu(),
            EpiKind::ReluGrad => out.mul_relu_grad(load(r.at.add(i * r.ldc + lanes * v), part, m)),
        }
    }
}

/// One `MR x (LANES NV)` tile at the start of `r` (the last register limited to `mask`
/// when `MASKED`, a constant so that whole tiles test nothing in their loop).
///
/// # Safety
/// `r` must describe readable operands and a writable tile of `C` of that size.
#[inline(always)]
unsafe fn tile<V: F32s, const MR: usize, const NV: usize, const MASKED: bool>(
    r: &Region,
    mask: V::Mask,
    w: Write,
) {
    let lanes = V::LANES;
    // SAFETY: every pointer below stays inside the region the caller vouches for.
    unsafe {
        let part = |v: usize| MASKED && v + 1 == NV;
        let mut acc = [[V::zero(); NV]; MR];
        if let Write::Continue = w {
            for (i, row) in acc.iter_mut().enumerate() {
                for (v, a) in row.iter_mut().enumerate() {
                    *a = load(r.c.add(i * r.ldc + lanes * v), part(v), mask);
                }
            }
        }
        let (mut ap, mut bp) = (r.a, r.b);
        for _ in 0..r.k {
            let mut bv = [V::zero(); NV];
            for (v, b) in bv.iter_mut().enumerate() {
                *b = load(bp.add(lanes * v), part(v), mask);
            }
            for (i, row) in acc.iter_mut().enumerate() {
                let av = V::load_splat(ap.add(i * r.ars));
                for (a, b) in row.iter_mut().zip(&bv) {
                    *a = av.mul_add(*b, *a);
                }
            }
            ap = ap.add(r.acs);
            bp = bp.add(r.brs);
        }
        let (alpha, beta) = match w {
            Write::Continue => (1.0, 0.0),
            Write::Scaled { alpha, beta } => (alpha, beta),
        };
        let (va, vb) = (V::splat(alpha), V::splat(beta));
        for (i, row) in acc.iter().enumerate() {
            for (v, a) in row.iter().enumerate() {
                let p = r.c.add(i * r.ldc + lanes * v);
                let out = if alpha == 1.0 { *a } else { va.mul(*a) };
                let out = if beta == 0.0 {
                    out
                } else {
                    vb.mul_add(load(p, part(v), mask), out)
                };
                let out = match w {
                    Write::Continue => out,
                    Write::Scaled { .. } => epilogue(r, i, v, out, part(v), mask),
                };
                store(p, out, part(v), mask);
            }
        }
    }
}

/// Calls `tile::<V, MR, NV, MASKED>` with `MR` = `$rows`, one of the listed numbers.
macro_rules! tile_of {
    ($rows:expr, $r:expr, $mask:expr, $w:expr; $($n:literal)*) => {
        match $rows {
            $($n => tile::<V, $n, NV, MASKED>($r, $mask, $w),)*
            _ => {}
        }
    };
}

/// Rows `0..rows` of one strip of columns, `LANES NV` wide: full tiles of
/// `V::FULL_ROWS[NV]` rows, then one of the rows left.
///
/// # Safety
/// As for [`tile`], for `rows` rows.
#[inline(always)]
unsafe fn strip<V: F32s, const NV: usize, const MASKED: bool>(
    rows: usize,
    r: &Region,
    mask: V::Mask,
    w: Write,
) {
    let full = V::FULL_ROWS[NV];
    let mut i = 0;
    // SAFETY: each tile starts at row i of the region and ends before row `rows`.
    unsafe {
        while i + full <= rows {
            tile_of!(full, &r.at(i, 0), mask, w; 6 8 10 12);
            i += full;
        }
        let (left, t) = (rows - i, r.at(i, 0));
        match full {
            12 => tile_of!(left, &t, mask, w; 1 2 3 4 5 6 7 8 9 10 11),
            10 => tile_of!(left, &t, mask, w; 1 2 3 4 5 6 7 8 9),
            8 => tile_of!(left, &t, mask, w; 1 2 3 4 5 6 7),
            _ => tile_of!(left, &t, mask, w; 1 2 3 4 5),
        }
    }
}

/// `C` (`rows x cols`, at the start of `r`) from the outer products along `r.k`: strips of
/// `V::MAX_NV` registers, then one strip of the columns left (its last register partial).
///
/// # Safety
/// The CPU must run `V`; `r` must describe readable operands (`op(A)`: `rows x k`;
/// `op(B)`: `k x cols`, rows contiguous) and a writable `rows x cols` block of `C`, not
/// touched by another thread.
#[inline(always)]
pub(super) unsafe fn region<V: F32s>(rows: usize, cols: usize, r: &Region, w: Write) {
    let (lanes, widest) = (V::LANES, V::LANES * V::MAX_NV);
    let mut j = 0;
    // SAFETY: each strip covers columns j..j + its width, inside 0..cols.
    unsafe {
        let full = V::first(lanes);
        while j + widest <= cols {
            match V::MAX_NV {
                4 => strip::<V, 4, false>(rows, &r.at(0, j), full, w),
                _ => strip::<V, 2, false>(rows, &r.at(0, j), full, w),
            }
            j += widest;
        }
        let left = cols - j;
        if left == 0 {
            return;
        }
        let (nv, tail) = (left.div_ceil(lanes).min(V::MAX_NV), left % lanes);
        let t = r.at(0, j);
        let m = if tail == 0 { full } else { V::first(tail) };
        match (nv, tail == 0) {
            (1, true) => strip::<V, 1, false>(rows, &t, m, w),
            (2, true) => strip::<V, 2, false>(rows, &t, m, w),
            (3, true) => strip::<V, 3, false>(rows, &t, m, w),
            (1, false) => strip::<V, 1, true>(rows, &t, m, w),
            (2, false) => strip::<V, 2, true>(rows, &t, m, w),
            (3, false) => strip::<V, 3, true>(rows, &t, m, w),
            (4, false) => strip::<V, 4, true>(rows, &t, m, w),
            _ => {}
        }
    }
}
