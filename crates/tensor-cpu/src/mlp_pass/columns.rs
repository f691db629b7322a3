//! Column sums of a tile (the bias gradients): each column's running sum held in a vector
//! register across the rows, rather than loaded and stored back for every row.

use std::arch::x86_64::*;

/// `out[j] += rows[r * out.len() + j]` for every row `r` in order, `j < out.len()`: the
/// same additions, in the same order, as the plain loop.
pub(super) fn add_rows(rows: &[f32], out: &mut [f32]) {
    let w = out.len();
    if w == 0 {
        return;
    }
    debug_assert_eq!(rows.len() % w, 0);
    // SAFETY: the fused pass runs only where the CPU has AVX2 (each arm).
    unsafe {
        match w {
            8 => add_rows_v::<1>(rows, out),
            16 => add_rows_v::<2>(rows, out),
            24 => add_rows_v::<3>(rows, out),
            32 => add_rows_v::<4>(rows, out),
            40 => add_rows_v::<5>(rows, out),
            48 => add_rows_v::<6>(rows, out),
            56 => add_rows_v::<7>(rows, out),
            64 => add_rows_v::<8>(rows, out),
            _ => {
                for row in rows.chunks_exact(w) {
                    out.iter_mut().zip(row).for_each(|(s, v)| *s += v);
                }
            }
        }
    }
}

/// [`add_rows`] for `out` of `8 V` columns.
///
/// # Safety
/// The CPU must have AVX2; `out` must hold `8 V` values.
#[target_feature(enable = "avx2")]
unsafe fn add_rows_v<const V: usize>(rows: &[f32], out: &mut [f32]) {
    assert_eq!(out.len(), 8 * V, "a whole number of vectors");
    // SAFETY: `out` holds 8 V values and each row below as many.
    unsafe {
        let mut acc: [__m256; V] =
            std::array::from_fn(|v| _mm256_loadu_ps(out.as_ptr().add(8 * v)));
        for row in rows.chunks_exact(8 * V) {
            for (v, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_ps(*a, _mm256_loadu_ps(row.as_ptr().add(8 * v)));
            }
        }
        for (v, a) in acc.iter().enumerate() {
            _mm256_storeu_ps(out.as_mut_ptr().add(8 * v), *a);
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
