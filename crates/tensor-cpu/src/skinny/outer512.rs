//! The outer-product kernel of [`outer`](super::outer) with AVX-512 registers: 16 lanes a
//! vector and 32 registers, so a tile holds up to 64 columns of 6 rows (or 32 of 12) and
//! each broadcast element of `op(A)` feeds twice as many lanes.
//!
//! Every element of `C` is computed by the same sequence of fused multiply-adds as in the
//! AVX2 kernel (one per step of the shared dimension, in order), and the epilogues are the
//! same operations, so the two kernels give bit-identical results.

use super::{EpiKind, Region, Write};
use std::arch::x86_64::*;

/// A mask of the first `n` (at most 16) lanes.
#[inline]
fn lanes(n: usize) -> __mmask16 {
    if n >= 16 {
        0xffff
    } else {
        ((1u32 << n) - 1) as __mmask16
    }
}

/// Loads 16 values from `p`, or only the lanes of `mask` (the others 0); `mask` is a
/// constant after inlining wherever it is all lanes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load(p: *const f32, mask: __mmask16) -> __m512 {
    // SAFETY: the caller guarantees the masked lanes' values readable.
    unsafe {
        if mask == 0xffff {
            _mm512_loadu_ps(p)
        } else {
            _mm512_maskz_loadu_ps(mask, p)
        }
    }
}

/// Stores the lanes of `mask` of `v` to `p`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store(p: *mut f32, v: __m512, mask: __mmask16) {
    // SAFETY: the caller guarantees the masked lanes' values writable.
    unsafe {
        if mask == 0xffff {
            _mm512_storeu_ps(p, v)
        } else {
            _mm512_mask_storeu_ps(p, mask, v)
        }
    }
}

/// The epilogue of vector `v` of row `i` of the tile at `r`, as the AVX2 kernel's.
///
/// # Safety
/// The epilogue's pointers in `r` must be valid for the tile's masked lanes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn epilogue(r: &Region, i: usize, v: usize, out: __m512, mask: __mmask16) -> __m512 {
    let zero = _mm512_setzero_ps();
    // SAFETY: the bias has the tile's columns and the ReLU input its elements.
    unsafe {
        match r.epi {
            EpiKind::None => out,
            EpiKind::Bias | EpiKind::BiasRelu => {
                let z = _mm512_add_ps(out, load(r.bias.add(16 * v), mask));
                if r.epi == EpiKind::Bias {
                    z
                } else {
                    // 0 below 0, NaN and -0 kept, as the scalar ReLU.
                    let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(z, zero);
                    _mm512_maskz_mov_ps(!below, z)
                }
            }
            EpiKind::ReluGrad => {
                let at = load(r.at.add(i * r.ldc + 16 * v), mask);
                let above = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(at, zero);
                let d = _mm512_maskz_mov_ps(above, _mm512_set1_ps(1.0));
                _mm512_mul_ps(out, d)
            }
        }
    }
}

/// One `MR x (16 NV)` tile at the start of `r`, the last vector's lanes limited to `mask`
/// when `MASKED` (a constant, so that unmasked tiles keep their accumulators in registers
/// with no test in the loop).
///
/// # Safety
/// `r` must describe readable operands and a writable tile of `C` of that size.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn tile<const MR: usize, const NV: usize, const MASKED: bool>(
    r: &Region,
    mask: __mmask16,
    w: Write,
) {
    // SAFETY: every pointer below stays inside the region the caller vouches for.
    unsafe {
        let m = |v: usize| if MASKED && v + 1 == NV { mask } else { 0xffff };
        let mut acc = [[_mm512_setzero_ps(); NV]; MR];
        if let Write::Continue = w {
            for (i, row) in acc.iter_mut().enumerate() {
                for (v, a) in row.iter_mut().enumerate() {
                    *a = load(r.c.add(i * r.ldc + 16 * v), m(v));
                }
            }
        }
        let (mut ap, mut bp) = (r.a, r.b);
        for _ in 0..r.k {
            let mut bv = [_mm512_setzero_ps(); NV];
            for (v, b) in bv.iter_mut().enumerate() {
                *b = load(bp.add(16 * v), m(v));
            }
            for (i, row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*ap.add(i * r.ars));
                for (a, b) in row.iter_mut().zip(&bv) {
                    *a = _mm512_fmadd_ps(av, *b, *a);
                }
            }
            ap = ap.add(r.acs);
            bp = bp.add(r.brs);
        }
        let (alpha, beta) = match w {
            Write::Continue => (1.0, 0.0),
            Write::Scaled { alpha, beta } => (alpha, beta),
        };
        let (va, vb) = (_mm512_set1_ps(alpha), _mm512_set1_ps(beta));
        for (i, row) in acc.iter().enumerate() {
            for (v, a) in row.iter().enumerate() {
                let p = r.c.add(i * r.ldc + 16 * v);
                let out = if alpha == 1.0 {
                    *a
                } else {
                    _mm512_mul_ps(va, *a)
                };
                let out = if beta == 0.0 {
                    out
                } else {
                    _mm512_fmadd_ps(vb, load(p, m(v)), out)
                };
                let out = match w {
                    Write::Continue => out,
                    Write::Scaled { .. } => epilogue(r, i, v, out, m(v)),
                };
                store(p, out, m(v));
            }
        }
    }
}

