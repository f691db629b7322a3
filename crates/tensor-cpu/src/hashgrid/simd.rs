//! The lookups of eight points at once with AVX2: their cells (corner entries and
//! weights) and, with two features per level, the gathers and the interpolation.
//!
//! Each lane performs the operations of [`LevelConsts::cell`] and of the scalar
//! interpolation in the same order, with the same roundings (no fused multiply-adds), so the
//! results are bit-identical to the scalar path's, which handles the last `n % 8` points.

use std::arch::x86_64::*;
use tensor_core::hashgrid::{HASH_PRIMES, LevelConsts};

/// Points per block.
pub(super) const LANES: usize = 8;

/// Whether the functions of this module run: on the AVX2 and AVX-512 paths.
pub(super) fn available() -> bool {
    use crate::simd::SimdPath;
    matches!(crate::simd::active(), SimdPath::Avx2 | SimdPath::Avx512)
}

/// The cells of a block of points, corner by corner: `entries[c][p]` and `weights[c][p]`
/// are corner `c`'s entry within the level and weight for point `p` of the block.
#[derive(Clone, Copy)]
pub(super) struct Block {
    pub entries: [[u32; LANES]; 8],
    pub weights: [[f32; LANES]; 8],
}

impl Block {
    /// An empty block.
    pub fn new() -> Self {
        Block {
            entries: [[0; LANES]; 8],
            weights: [[0.0; LANES]; 8],
        }
    }
}

/// Coordinate `k` of the 8 points at `x` (`D` coordinates each).
///
/// # Safety
/// `x` must point to `8 D` readable values.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn axis<const D: usize>(x: *const f32, k: usize) -> __m256 {
    // SAFETY: the reads stay within the 8 D values.
    unsafe {
        match D {
            1 => _mm256_loadu_ps(x),
            2 => {
                let (lo, hi) = (_mm256_loadu_ps(x), _mm256_loadu_ps(x.add(8)));
                // [x0 x1 x4 x5 | x2 x3 x6 x7] (k = 0), then into point order.
                let mixed = if k == 0 {
                    _mm256_shuffle_ps::<0x88>(lo, hi)
                } else {
                    _mm256_shuffle_ps::<0xDD>(lo, hi)
                };
                let order = _mm256_permute4x64_pd::<0xD8>(_mm256_castps_pd(mixed));
                _mm256_castpd_ps(order)
            }
            _ => {
                let idx = _mm256_mullo_epi32(
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                    _mm256_set1_epi32(D as i32),
                );
                _mm256_i32gather_ps::<4>(x.add(k), idx)
            }
        }
    }
}

/// Fills `out` with the cells of the 8 points at `x` at level `c`.
///
/// # Safety
/// `x` must point to `8 D` readable values.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn cells<const D: usize>(c: &LevelConsts, x: *const f32, out: &mut Block) {
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    let mut lo = [_mm256_setzero_si256(); 3];
    let mut w = [zero; 3];
    for k in 0..D {
        // SAFETY: forwarded from the caller.
        let xk = unsafe { axis::<D>(x, k) };
        // clamp(x, 0, 1), keeping NaN (max and min return their second operand then).
        let p = _mm256_mul_ps(
            _mm256_min_ps(one, _mm256_max_ps(zero, xk)),
            _mm256_set1_ps(c.scale),
        );
        // As the scalar `p as u32`: NaN (INT_MIN here) gives cell 0.
        let i = _mm256_max_epi32(_mm256_cvttps_epi32(p), _mm256_setzero_si256());
        let i = _mm256_min_epu32(i, _mm256_set1_epi32(c.last_cell as i32));
        lo[k] = i;
        w[k] = _mm256_sub_ps(p, _mm256_cvtepi32_ps(i));
    }
    let bound = if c.hashed {
        c.mask
    } else {
        (c.last_cell + 2).wrapping_pow(D as u32).wrapping_sub(1)
    };
    let bound = _mm256_set1_epi32(bound as i32);
    for corner in 0..1 << D {
        let mut weight = one;
        let mut entry = _mm256_setzero_si256();
        for k in 0..D {
            let up = (corner >> k) & 1 == 1;
            let ik = if up {
                _mm256_add_epi32(lo[k], _mm256_set1_epi32(1))
            } else {
                lo[k]
            };
            let factor = if up { w[k] } else { _mm256_sub_ps(one, w[k]) };
            weight = if k == 0 {
                factor
            } else {
                _mm256_mul_ps(weight, factor)
            };
            entry = if c.hashed {
                let prime = _mm256_set1_epi32(HASH_PRIMES[k] as i32);
                _mm256_xor_si256(entry, _mm256_mullo_epi32(ik, prime))
            } else {
                let stride = _mm256_set1_epi32(c.strides[k] as i32);
                _mm256_add_epi32(entry, _mm256_mullo_epi32(ik, stride))
            };
        }
        if c.hashed {
            entry = _mm256_and_si256(entry, _mm256_set1_epi32(c.mask as i32));
        }
        // Entries are in range by construction; the bound keeps a gather in the table
        // whatever happens.
        entry = _mm256_min_epu32(entry, bound);
        // SAFETY: each row of `out` holds 8 values.
        unsafe {
            _mm256_storeu_si256(out.entries[corner].as_mut_ptr().cast(), entry);
            _mm256_storeu_ps(out.weights[corner].as_mut_ptr(), weight);
        }
    }
}

/// The two features of level `c` of 8 points whose cells are `block`, written to
/// `out[p]` (feature 0) and `out[feature_step + p]` (feature 1).
///
/// # Safety
/// `tables` must hold the level's `2 x table size` values from `2 c.offset` on, and `out`
/// must have `feature_step + 8` writable values.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn interpolate_pairs<const D: usize>(
    c: &LevelConsts,
    block: &Block,
    tables: *const f32,
    out: *mut f32,
    feature_step: usize,
) {
    // Gather points 0, 1, 4, 5 into one vector and 2, 3, 6, 7 into the other, so that the
    // features' shuffle leaves them in point order.
    let order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    // SAFETY: every entry is at most the level's last one (see `cells`).
    unsafe {
        let pairs = tables.add(2 * c.offset).cast::<i64>();
        let (mut f0, mut f1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        for corner in 0..1 << D {
            let e = _mm256_loadu_si256(block.entries[corner].as_ptr().cast());
            let e = _mm256_permutevar8x32_epi32(e, order);
            let lo = _mm256_i32gather_epi64::<8>(pairs, _mm256_castsi256_si128(e));
            let hi = _mm256_i32gather_epi64::<8>(pairs, _mm256_extracti128_si256::<1>(e));
            let (lo, hi) = (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi));
            let w = _mm256_loadu_ps(block.weights[corner].as_ptr());
            f0 = _mm256_add_ps(f0, _mm256_mul_ps(w, _mm256_shuffle_ps::<0x88>(lo, hi)));
            f1 = _mm256_add_ps(f1, _mm256_mul_ps(w, _mm256_shuffle_ps::<0xDD>(lo, hi)));
        }
        _mm256_storeu_ps(out, f0);
        _mm256_storeu_ps(out.add(feature_step), f1);
    }
}
