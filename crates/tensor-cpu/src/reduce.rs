//! Reductions over the middle axis of an `outer x len x inner` view.
//!
//! Sums accumulate in f64 over fixed-size chunks whose partial results are added in order,
//! so results do not depend on the number of threads. Extremes follow PyTorch: a NaN is
//! the max and the min, and argmax and argmin point at the first one.

use rayon::prelude::*;
use tensor_core::check::{buffer_len, elements};
use tensor_core::{Error, ReduceOp, Result};

/// Rows of the reduced axis handled by one parallel task.
const LEN_CHUNK: usize = 1024;

pub(crate) fn reduce(
    op: ReduceOp,
    x: &[f32],
    outer: usize,
    len: usize,
    inner: usize,
    out: &mut [f32],
) -> Result<()> {
    let out_len = elements("reduce", outer, inner)?;
    buffer_len("reduce", "x", x.len(), elements("reduce", out_len, len)?)?;
    buffer_len("reduce", "out", out.len(), out_len)?;
    if out.is_empty() {
        return Ok(());
    }
    if len == 0 {
        let value = match op {
            ReduceOp::Sum => 0.0,
            ReduceOp::Mean => f32::NAN,
            _ => {
                return Err(Error::InvalidArgument {
                    op: "reduce",
                    reason: format!("{op:?} of an empty axis is undefined"),
                });
            }
        };
        out.fill(value);
        return Ok(());
    }
    let slab = len * inner;
    let work = |(o, out): (usize, &mut [f32])| {
        let x = &x[o * slab..(o + 1) * slab];
        match op {
            ReduceOp::Sum | ReduceOp::Mean => {
                let sums = sum_slab(x, len, inner);
                let scale = if op == ReduceOp::Mean {
                    1.0 / len as f64
                } else {
                    1.0
                };
                out.iter_mut()
                    .zip(sums)
                    .for_each(|(o, s)| *o = (s * scale) as f32);
            }
            _ => extreme_slab(op, x, len, inner, out),
        }
    };
    if outer > 1 && x.len() >= crate::parallel::PAR_THRESHOLD {
        out.par_chunks_mut(inner).enumerate().for_each(work);
    } else {
        out.chunks_mut(inner).enumerate().for_each(work);
    }
    Ok(())
}

/// Column sums of a `len x inner` slab, in f64.
fn sum_slab(x: &[f32], len: usize, inner: usize) -> Vec<f64> {
    let partial = |rows: &[f32]| {
        let mut acc = vec![0f64; inner];
        for row in rows.chunks_exact(inner) {
            acc.iter_mut().zip(row).for_each(|(a, &v)| *a += v as f64);
        }
        acc
    };
    if len * inner < crate::parallel::PAR_THRESHOLD || len <= LEN_CHUNK {
        return partial(x);
    }
    let partials: Vec<Vec<f64>> = x.par_chunks(LEN_CHUNK * inner).map(partial).collect();
    let mut total = vec![0f64; inner];
    for p in partials {
        total.iter_mut().zip(p).for_each(|(t, v)| *t += v);
    }
    total
}

/// Max, min, argmax or argmin of each column of a `len x inner` slab (`len > 0`): the first
/// extreme, or the first NaN.
fn extreme_slab(op: ReduceOp, x: &[f32], len: usize, inner: usize, out: &mut [f32]) {
    let wants_max = matches!(op, ReduceOp::Max | ReduceOp::ArgMax);
    let mut best: Vec<f32> = x[..inner].to_vec();
    let mut at = vec![0usize; inner];
    for l in 1..len {
        let row = &x[l * inner..(l + 1) * inner];
        for c in 0..inner {
            let (v, b) = (row[c], best[c]);
            let better = if wants_max { v > b } else { v < b } || (v.is_nan() && !b.is_nan());
            if better {
                best[c] = row[c];
                at[c] = l;
            }
        }
    }
    match op {
        ReduceOp::ArgMax | ReduceOp::ArgMin => {
            out.iter_mut().zip(at).for_each(|(o, i)| *o = i as f32)
        }
        _ => out.copy_from_slice(&best),
    }
}
