//! [`GridLanes`] for aarch64 Advanced SIMD: each 8-lane vector is a pair of 4-lane
//! registers; coordinates are split by the de-interleaving loads and table rows gathered
//! one 2-value load per point (NEON has no gather instruction).

use super::{GridLanes, LANES};
use crate::simd::vector::Neon;
use std::arch::aarch64::*;

/// 8 lanes of `u32`: points 0-3, then 4-7.
#[derive(Clone, Copy)]
pub(in crate::hashgrid) struct U8(uint32x4_t, uint32x4_t);

/// `$op` on both halves of the operands.
macro_rules! halves {
    ($wrap:ident, $op:ident, $a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        $wrap($op(a.0, b.0), $op(a.1, b.1))
    }};
}

impl GridLanes for Neon {
    type U = U8;

    #[inline(always)]
    unsafe fn splat_u(v: u32) -> U8 {
        // SAFETY: every aarch64 CPU has NEON.
        unsafe { U8(vdupq_n_u32(v), vdupq_n_u32(v)) }
    }
    #[inline(always)]
    unsafe fn coords<const D: usize>(x: *const f32) -> [Neon; 3] {
        // SAFETY: the caller guarantees `8 D` readable values at `x`; each load below
        // reads `4 D` of them.
        unsafe {
            let z = vdupq_n_f32(0.0);
            match D {
                1 => [
                    Neon(vld1q_f32(x), vld1q_f32(x.add(4))),
                    Neon(z, z),
                    Neon(z, z),
                ],
                2 => {
                    let (a, b) = (vld2q_f32(x), vld2q_f32(x.add(8)));
                    [Neon(a.0, b.0), Neon(a.1, b.1), Neon(z, z)]
                }
                _ => {
                    let (a, b) = (vld3q_f32(x), vld3q_f32(x.add(12)));
                    [Neon(a.0, b.0), Neon(a.1, b.1), Neon(a.2, b.2)]
                }
            }
        }
    }
    #[inline(always)]
    unsafe fn clamp01(self) -> Neon {
        // SAFETY: every aarch64 CPU has NEON. Compare and select, as `f32::clamp`: a
        // comparison with NaN is false, so NaN stays, and `-0.0 < 0.0` is false, so `-0.0`
        // stays.
        unsafe {
            let (zero, one) = (vdupq_n_f32(0.0), vdupq_n_f32(1.0));
            let half = |v: float32x4_t| {
                let v = vbslq_f32(vcltq_f32(v, zero), zero, v);
                vbslq_f32(vcgtq_f32(v, one), one, v)
            };
            Neon(half(self.0), half(self.1))
        }
    }
    #[inline(always)]
    unsafe fn sub(self, b: Neon) -> Neon {
        // SAFETY: as above.
        unsafe { halves!(Neon, vsubq_f32, self, b) }
    }
    #[inline(always)]
    unsafe fn cell_index(self, last: U8) -> U8 {
        // SAFETY: as above. The conversion truncates and saturates as `as u32` does (NaN
        // and negative values give 0).
        unsafe {
            let i = U8(vcvtq_u32_f32(self.0), vcvtq_u32_f32(self.1));
            halves!(U8, vminq_u32, i, last)
        }
    }
    #[inline(always)]
    unsafe fn to_f32(i: U8) -> Neon {
        // SAFETY: as above.
        unsafe { Neon(vcvtq_f32_u32(i.0), vcvtq_f32_u32(i.1)) }
    }
    #[inline(always)]
    unsafe fn add_u(a: U8, b: U8) -> U8 {
        // SAFETY: as above.
        unsafe { halves!(U8, vaddq_u32, a, b) }
    }
    #[inline(always)]
    unsafe fn mul_u(a: U8, b: U8) -> U8 {
        // SAFETY: as above.
        unsafe { halves!(U8, vmulq_u32, a, b) }
    }
    #[inline(always)]
    unsafe fn xor_u(a: U8, b: U8) -> U8 {
        // SAFETY: as above.
        unsafe { halves!(U8, veorq_u32, a, b) }
    }
    #[inline(always)]
    unsafe fn and_u(a: U8, b: U8) -> U8 {
        // SAFETY: as above.
        unsafe { halves!(U8, vandq_u32, a, b) }
    }
    #[inline(always)]
    unsafe fn min_u(a: U8, b: U8) -> U8 {
        // SAFETY: as above.
        unsafe { halves!(U8, vminq_u32, a, b) }
    }
    #[inline(always)]
    unsafe fn store_u(v: U8, out: &mut [u32; LANES]) {
        // SAFETY: `out` holds 8 values.
        unsafe {
            vst1q_u32(out.as_mut_ptr(), v.0);
            vst1q_u32(out.as_mut_ptr().add(4), v.1);
        }
    }
    #[inline(always)]
    unsafe fn gather_pairs(pairs: *const f32, entries: &[u32; LANES]) -> (Neon, Neon) {
        // SAFETY: the caller guarantees each pair readable.
        unsafe {
            let pair = |i: usize| vld1_f32(pairs.add(2 * entries[i] as usize));
            // [a0 a1 b0 b1] for points i and i + 1.
            let two = |i: usize| vcombine_f32(pair(i), pair(i + 1));
            let (q0, q1, q2, q3) = (two(0), two(2), two(4), two(6));
            (
                Neon(vuzp1q_f32(q0, q1), vuzp1q_f32(q2, q3)),
                Neon(vuzp2q_f32(q0, q1), vuzp2q_f32(q2, q3)),
            )
        }
    }
    #[inline(always)]
    unsafe fn add_two_corners(dst: *mut f32, w0: f32, w1: f32, g: [f32; 2]) {
        // SAFETY: the caller guarantees 4 writable values.
        unsafe {
            let g2 = vld1_f32(g.as_ptr());
            let gg = vcombine_f32(g2, g2);
            let w = vcombine_f32(vdup_n_f32(w0), vdup_n_f32(w1));
            vst1q_f32(dst, vaddq_f32(vld1q_f32(dst), vmulq_f32(w, gg)));
        }
    }
}
