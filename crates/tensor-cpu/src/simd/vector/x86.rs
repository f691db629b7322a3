//! [`F32s`] for AVX2 and AVX-512.

use super::{F32s, Lanes8};
use std::arch::x86_64::*;

/// 8 lanes, AVX2 and FMA.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(pub(crate) __m256);

/// 16 lanes, AVX-512F.
#[derive(Clone, Copy)]
pub(crate) struct Avx512(pub(crate) __m512);

impl F32s for Avx2 {
    const LANES: usize = 8;
    const MAX_NV: usize = 2;
    // 16 registers: tiles of 12 accumulators.
    const FULL_ROWS: [usize; 5] = [0, 12, 6, 0, 0];
    type Mask = __m256i;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx2(_mm256_setzero_ps()) }
    }
    #[inline(always)]
    unsafe fn splat(v: f32) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx2(_mm256_set1_ps(v)) }
    }
    #[inline(always)]
    unsafe fn load_splat(p: *const f32) -> Self {
        // SAFETY: the caller guarantees `p` readable.
        unsafe { Avx2(_mm256_broadcast_ss(&*p)) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller guarantees 8 readable values.
        unsafe { Avx2(_mm256_loadu_ps(p)) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the caller guarantees 8 writable values.
        unsafe { _mm256_storeu_ps(p, self.0) }
    }
    #[inline(always)]
    unsafe fn first(n: usize) -> __m256i {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), idx)
        }
    }
    #[inline(always)]
    unsafe fn load_part(p: *const f32, m: __m256i) -> Self {
        // SAFETY: the caller guarantees the masked lanes readable.
        unsafe { Avx2(_mm256_maskload_ps(p, m)) }
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut f32, m: __m256i) {
        // SAFETY: the caller guarantees the masked lanes writable.
        unsafe { _mm256_maskstore_ps(p, m, self.0) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx2(_mm256_add_ps(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx2(_mm256_mul_ps(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn mul_add(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx2(_mm256_fmadd_ps(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    unsafe fn relu(self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let below = _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, _mm256_setzero_ps());
            Avx2(_mm256_andnot_ps(below, self.0))
        }
    }
    #[inline(always)]
    unsafe fn mul_relu_grad(self, at: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let above = _mm256_cmp_ps::<_CMP_GT_OQ>(at.0, _mm256_setzero_ps());
            Avx2(_mm256_mul_ps(
                self.0,
                _mm256_and_ps(above, _mm256_set1_ps(1.0)),
            ))
        }
    }
}

impl Lanes8 for Avx2 {
    #[inline(always)]
    unsafe fn lane_sums(v: &[Self; 4]) -> [f32; 4] {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let h01 = _mm256_hadd_ps(v[0].0, v[1].0);
            let h23 = _mm256_hadd_ps(v[2].0, v[3].0);
            let h = _mm256_hadd_ps(h01, h23);
            let sums = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps::<1>(h));
            let mut out = [0f32; 4];
            // `out` holds 4 values.
            _mm_storeu_ps(out.as_mut_ptr(), sums);
            out
        }
    }
    #[inline(always)]
    unsafe fn transpose_square(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
        // SAFETY: the caller guarantees AVX2 and 8 rows of 8 values on each side.
        unsafe {
            let r: [__m256; 8] = std::array::from_fn(|i| _mm256_loadu_ps(src.add(i * ss)));
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let out = [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ];
            for (i, v) in out.iter().enumerate() {
                _mm256_storeu_ps(dst.add(i * ds), *v);
            }
        }
    }
}

impl F32s for Avx512 {
    const LANES: usize = 16;
    const MAX_NV: usize = 4;
    // 32 registers: tiles of up to 24 accumulators.
    const FULL_ROWS: [usize; 5] = [0, 12, 10, 8, 6];
    type Mask = __mmask16;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx512(_mm512_setzero_ps()) }
    }
    #[inline(always)]
    unsafe fn splat(v: f32) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx512(_mm512_set1_ps(v)) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller guarantees 16 readable values.
        unsafe { Avx512(_mm512_loadu_ps(p)) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the caller guarantees 16 writable values.
        unsafe { _mm512_storeu_ps(p, self.0) }
    }
    #[inline(always)]
    unsafe fn first(n: usize) -> __mmask16 {
        ((1u32 << n.min(16)) - 1) as __mmask16
    }
    #[inline(always)]
    unsafe fn load_part(p: *const f32, m: __mmask16) -> Self {
        // SAFETY: the caller guarantees the masked lanes readable.
        unsafe { Avx512(_mm512_maskz_loadu_ps(m, p)) }
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut f32, m: __mmask16) {
        // SAFETY: the caller guarantees the masked lanes writable.
        unsafe { _mm512_mask_storeu_ps(p, m, self.0) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx512(_mm512_add_ps(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx512(_mm512_mul_ps(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn mul_add(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Avx512(_mm512_fmadd_ps(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    unsafe fn relu(self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, _mm512_setzero_ps());
            Avx512(_mm512_maskz_mov_ps(!below, self.0))
        }
    }
    #[inline(always)]
    unsafe fn mul_relu_grad(self, at: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let above = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(at.0, _mm512_setzero_ps());
            let d = _mm512_maskz_mov_ps(above, _mm512_set1_ps(1.0));
            Avx512(_mm512_mul_ps(self.0, d))
        }
    }
}
