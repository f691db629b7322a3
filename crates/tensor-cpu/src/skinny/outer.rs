//! The outer-product kernel: a tile of `C` held in AVX2 registers, updated once per step of
//! the shared dimension with one row of `op(B)` (loaded as vectors) times one column of
//! `op(A)` (broadcast element by element). It needs the rows of `op(B)` contiguous.
//!
//! Every element of `C` is computed by the same sequence of fused multiply-adds, in the
//! order of the shared dimension, whatever tile, mask or region it falls in: results do
//! not depend on how the caller cuts the product.

use super::{EpiKind, Region, Write};
use std::arch::x86_64::*;

/// Rows of a tile two vectors (16 columns) wide: 12 accumulators.
const ROWS_WIDE: usize = 6;
/// Rows of a tile one vector (8 columns) wide: 12 accumulators.
const ROWS_NARROW: usize = 12;

/// Loads 8 values from `p`, or the first lanes of `mask` when `masked`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn load(p: *const f32, masked: bool, mask: __m256i) -> __m256 {
    // SAFETY: the caller guarantees 8 readable values, or the masked lanes' values.
    unsafe {
        if masked {
            _mm256_maskload_ps(p, mask)
        } else {
            _mm256_loadu_ps(p)
        }
    }
}

/// Stores 8 values to `p`, or the first lanes of `mask` when `masked`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store(p: *mut f32, v: __m256, masked: bool, mask: __m256i) {
    // SAFETY: the caller guarantees 8 writable values, or the masked lanes' values.
    unsafe {
        if masked {
            _mm256_maskstore_ps(p, mask, v)
        } else {
            _mm256_storeu_ps(p, v)
        }
    }
}

/// The epilogue of vector `v` of row `i` of the tile at `r`.
///
/// # Safety
/// The epilogue's pointers in `r` must be valid for the tile.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn epilogue(
    r: &Region,
    i: usize,
    v: usize,
    out: __m256,
    masked: bool,
    mask: __m256i,
) -> __m256 {
    let zero = _mm256_setzero_ps();
    // SAFETY: the bias has the tile's columns and the ReLU input its elements.
    unsafe {
        match r.epi {
            EpiKind::None => out,
            EpiKind::Bias | EpiKind::BiasRelu => {
                let z = _mm256_add_ps(out, load(r.bias.add(8 * v), masked, mask));
                if r.epi == EpiKind::Bias {
                    z
                } else {
                    // As the scalar ReLU: 0 below 0, NaN kept.
                    _mm256_andnot_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(z, zero), z)
                }
            }
            EpiKind::ReluGrad => {
                let at = load(r.at.add(i * r.ldc + 8 * v), masked, mask);
                let d = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(at, zero), _mm256_set1_ps(1.0));
                _mm256_mul_ps(out, d)
            }
        }
    }
}

