//! Transposing a block between a tile and the feature-major matrices of a whole batch, in
//! 8 x 8 squares (held in registers on the AVX2 and AVX-512 paths, moved one value at a
//! time on the others: the copy is exact either way).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

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
    let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
    let square = square_for(crate::simd::active());
    // SAFETY: every index below is inside the blocks the caller vouches for.
    unsafe {
        let at = |r: usize, c: usize| {
            square(
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
type Square = unsafe fn(*const f32, usize, *mut f32, usize);

/// The square transpose of `path`.
fn square_for(path: crate::simd::SimdPath) -> Square {
    match path {
        #[cfg(target_arch = "x86_64")]
        crate::simd::SimdPath::Avx2 | crate::simd::SimdPath::Avx512 => {
            // SAFETY: the path that runs is one the CPU has (AVX2); the caller of the
            // returned function vouches for the squares.
            |s, ss, d, ds| unsafe { square_avx2(s, ss, d, ds) }
        }
        _ => square_plain,
    }
}

/// One 8 x 8 square, one value at a time.
///
/// # Safety
/// 8 rows of 8 values on each side.
unsafe fn square_plain(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
    for i in 0..8 {
        for j in 0..8 {
            // SAFETY: inside the squares the caller vouches for.
            unsafe { *dst.add(j * ds + i) = *src.add(i * ss + j) };
        }
    }
}

/// One 8 x 8 square in AVX2 registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn square_avx2(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
    // SAFETY: the caller guarantees 8 rows of 8 values on each side.
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

#[cfg(test)]
mod tests {
    use super::transpose;

    #[test]
    fn matches_the_definition_for_ragged_blocks() {
        for (rows, cols) in [(1, 1), (8, 8), (13, 21), (32, 512), (509, 32), (7, 40)] {
            let (ss, ds) = (cols + 3, rows + 5);
            let src: Vec<f32> = (0..rows * ss).map(|i| i as f32 * 0.5 - 7.0).collect();
            let mut dst = vec![f32::NAN; cols * ds];
            // SAFETY: both blocks fit their buffers.
            unsafe { transpose(src.as_ptr(), ss, dst.as_mut_ptr(), ds, rows, cols) };
            for r in 0..rows {
                for c in 0..cols {
                    assert_eq!(
                        dst[c * ds + r],
                        src[r * ss + c],
                        "({r}, {c}) of {rows} x {cols}"
                    );
                }
            }
        }
    }
}
