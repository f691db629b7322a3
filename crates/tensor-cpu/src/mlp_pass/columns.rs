//! Column sums of a tile (the bias gradients): each column's running sum held in a vector
//! register across the rows, rather than loaded and stored back for every row.

use crate::simd::vector::Lanes8;

/// `out[j] += rows[r * out.len() + j]` for every row `r` in order, `j < out.len()`: the
/// same additions, in the same order, as the plain loop.
pub(super) fn add_rows(rows: &[f32], out: &mut [f32]) {
    let w = out.len();
    if w == 0 {
        return;
    }
    debug_assert_eq!(rows.len() % w, 0);
    match w {
        8 => add_rows_vectors::<1>(rows, out),
        16 => add_rows_vectors::<2>(rows, out),
        24 => add_rows_vectors::<3>(rows, out),
        32 => add_rows_vectors::<4>(rows, out),
        40 => add_rows_vectors::<5>(rows, out),
        48 => add_rows_vectors::<6>(rows, out),
        56 => add_rows_vectors::<7>(rows, out),
        64 => add_rows_vectors::<8>(rows, out),
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
unsafe fn add_rows_v<V: Lanes8, const NV: usize>(rows: &[f32], out: &mut [f32]) {
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

crate::simd::multiversion! {
    /// [`add_rows`] for `out` of `8 NV` columns on the path that runs.
    fn add_rows_vectors[const NV](rows: &[f32], out: &mut [f32]);
    avx512 uses avx2, V => add_rows_v::<V, NV>(rows, out);
    otherwise => plain(rows, out);
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
