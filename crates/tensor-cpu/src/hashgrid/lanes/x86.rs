//! [`GridLanes`] for AVX2 (the AVX-512 path runs it too): one 8-lane register per vector,
//! hardware gathers.

use super::{GridLanes, LANES};
use crate::simd::vector::Avx2;
use std::arch::x86_64::*;

impl GridLanes for Avx2 {
    type U = __m256i;

    #[inline(always)]
    unsafe fn splat_u(v: u32) -> __m256i {
        // SAFETY: the caller runs this on a CPU with AVX2.
        unsafe { _mm256_set1_epi32(v as i32) }
    }
    #[inline(always)]
    unsafe fn coords<const D: usize>(x: *const f32) -> [Avx2; 3] {
        // SAFETY: the caller guarantees `8 D` readable values at `x`.
        unsafe {
            let mut out = [_mm256_setzero_ps(); 3];
            match D {
                1 => out[0] = _mm256_loadu_ps(x),
                2 => {
                    let (lo, hi) = (_mm256_loadu_ps(x), _mm256_loadu_ps(x.add(8)));
                    // [x0 x1 x4 x5 | x2 x3 x6 x7] per axis, then into point order.
                    let order = |mixed: __m256| {
                        let pd = _mm256_permute4x64_pd::<0xD8>(_mm256_castps_pd(mixed));
                        _mm256_castpd_ps(pd)
                    };
                    out[0] = order(_mm256_shuffle_ps::<0x88>(lo, hi));
                    out[1] = order(_mm256_shuffle_ps::<0xDD>(lo, hi));
                }
                _ => {
                    let idx = _mm256_mullo_epi32(
                        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                        _mm256_set1_epi32(D as i32),
                    );
                    for (k, o) in out.iter_mut().enumerate().take(D) {
                        *o = _mm256_i32gather_ps::<4>(x.add(k), idx);
                    }
                }
            }
            out.map(Avx2)
        }
    }
    #[inline(always)]
    unsafe fn clamp01(self) -> Avx2 {
        // SAFETY: the caller runs this on a CPU with AVX2. `max(a, b)` and `min(a, b)`
        // return `b` unless `a` is strictly beyond it, as `f32::clamp` does.
        unsafe {
            let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
            Avx2(_mm256_min_ps(one, _mm256_max_ps(zero, self.0)))
        }
    }
    #[inline(always)]
    unsafe fn sub(self, b: Avx2) -> Avx2 {
        // SAFETY: as above.
        unsafe { Avx2(_mm256_sub_ps(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn cell_index(self, last: __m256i) -> __m256i {
        // SAFETY: as above. Truncation gives INT_MIN for NaN and values beyond i32, and
        // negative values only for inputs below 0: the max with 0 then gives 0, as `as u32`.
        unsafe {
            let i = _mm256_max_epi32(_mm256_cvttps_epi32(self.0), _mm256_setzero_si256());
            _mm256_min_epu32(i, last)
        }
    }
    #[inline(always)]
    unsafe fn to_f32(i: __m256i) -> Avx2 {
        // SAFETY: as above.
        unsafe { Avx2(_mm256_cvtepi32_ps(i)) }
    }
    #[inline(always)]
    unsafe fn add_u(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_add_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn mul_u(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_mullo_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn xor_u(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn and_u(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn min_u(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_min_epu32(a, b) }
    }
    #[inline(always)]
    unsafe fn store_u(v: __m256i, out: &mut [u32; LANES]) {
        // SAFETY: `out` holds 8 values.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    unsafe fn gather_pairs(pairs: *const f32, entries: &[u32; LANES]) -> (Avx2, Avx2) {
        // SAFETY: the caller guarantees each pair readable. Points 0, 1, 4, 5 are gathered
        // into one register and 2, 3, 6, 7 into the other, so that the shuffles that split
        // the two values leave them in point order.
        unsafe {
            let pairs = pairs.cast::<i64>();
            let e = _mm256_loadu_si256(entries.as_ptr().cast());
            let e = _mm256_permutevar8x32_epi32(e, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
            let lo = _mm256_i32gather_epi64::<8>(pairs, _mm256_castsi256_si128(e));
            let hi = _mm256_i32gather_epi64::<8>(pairs, _mm256_extracti128_si256::<1>(e));
            let (lo, hi) = (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi));
            (
                Avx2(_mm256_shuffle_ps::<0x88>(lo, hi)),
                Avx2(_mm256_shuffle_ps::<0xDD>(lo, hi)),
            )
        }
    }
    #[inline(always)]
    unsafe fn add_two_corners(dst: *mut f32, w0: f32, w1: f32, g: [f32; 2]) {
        // SAFETY: the caller guarantees 4 writable values.
        unsafe {
            let gg = _mm_setr_ps(g[0], g[1], g[0], g[1]);
            let w = _mm_setr_ps(w0, w0, w1, w1);
            _mm_storeu_ps(dst, _mm_add_ps(_mm_loadu_ps(dst), _mm_mul_ps(w, gg)));
        }
    }
}
