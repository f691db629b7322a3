//! [`GridLanes`] for aarch64 Advanced SIMD: each 8-lane vector is a pair of 4-lane
//! registers; coordinates are split by the de-interleaving loads and table rows gathered
//! one 2-value load per point (NEON has no gather instruction).

use super::{GridLanes, LANES};
use std::arch::aarch64::*;

/// The NEON instructions (every aarch64 CPU has them).
pub(in crate::hashgrid) struct NeonGrid;

/// 8 lanes of `f32`: points 0-3, then 4-7.
#[derive(Clone, Copy)]
pub(in crate::hashgrid) struct F8(float32x4_t, float32x4_t);

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

impl GridLanes for NeonGrid {
    type F = F8;
    type U = U8;

    #[inline(always)]
    unsafe fn splat(v: f32) -> F8 {
        // SAFETY: every aarch64 CPU has NEON.
        unsafe { F8(vdupq_n_f32(v), vdupq_n_f32(v)) }
    }
    #[inline(always)]
    unsafe fn splat_u(v: u32) -> U8 {
        // SAFETY: as above.
        unsafe { U8(vdupq_n_u32(v), vdupq_n_u32(v)) }
    }
    #[inline(always)]
    unsafe fn coords<const D: usize>(x: *const f32) -> [F8; 3] {
        // SAFETY: the caller guarantees `8 D` readable values at `x`; each load below
        // reads `4 D` of them.
        unsafe {
            let z = vdupq_n_f32(0.0);
            match D {
                1 => [F8(vld1q_f32(x), vld1q_f32(x.add(4))), F8(z, z), F8(z, z)],
                2 => {
                    let (a, b) = (vld2q_f32(x), vld2q_f32(x.add(8)));
                    [F8(a.0, b.0), F8(a.1, b.1), F8(z, z)]
                }
                _ => {
                    let (a, b) = (vld3q_f32(x), vld3q_f32(x.add(12)));
                    [F8(a.0, b.0), F8(a.1, b.1), F8(a.2, b.2)]
                }
            }
        }
    }
    #[inline(always)]
    unsafe fn clamp01(x: F8) -> F8 {
        // SAFETY: as above. Compare and select, as `f32::clamp`: a comparison with NaN is
        // false, so NaN stays, and `-0.0 < 0.0` is false, so `-0.0` stays.
        unsafe {
            let (zero, one) = (vdupq_n_f32(0.0), vdupq_n_f32(1.0));
            let half = |v: float32x4_t| {
                let v = vbslq_f32(vcltq_f32(v, zero), zero, v);
                vbslq_f32(vcgtq_f32(v, one), one, v)
            };
            F8(half(x.0), half(x.1))
        }
    }
    #[inline(always)]
    unsafe fn mul(a: F8, b: F8) -> F8 {
        // SAFETY: as above.
        unsafe { halves!(F8, vmulq_f32, a, b) }
    }
    #[inline(always)]
    unsafe fn add(a: F8, b: F8) -> F8 {
        // SAFETY: as above.
        unsafe { halves!(F8, vaddq_f32, a, b) }
    }
    #[inline(always)]
    unsafe fn sub(a: F8, b: F8) -> F8 {
        // SAFETY: as above.
        unsafe { halves!(F8, vsubq_f32, a, b) }
    }
    #[inline(always)]
    unsafe fn cell_index(p: F8, last: U8) -> U8 {
        // SAFETY: as above. The conversion truncates and saturates as `as u32` does (NaN
        // and negative values give 0).
        unsafe {
            let i = U8(vcvtq_u32_f32(p.0), vcvtq_u32_f32(p.1));
            halves!(U8, vminq_u32, i, last)
        }
    }
    #[inline(always)]
    unsafe fn to_f32(i: U8) -> F8 {
        // SAFETY: as above.
        unsafe { F8(vcvtq_f32_u32(i.0), vcvtq_f32_u32(i.1)) }
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
    unsafe fn store(v: F8, out: *mut f32) {
        // SAFETY: the caller guarantees 8 writable values.
        unsafe {
            vst1q_f32(out, v.0);
            vst1q_f32(out.add(4), v.1);
        }
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
    unsafe fn load(p: *const f32) -> F8 {
        // SAFETY: the caller guarantees 8 readable values.
        unsafe { F8(vld1q_f32(p), vld1q_f32(p.add(4))) }
    }
    #[inline(always)]
    unsafe fn gather_pairs(pairs: *const f32, entries: &[u32; LANES]) -> (F8, F8) {
        // SAFETY: the caller guarantees each pair readable.
        unsafe {
            let pair = |i: usize| vld1_f32(pairs.add(2 * entries[i] as usize));
            // [a0 a1 b0 b1] for points i and i + 1.
            let two = |i: usize| vcombine_f32(pair(i), pair(i + 1));
            let (q0, q1, q2, q3) = (two(0), two(2), two(4), two(6));
            (
                F8(vuzp1q_f32(q0, q1), vuzp1q_f32(q2, q3)),
                F8(vuzp2q_f32(q0, q1), vuzp2q_f32(q2, q3)),
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