/// Calls `tile::<MR, NV, MASKED>` with `MR` = `$rows` (one of the listed numbers).
macro_rules! rows_of {
    ($rows:expr, $nv:literal, $r:expr, $mask:expr, $w:expr; $($n:literal)*) => {
        match $rows {
            $($n => tile::<$n, $nv, MASKED>($r, $mask, $w),)*
            _ => {}
        }
    };
}

/// Rows `0..rows` of one strip of columns, `16 NV` wide (the last vector's lanes limited
/// to `mask` when `MASKED`): tiles of 24 accumulators.
///
/// # Safety
/// As for [`tile`], for `rows` rows.
#[target_feature(enable = "avx512f")]
unsafe fn strip<const NV: usize, const MASKED: bool>(
    rows: usize,
    r: &Region,
    mask: __mmask16,
    w: Write,
) {
    let full = match NV {
        4 => 6,
        3 => 8,
        2 => 10,
        _ => 12,
    };
    let mut i = 0;
    // SAFETY: each tile starts at row i of the region and ends before row `rows`.
    unsafe {
        while i + full <= rows {
            let t = r.at(i, 0);
            match NV {
                4 => tile::<6, 4, MASKED>(&t, mask, w),
                3 => tile::<8, 3, MASKED>(&t, mask, w),
                2 => tile::<10, 2, MASKED>(&t, mask, w),
                _ => tile::<12, 1, MASKED>(&t, mask, w),
            }
            i += full;
        }
        let t = r.at(i, 0);
        match NV {
            4 => rows_of!(rows - i, 4, &t, mask, w; 1 2 3 4 5),
            3 => rows_of!(rows - i, 3, &t, mask, w; 1 2 3 4 5 6 7),
            2 => rows_of!(rows - i, 2, &t, mask, w; 1 2 3 4 5 6 7 8 9),
            _ => rows_of!(rows - i, 1, &t, mask, w; 1 2 3 4 5 6 7 8 9 10 11),
        }
    }
}

/// `C` (`rows x cols`, at the start of `r`) from the outer products along `r.k`.
///
/// # Safety
/// The CPU must have AVX-512F; `r` must describe readable operands (`op(A)`: `rows x k`;
/// `op(B)`: `k x cols`, rows contiguous) and a writable `rows x cols` block of `C`, not
/// touched by another thread.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn region(rows: usize, cols: usize, r: &Region, w: Write) {
    let mut j = 0;
    // SAFETY: each strip covers columns j..j + its width, inside 0..cols.
    unsafe {
        while j + 64 <= cols {
            strip::<4, false>(rows, &r.at(0, j), 0xffff, w);
            j += 64;
        }
        let left = cols - j;
        let t = r.at(0, j);
        let full = 0xffff;
        match (left, left % 16) {
            (0, _) => {}
            (16, _) => strip::<1, false>(rows, &t, full, w),
            (32, _) => strip::<2, false>(rows, &t, full, w),
            (48, _) => strip::<3, false>(rows, &t, full, w),
            (1..16, tail) => strip::<1, true>(rows, &t, lanes(tail), w),
            (17..32, tail) => strip::<2, true>(rows, &t, lanes(tail), w),
            (33..48, tail) => strip::<3, true>(rows, &t, lanes(tail), w),
            (_, tail) => strip::<4, true>(rows, &t, lanes(tail), w),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_masks_cover_the_first_lanes() {
        assert_eq!(lanes(1), 1);
        assert_eq!(lanes(3), 0b111);
        assert_eq!(lanes(16), 0xffff);
    }
}
