//! Column sums of a tile (the bias gradients): each column's running sum held in a vector
//! register across the rows, rather than loaded and stored back for every row.

use crate::simd::SimdPath;
use crate::simd::vector::F32s;

/// `out[j] += rows[r * out.len() + j]` for every row `r` in order, `j < out.len()`: the
/// same additions, in the same order, as the plain loop.
pub(super) fn add_rows(rows: &[f32], out: &mut [f32]) {
    let w = out.len();
    if w == 0 {
        return;
    }
    debug_assert_eq!(rows.len() % w, 0);
    let path = crate::simd::active();
    /// Runs the vector loop for `$v` registers of 8 lanes on the path that runs.
    macro_rules! vectors {
        ($v:literal) => {
            match path {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the path that runs is one the CPU has; `out` holds 8 `$v` values.
                SimdPath::Avx2 | SimdPath::Avx512 => unsafe { entry::avx2::<$v>(rows, out) },
                #[cfg(target_arch = "aarch64")]
                // SAFETY: as above.
                SimdPath::Neon => unsafe { entry::neon::<$v>(rows, out) },
                _ => plain(rows, out),
            }
        };
    }
    match w {
        8 => vectors!(1),
        16 => vectors!(2),
        24 => vectors!(3),
        32 => vectors!(4),
        40 => vectors!(5),
        48 => vectors!(6),
        56 => vectors!(7),
        64 => vectors!(8),
        _ => plain(rows, out),
    }
}

/// [`add_rows`], one value at a time.
fn plain(rows: &[f32], out: &mut [f32]) {
    for row in rows.chunks_exact(out.len()) {
        out.iter_mut().zip(row).for_each(|(s, v)| *s += v);
    }
}

/// [`add_rows`] for `out` of `8 NV` columns, each column's sum held in a register.
///
/// # Safety
/// The CPU must run `V` (8 lanes); `out` must hold `8 NV` values.
#[inline(always)]
unsafe fn add_rows_v<V: F32s, const NV: usize>(rows: &[f32], out: &mut [f32]) {
    assert!(
        V::LANES == 8 && out.len() == 8 * NV,
        "a whole number of vectors"
    );
    // SAFETY: `out` holds 8 NV values and each row below as many.
    unsafe {
        let mut acc: [V; NV] = std::array::from_fn(|v| V::load(out.as_ptr().add(8 * v)));
        for row in rows.chunks_exact(8 * NV) {
            for (v, a) in acc.iter_mut().enumerate() {
                *a = a.add(V::load(row.as_ptr().add(8 * v)));
            }
        }
        for (v, a) in acc.iter().enumerate() {
            a.store(out.as_mut_ptr().add(8 * v));
        }
    }
}

/// [`add_rows_v`] compiled for each path.
mod entry {
    #[cfg(target_arch = "x86_64")]
    crate::simd::target_features! { avx2:
        /// The AVX2 copy.
        ///
        /// # Safety
        /// The CPU must have AVX2 and FMA; as [`super::add_rows_v`].
        pub(super) unsafe fn avx2<const NV: usize>(rows: &[f32], out: &mut [f32]) {
            // SAFETY: forwarded.
            unsafe { super::add_rows_v::<crate::simd::vector::Avx2, NV>(rows, out) }
        }
    }

    #[cfg(target_arch = "aarch64")]
    crate::simd::target_features! { neon:
        /// The NEON copy.
        ///
        /// # Safety
        /// As [`super::add_rows_v`].
        pub(super) unsafe fn neon<const NV: usize>(rows: &[f32], out: &mut [f32]) {
            // SAFETY: forwarded.
            unsafe { super::add_rows_v::<crate::simd::vector::Neon, NV>(rows, out) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_every_row_in_order_like_the_plain_loop() {
        if !crate::skinny::available() {
            return;
        }
        for w in [1, 3, 8, 16, 24, 40, 56, 64] {
            let rows: Vec<f32> = (0..37 * w)
                .map(|i| ((i * 7919) % 101) as f32 * 0.37 - 17.0)
                .collect();
            let mut fast: Vec<f32> = (0..w).map(|j| j as f32 * 1e-3).collect();
            let mut plain = fast.clone();
            add_rows(&rows, &mut fast);
            for row in rows.chunks_exact(w) {
                plain.iter_mut().zip(row).for_each(|(s, v)| *s += v);
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast), bits(&plain), "width {w}");
            let direct: f64 = rows.iter().step_by(w).map(|&v| v as f64).sum();
            assert!((fast[0] as f64 - direct).abs() < 1e-2, "width {w}");
        }
    }
}
