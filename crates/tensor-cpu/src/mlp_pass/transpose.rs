//! Transposing a block between a tile and the feature-major matrices of a whole batch, in
//! 8 x 8 squares: the loop over squares is written once ([`squares`]) and compiled per path
//! with that path's square ([`Lanes8::transpose_square`]): in AVX2 registers (also on AVX-512
//! CPUs), in four 4 x 4 NEON blocks, or one value at a time on the scalar path. The copy is
//! exact on every path.

use crate::simd::vector::Lanes8;

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

crate::simd::multiversion! {
    /// [`transpose`] on `path`.
    unsafe fn transpose_on(
        src: *const f32,
        ss: usize,
        dst: *mut f32,
        ds: usize,
        rows: usize,
        cols: usize,
    );
    avx512 uses avx2, V => squares(
        // SAFETY: `squares` passes squares inside the blocks the caller vouches for.
        |s, ss, d, ds| unsafe { V::transpose_square(s, ss, d, ds) },
        src, ss, dst, ds, rows, cols,
    );
    otherwise => squares(
        // SAFETY: as above.
        |s, ss, d, ds| unsafe { plain_square(s, ss, d, ds) },
        src, ss, dst, ds, rows, cols,
    );
}

/// [`transpose`] with the whole 8 x 8 squares transposed by `square` (which is given
/// squares inside the blocks), the edges one value at a time.
///
/// # Safety
/// As for [`transpose`].
#[inline(always)]
unsafe fn squares(
    square: impl Fn(*const f32, usize, *mut f32, usize),
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

/// Transposes one 8 x 8 square from `src` (rows `ss` apart) to `dst` (rows `ds` apart), one
/// value at a time.
///
/// # Safety
/// 8 rows of 8 values on each side.
unsafe fn plain_square(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
    for i in 0..8 {
        for j in 0..8 {
            // SAFETY: inside the squares the caller vouches for.
            unsafe { *dst.add(j * ds + i) = *src.add(i * ss + j) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::transpose_on;
    use crate::simd::SimdPath;

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
