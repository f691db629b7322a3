//! The dot-product kernel: each element of `C` is the dot product of a row of `op(A)` and
//! a column of `op(B)`, both contiguous, computed 8 lanes at a time and summed across the
//! lanes at the end. It serves products whose `op(B)` is a long matrix read transposed
//! (an input gradient `W dZ^T` written feature-major), where the outer-product kernel
//! would need `op(B)`'s rows contiguous.
//!
//! Every element is computed by the same operations (lane-wise fused multiply-adds in the
//! order of the shared dimension, then a fixed tree across the lanes, [`Lanes8::lane_sums`])
//! whatever tile it falls in, so results do not depend on how the caller cuts the product.
//! Written once over 8-lane registers ([`Lanes8`]) and instantiated per path: AVX2 (also on
//! AVX-512 CPUs) and NEON give the same bits.

use super::{EpiKind, Region, Write, epilogue_scalar};
use crate::simd::vector::Lanes8;

/// Rows of `op(A)` per tile.
const TILE_ROWS: usize = 3;
/// Columns of `op(B)` per tile: one 4-lane store of results per row.
const TILE_COLS: usize = 4;
/// Lanes of the registers the sums are carried in.
const LANES: usize = 8;

/// One `MI x NJ` tile at the start of `r`.
///
/// # Safety
/// `r` must describe readable operands and a writable tile of `C` of that size.
#[inline(always)]
unsafe fn tile<V: Lanes8, const MI: usize, const NJ: usize>(r: &Region, w: Write) {
    // SAFETY: every pointer below stays inside the region the caller vouches for.
    unsafe {
        let mut acc = [[V::zero(); TILE_COLS]; MI];
        let whole = r.k / LANES * LANES;
        let mut p = 0;
        while p < whole {
            let mut bv = [V::zero(); NJ];
            for (j, b) in bv.iter_mut().enumerate() {
                *b = V::load(r.b.add(j * r.bcs + p));
            }
            for (i, row) in acc.iter_mut().enumerate() {
                let av = V::load(r.a.add(i * r.ars + p));
                for (a, b) in row.iter_mut().zip(&bv) {
                    *a = av.mul_add(*b, *a);
                }
            }
            p += LANES;
        }
        if whole < r.k {
            let mask = V::first(r.k - whole);
            for (i, row) in acc.iter_mut().enumerate() {
                let av = V::load_part(r.a.add(i * r.ars + p), mask);
                for (j, a) in row.iter_mut().take(NJ).enumerate() {
                    let bv = V::load_part(r.b.add(j * r.bcs + p), mask);
                    *a = av.mul_add(bv, *a);
                }
            }
        }
        let (alpha, beta) = match w {
            Write::Continue => (1.0, 1.0),
            Write::Scaled { alpha, beta } => (alpha, beta),
        };
        for (i, row) in acc.iter().enumerate() {
            let sums = V::lane_sums(row);
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
                    Write::Scaled { .. } if r.epi == EpiKind::None => out,
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
            1 => tile::<V, 1, $nj>($r, $w),
            2 => tile::<V, 2, $nj>($r, $w),
            _ => {}
        }
    };
}

/// Rows `0..rows` of the columns at the start of `r`, `NJ` of them.
///
/// # Safety
/// As for [`tile`], for `rows` rows.
#[inline(always)]
unsafe fn strip<V: Lanes8, const NJ: usize>(rows: usize, r: &Region, w: Write) {
    let mut i = 0;
    // SAFETY: each tile starts at row i of the region and ends before row `rows`.
    unsafe {
        while i + TILE_ROWS <= rows {
            tile::<V, TILE_ROWS, NJ>(&r.at(i, 0), w);
            i += TILE_ROWS;
        }
        rest_rows!(rows - i, NJ, &r.at(i, 0), w);
    }
}

/// `C` (`rows x cols`, at the start of `r`) from dot products along `r.k`.
///
/// # Safety
/// The CPU must run `V`; `r` must describe readable operands (`op(A)`: `rows x k`, rows contiguous; `op(B)`:
/// `k x cols`, columns contiguous) and a writable `rows x cols` block of `C`, not touched
/// by another thread.
#[inline(always)]
pub(super) unsafe fn region<V: Lanes8>(rows: usize, cols: usize, r: &Region, w: Write) {
    let mut j = 0;
    // SAFETY: each strip covers columns j..j + its width, inside 0..cols.
    unsafe {
        while j + TILE_COLS <= cols {
            strip::<V, TILE_COLS>(rows, &r.at(0, j), w);
            j += TILE_COLS;
        }
        let t = r.at(0, j);
        match cols - j {
            1 => strip::<V, 1>(rows, &t, w),
            2 => strip::<V, 2>(rows, &t, w),
            3 => strip::<V, 3>(rows, &t, w),
            _ => {}
        }
    }
}
