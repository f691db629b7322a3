//! Transposing a block between a tile and the feature-major matrices of a whole batch, in
//! 8 x 8 squares: the loop over squares is written once ([`squares`]) and compiled per path
//! with that path's square ([`Square`]): in AVX2 registers (also on AVX-512 CPUs), in four
//! 4 x 4 NEON blocks, or one value at a time on the scalar path. The copy is exact on
//! every path.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use crate::simd::SimdPath;

/// `dst` (`cols x rows`, row-major) = the transpose of `src` (`rows x cols`, row-major).
///
/// # Panics
/// When the buffers are not `rows * cols` long (the fused pass checks them before it
/// starts).
pub(super) fn transpose_matrix(src: &[f32], rows: usize, cols: usize, dst: &mut [f32]) {
    assert!(
        src.len() == rows * cols && dst.len() == rows * cols,
        "whole matrices"
    );
    // SAFETY: both buffers hold the whole matrix and are distinct borrows.
    unsafe { transpose(src.as_ptr(), cols, dst.as_mut_ptr(), rows, rows, cols) }
}

/// `dst[c * dst_stride + r] = src[r * src_stride + c]` for `r < rows`, `c < cols`.
///
/// # Safety
/// Both blocks must lie inside their buffers and not overlap.
pub(super) unsafe fn transpose(
    src: *const f32,
    src_stride: usize,
    dst: *mut f32,
    dst_stride: usize,
    rows: usize,
    cols: usize,
) {
    let path = crate::simd::active();
    // SAFETY: forwarded; the path that runs is one the CPU has.
    unsafe { transpose_on(path, src, src_stride, dst, dst_stride, rows, cols) }
}

/// [`transpose`] on `path`.
///
/// # Safety
/// As for [`transpose`]; the CPU must have `path`.
unsafe fn transpose_on(
    path: SimdPath,
    src: *const f32,
    ss: usize,
    dst: *mut f32,
    ds: usize,
    rows: usize,
    cols: usize,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match path {
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 | SimdPath::Avx512 => squares_avx2(src, ss, dst, ds, rows, cols),
            #[cfg(target_arch = "aarch64")]
            SimdPath::Neon => squares_neon(src, ss, dst, ds, rows, cols),
            _ => squares::<Plain>(src, ss, dst, ds, rows, cols),
        }
    }
}

#[cfg(target_arch = "x86_64")]
crate::simd::target_features! { avx2:
    /// [`squares`] with AVX2 squares.
    ///
    /// # Safety
    /// As for [`transpose`]; the CPU must have AVX2 and FMA.
    unsafe fn squares_avx2(
        s: *const f32,
        ss: usize,
        d: *mut f32,
        ds: usize,
        rows: usize,
        cols: usize,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { squares::<Avx2Square>(s, ss, d, ds, rows, cols) }
    }
}

#[cfg(target_arch = "aarch64")]
crate::simd::target_features! { neon:
    /// [`squares`] with NEON squares.
    ///
    /// # Safety
    /// As for [`transpose`].
    unsafe fn squares_neon(
        s: *const f32,
        ss: usize,
        d: *mut f32,
        ds: usize,
        rows: usize,
        cols: usize,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { squares::<NeonSquare>(s, ss, d, ds, rows, cols) }
    }
}

/// [`transpose`] with the whole 8 x 8 squares transposed by `S`, the edges one value at a
/// time.
///
/// # Safety
/// As for [`transpose`]; the CPU must run `S`.
#[inline(always)]
unsafe fn squares<S: Square>(
    src: *const f32,
    src_stride: usize,
    dst: *mut f32,
    dst_stride: usize,
    rows: usize,
    cols: usize,
) {
    let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
    // SAFETY: every index below is inside the blocks the caller vouches for.
    unsafe {
        let at = |r: usize, c: usize| {
            S::square(
                src.add(r * src_stride + c),
                src_stride,
                dst.add(c * dst_stride + r),
                dst_stride,
            )
        };
        if dst_stride > src_stride {
            // The destination's rows are the far-apart ones: fill 8 of them at a time, from
            // start to end, so that few write streams are open at once.
            for c in (0..c8).step_by(8) {
                for r in (0..r8).step_by(8) {
                    at(r, c);
                }
            }
        } else {
            for r in (0..r8).step_by(8) {
                for c in (0..c8).step_by(8) {
                    at(r, c);
                }
            }
        }
        for r in 0..rows {
            let from = if r < r8 { c8 } else { 0 };
            for c in from..cols {
                *dst.add(c * dst_stride + r) = *src.add(r * src_stride + c);
            }
        }
    }
}

/// Transposes one 8 x 8 square from `src` (rows `ss` apart) to `dst` (rows `ds` apart).
trait Square {
    /// The transpose of the square.
    ///
    /// # Safety
    /// The CPU must have the type's instructions; 8 rows of 8 values on each side.
    unsafe fn square(src: *const f32, ss: usize, dst: *mut f32, ds: usize);
}

/// One value at a time.
struct Plain;

impl Square for Plain {
    #[inline(always)]
    unsafe fn square(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
        for i in 0..8 {
            for j in 0..8 {
                // SAFETY: inside the squares the caller vouches for.
                unsafe { *dst.add(j * ds + i) = *src.add(i * ss + j) };
            }
        }
    }
}

/// In eight AVX2 registers.
#[cfg(target_arch = "x86_64")]
struct Avx2Square;

#[cfg(target_arch = "x86_64")]
impl Square for Avx2Square {
    #[inline(always)]
    unsafe fn square(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
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

/// In four 4 x 4 blocks of NEON registers.
#[cfg(target_arch = "aarch64")]
struct NeonSquare;

#[cfg(target_arch = "aarch64")]
impl Square for NeonSquare {
    #[inline(always)]
    unsafe fn square(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
        use std::arch::aarch64::*;
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

#[cfg(test)]
mod tests {
    use super::{SimdPath, transpose_on};

    #[test]
    fn every_path_matches_the_definition_for_ragged_blocks() {
        let paths = SimdPath::ALL.into_iter().filter(|p| p.supported());
        for (path, (rows, cols)) in paths.flat_map(|p| {
            [(1, 1), (8, 8), (13, 21), (32, 512), (509, 32), (7, 40)].map(|shape| (p, shape))
        }) {
            let (ss, ds) = (cols + 3, rows + 5);
            let src: Vec<f32> = (0..rows * ss).map(|i| i as f32 * 0.5 - 7.0).collect();
            let mut dst = vec![f32::NAN; cols * ds];
            // SAFETY: both blocks fit their buffers.
            unsafe { transpose_on(path, src.as_ptr(), ss, dst.as_mut_ptr(), ds, rows, cols) };
            for r in 0..rows {
                for c in 0..cols {
                    assert_eq!(
                        dst[c * ds + r],
                        src[r * ss + c],
                        "({r}, {c}) of {rows} x {cols} on {path}"
                    );
                }
            }
        }
    }
}
