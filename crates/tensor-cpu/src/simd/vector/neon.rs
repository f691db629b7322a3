//! [`F32s`] for aarch64 Advanced SIMD: two 4-lane registers used as one of 8 lanes, so the
//! kernels keep the tile shapes (and the order of every sum) of the 8-lane AVX2 path with
//! NEON's 32 registers.

use super::{F32s, Lanes8};
use std::arch::aarch64::*;

/// 8 lanes in two NEON registers.
#[derive(Clone, Copy)]
pub(crate) struct Neon(pub(crate) float32x4_t, pub(crate) float32x4_t);

impl F32s for Neon {
    const LANES: usize = 8;
    const MAX_NV: usize = 2;
    // 32 registers of 4 lanes: tiles of 12 pairs, as the 8-lane AVX2 path.
    const FULL_ROWS: [usize; 5] = [0, 12, 6, 0, 0];
    type Mask = usize;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let z = vdupq_n_f32(0.0);
            Neon(z, z)
        }
    }
    #[inline(always)]
    unsafe fn splat(v: f32) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let s = vdupq_n_f32(v);
            Neon(s, s)
        }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller guarantees 8 readable values.
        unsafe { Neon(vld1q_f32(p), vld1q_f32(p.add(4))) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the caller guarantees 8 writable values.
        unsafe {
            vst1q_f32(p, self.0);
            vst1q_f32(p.add(4), self.1);
        }
    }
    #[inline(always)]
    unsafe fn first(n: usize) -> usize {
        n.min(8)
    }
    #[inline(always)]
    unsafe fn load_part(p: *const f32, n: usize) -> Self {
        let mut buf = [0f32; 8];
        // SAFETY: the caller guarantees the first `n` values readable.
        unsafe {
            std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), n);
            Self::load(buf.as_ptr())
        }
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut f32, n: usize) {
        let mut buf = [0f32; 8];
        // SAFETY: the caller guarantees the first `n` values writable.
        unsafe {
            self.store(buf.as_mut_ptr());
            std::ptr::copy_nonoverlapping(buf.as_ptr(), p, n);
        }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Neon(vaddq_f32(self.0, b.0), vaddq_f32(self.1, b.1)) }
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Neon(vmulq_f32(self.0, b.0), vmulq_f32(self.1, b.1)) }
    }
    #[inline(always)]
    unsafe fn mul_add(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe { Neon(vfmaq_f32(c.0, self.0, b.0), vfmaq_f32(c.1, self.1, b.1)) }
    }
    #[inline(always)]
    unsafe fn relu(self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let z = vdupq_n_f32(0.0);
            let half = |v: float32x4_t| vbslq_f32(vcltq_f32(v, z), z, v);
            Neon(half(self.0), half(self.1))
        }
    }
    #[inline(always)]
    unsafe fn mul_relu_grad(self, at: Self) -> Self {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            let (z, one) = (vdupq_n_f32(0.0), vdupq_n_f32(1.0));
            let d = |a: float32x4_t| vbslq_f32(vcgtq_f32(a, z), one, z);
            Neon(vmulq_f32(self.0, d(at.0)), vmulq_f32(self.1, d(at.1)))
        }
    }
}

impl Lanes8 for Neon {
    #[inline(always)]
    unsafe fn lane_sums(v: &[Self; 4]) -> [f32; 4] {
        // SAFETY: the caller runs this on a CPU with the instructions.
        unsafe {
            // Pairwise adds of the low halves give ((l0 + l1) + (l2 + l3)) per vector, of the
            // high halves ((l4 + l5) + (l6 + l7)); then one add, as the AVX2 tree.
            let lo = vpaddq_f32(vpaddq_f32(v[0].0, v[1].0), vpaddq_f32(v[2].0, v[3].0));
            let hi = vpaddq_f32(vpaddq_f32(v[0].1, v[1].1), vpaddq_f32(v[2].1, v[3].1));
            let mut out = [0f32; 4];
            // `out` holds 4 values.
            vst1q_f32(out.as_mut_ptr(), vaddq_f32(lo, hi));
            out
        }
    }
    #[inline(always)]
    unsafe fn transpose_square(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
        // SAFETY: the caller guarantees 8 rows of 8 values on each side; every aarch64 CPU
        // has NEON.
        unsafe {
            for (bi, bj) in [(0, 0), (0, 4), (4, 0), (4, 4)] {
                let r: [float32x4_t; 4] =
                    std::array::from_fn(|i| vld1q_f32(src.add((bi + i) * ss + bj)));
                // [a0 b0 a2 b2], [a1 b1 a3 b3], [c0 d0 c2 d2], [c1 d1 c3 d3].
                let t0 = vreinterpretq_f64_f32(vtrn1q_f32(r[0], r[1]));
                let t1 = vreinterpretq_f64_f32(vtrn2q_f32(r[0], r[1]));
                let t2 = vreinterpretq_f64_f32(vtrn1q_f32(r[2], r[3]));
                let t3 = vreinterpretq_f64_f32(vtrn2q_f32(r[2], r[3]));
                let out = [
                    vtrn1q_f64(t0, t2),
                    vtrn1q_f64(t1, t3),
                    vtrn2q_f64(t0, t2),
                    vtrn2q_f64(t1, t3),
                ];
                for (k, v) in out.into_iter().enumerate() {
                    vst1q_f32(dst.add((bj + k) * ds + bi), vreinterpretq_f32_f64(v));
                }
            }
        }
    }
}
