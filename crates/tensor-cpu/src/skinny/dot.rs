//! The dot-product kernel: each element of `C` is the dot product of a row of `op(A)` and
//! a column of `op(B)`, both contiguous, computed 8 lanes at a time and summed across the
//! lanes at the end. It serves products whose `op(B)` is a long matrix read transposed
//! (an input gradient `W dZ^T` written feature-major), where the outer-product kernel
//! would need `op(B)`'s rows contiguous.
//!
//! Every element is computed by the same operations (lane-wise fused multiply-adds in the
//! order of the shared dimension, then a fixed tree across the lanes) whatever tile it
//! falls in, so results do not depend on how the caller cuts the product.

use super::outer::lanes;
use super::{EpiKind, Region, Write, epilogue_scalar};
use std::arch::x86_64::*;

/// Rows of `op(A)` per tile.
const TILE_ROWS: usize = 3;
/// Columns of `op(B)` per tile: one 4-lane store of results per row.
const TILE_COLS: usize = 4;

/// The sums of the 8 lanes of each of `v`, in one 4-lane vector.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn lane_sums(v: &[__m256; TILE_COLS]) -> __m128 {
    let h01 = _mm256_hadd_ps(v[0], v[1]);
    let h23 = _mm256_hadd_ps(v[2], v[3]);
    let h = _mm256_hadd_ps(h01, h23);
    _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps::<1>(h))
}

/// One `MI x NJ` tile at the start of `r`.
///
/// # Safety
/// `r` must describe readable operands and a writable tile of `C` of that size.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile<const MI: usize, const NJ: usize>(r: &Region, w: Write) {
    // SAFETY: every pointer below stays inside the region the caller vouches for.
    unsafe {
        let mut acc = [[_mm256_setzero_ps(); TILE_COLS]; MI];
        let whole = r.k / 8 * 8;
        let mut p = 0;
        while p < whole {
            let mut bv = [_mm256_setzero_ps(); NJ];
            for (j, b) in bv.iter_mut().enumerate() {
                *b = _mm256_loadu_ps(r.b.add(j * r.bcs + p));
            }
            for (i, row) in acc.iter_mut().enumerate() {
                let av = _mm256_loadu_ps(r.a.add(i * r.ars + p));
                for (a, b) in row.iter_mut().zip(&bv) {
                    *a = _mm256_fmadd_ps(av, *b, *a);
                }
            }
            p += 8;
        }
        if whole < r.k {
            let mask = lanes(r.k - whole);
            for (i, row) in acc.iter_mut().enumerate() {
                let av = _mm256_maskload_ps(r.a.add(i * r.ars + p), mask);
                for (j, a) in row.iter_mut().take(NJ).enumerate() {
                    let bv = _mm256_maskload_ps(r.b.add(j * r.bcs + p), mask);
                    *a = _mm256_fmadd_ps(av, bv, *a);
                }
            }
        }
        let (alpha, beta) = match w {
            Write::Continue => (1.0, 1.0),
            Write::Scaled { alpha, beta } => (alpha, beta),
        };
        let plain = NJ == TILE_COLS && beta == 0.0 && r.epi == EpiKind::None;
        for (i, row) in acc.iter().enumerate() {
            let sums = lane_sums(row);
            if plain && matches!(w, Write::Scaled { .. }) {
                // The common case (a whole tile, no epilogue): one vector store per row.
                let c = r.c.add(i * r.ldc);
                let out = if alpha == 1.0 {
                    sums
                } else {
                    _mm_mul_ps(_mm_set1_ps(alpha), sums)
                };
                _mm_storeu_ps(c, out);
                continue;
            }
            let mut sums_arr = [0f32; TILE_COLS];
            _mm_storeu_ps(sums_arr.as_mut_ptr(), sums);
            let sums = sums_arr;
            for (j, s) in sums.iter().take(NJ).enumerate() {
                let c = r.c.add(i * r.ldc + j);
                let out = alpha * s;
                let out = if beta == 0.0 {
                    out
                } else {
                    beta.mul_add(*c, out)
                };
                let (bias, at) = (r.bias.wrapping_add(j), r.at.wrapping_add(i * r.ldc + j));
                *c = match w {
                    Write::Continue => out,
                    Write::Scaled { .. } => epilogue_scalar(r.epi, out, bias, at),
                };
            }
        }
    }
}

/// Calls `tile::<MI, NJ>` for `MI` = `$rows` below [`TILE_ROWS`].
macro_rules! rest_rows {
    ($rows:expr, $nj:ident, $r:expr, $w:expr) => {
        match $rows {
            1 => tile::<1, $nj>($r, $w),
            2 => tile::<2, $nj>($r, $w),
            _ => {}
        }
    };
}

/// Rows `0..rows` of the columns at the start of `r`, `NJ` of them.
///
/// # Safety
/// As for [`tile`], for `rows` rows.
#[target_feature(enable = "avx2,fma")]
unsafe fn strip<const NJ: usize>(rows: usize, r: &Region, w: Write) {
    let mut i = 0;
    // SAFETY: each tile starts at row i of the region and ends before row `rows`.
    unsafe {
        while i + TILE_ROWS <= rows {
            tile::<TILE_ROWS, NJ>(&r.at(i, 0), w);
            i += TILE_ROWS;
        }
        rest_rows!(rows - i, NJ, &r.at(i, 0), w);
    }
}

/// `C` (`rows x cols`, at the start of `r`) from dot products along `r.k`.
///
/// # Safety
/// `r` must describe readable operands (`op(A)`: `rows x k`, rows contiguous; `op(B)`:
/// `k x cols`, columns contiguous) and a writable `rows x cols` block of `C`, not touched
/// by another thread.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn region(rows: usize, cols: usize, r: &Region, w: Write) {
    let mut j = 0;
    // SAFETY: each strip covers columns j..j + its width, inside 0..cols.
    unsafe {
        while j + TILE_COLS <= cols {
            strip::<TILE_COLS>(rows, &r.at(0, j), w);
            j += TILE_COLS;
        }
        let t = r.at(0, j);
        match cols - j {
            1 => strip::<1>(rows, &t, w),
            2 => strip::<2>(rows, &t, w),
            3 => strip::<3>(rows, &t, w),
            _ => {}
        }
    }
}