/// One `MR x (8 NV)` tile at the start of `r` (the last vector masked when `MASKED`).
///
/// # Safety
/// `r` must describe readable operands and a writable tile of `C` of that size.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile<const MR: usize, const NV: usize, const MASKED: bool>(
    r: &Region,
    mask: __m256i,
    w: Write,
) {
    // SAFETY: every pointer below stays inside the region the caller vouches for.
    unsafe {
        let last = |v: usize| MASKED && v + 1 == NV;
        let mut acc = [[_mm256_setzero_ps(); NV]; MR];
        if let Write::Continue = w {
            for (i, row) in acc.iter_mut().enumerate() {
                for (v, a) in row.iter_mut().enumerate() {
                    *a = load(r.c.add(i * r.ldc + 8 * v), last(v), mask);
                }
            }
        }
        let (mut ap, mut bp) = (r.a, r.b);
        for _ in 0..r.k {
            let mut bv = [_mm256_setzero_ps(); NV];
            for (v, b) in bv.iter_mut().enumerate() {
                *b = load(bp.add(8 * v), last(v), mask);
            }
            for (i, row) in acc.iter_mut().enumerate() {
                let av = _mm256_broadcast_ss(&*ap.add(i * r.ars));
                for (a, b) in row.iter_mut().zip(&bv) {
                    *a = _mm256_fmadd_ps(av, *b, *a);
                }
            }
            ap = ap.add(r.acs);
            bp = bp.add(r.brs);
        }
        let (alpha, beta) = match w {
            Write::Continue => (1.0, 0.0),
            Write::Scaled { alpha, beta } => (alpha, beta),
        };
        let (va, vb) = (_mm256_set1_ps(alpha), _mm256_set1_ps(beta));
        for (i, row) in acc.iter().enumerate() {
            for (v, a) in row.iter().enumerate() {
                let p = r.c.add(i * r.ldc + 8 * v);
                let out = if alpha == 1.0 {
                    *a
                } else {
                    _mm256_mul_ps(va, *a)
                };
                let out = if beta == 0.0 {
                    out
                } else {
                    _mm256_fmadd_ps(vb, load(p, last(v), mask), out)
                };
                let out = match w {
                    Write::Continue => out,
                    Write::Scaled { .. } => epilogue(r, i, v, out, last(v), mask),
                };
                store(p, out, last(v), mask);
            }
        }
    }
}

/// Calls `tile::<MR, NV, MASKED>` with `MR` = `$rows` (a number below `$full`).
macro_rules! rest_rows {
    ($rows:expr, $nv:literal, $masked:ident, $r:expr, $mask:expr, $w:expr; $($n:literal)*) => {
        match $rows {
            $($n => tile::<$n, $nv, $masked>($r, $mask, $w),)*
            _ => {}
        }
    };
}

/// Rows `0..rows` of one strip of columns, `8 NV` wide.
///
/// # Safety
/// As for [`tile`], for `rows` rows.
#[target_feature(enable = "avx2,fma")]
unsafe fn strip<const NV: usize, const MASKED: bool>(
    rows: usize,
    r: &Region,
    mask: __m256i,
    w: Write,
) {
    let full = if NV == 1 { ROWS_NARROW } else { ROWS_WIDE };
    let mut i = 0;
    // SAFETY: each tile starts at row i of the region and ends before row `rows`.
    unsafe {
        while i + full <= rows {
            let t = r.at(i, 0);
            if NV == 1 {
                tile::<ROWS_NARROW, NV, MASKED>(&t, mask, w);
            } else {
                tile::<ROWS_WIDE, NV, MASKED>(&t, mask, w);
            }
            i += full;
        }
        let t = r.at(i, 0);
        if NV == 1 {
            rest_rows!(rows - i, 1, MASKED, &t, mask, w; 1 2 3 4 5 6 7 8 9 10 11);
        } else {
            rest_rows!(rows - i, 2, MASKED, &t, mask, w; 1 2 3 4 5);
        }
    }
}

/// A mask of the first `n` of 8 lanes.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn lanes(n: usize) -> __m256i {
    let idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), idx)
}

/// `C` (`rows x cols`, at the start of `r`) from the outer products along `r.k`.
///
/// # Safety
/// `r` must describe readable operands (`op(A)`: `rows x k`; `op(B)`: `k x cols`, rows
/// contiguous) and a writable `rows x cols` block of `C`, not touched by another thread.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn region(rows: usize, cols: usize, r: &Region, w: Write) {
    let full = _mm256_set1_epi32(-1);
    let mut j = 0;
    // SAFETY: each strip covers columns j..j + its width, inside 0..cols.
    unsafe {
        while j + 16 <= cols {
            strip::<2, false>(rows, &r.at(0, j), full, w);
            j += 16;
        }
        let left = cols - j;
        match left {
            0 => {}
            8 => strip::<1, false>(rows, &r.at(0, j), full, w),
            1..8 => strip::<1, true>(rows, &r.at(0, j), lanes(left), w),
            _ => strip::<2, true>(rows, &r.at(0, j), lanes(left - 8), w),
        }
    }
}
