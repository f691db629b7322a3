//! Matrix-vector products (`n == 1`): the output layer of a network with one output.
//!
//! `matrixmultiply` packs its operands, which for a single column costs more than the
//! arithmetic; these loops read each matrix element once. Every output element is computed
//! by the same operations whatever the number of threads.

use rayon::prelude::*;

/// Rows handled by one task.
const ROWS_PER_TASK: usize = 1024;
/// Products smaller than this many multiply-adds stay on one thread.
const PAR_FLOPS: usize = 1 << 18;

/// Dot product with eight independent accumulators (vectorisable), summed in a fixed order.
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (x, y) in ac.zip(bc) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (x, y) in ar.iter().zip(br) {
        s += x * y;
    }
    s
}

#[inline]
fn store(out: &mut f32, alpha: f32, s: f32, beta: f32) {
    *out = if beta == 0.0 {
        alpha * s
    } else {
        alpha * s + beta * *out
    };
}

/// `c[i] = alpha * dot(A[i, :], x) + beta * c[i]` for row-major `A` (`m x k`).
pub(crate) fn rows(m: usize, k: usize, alpha: f32, a: &[f32], x: &[f32], beta: f32, c: &mut [f32]) {
    let x = &x[..k];
    let body = |(t, c): (usize, &mut [f32])| {
        for (r, out) in c.iter_mut().enumerate() {
            let i = t * ROWS_PER_TASK + r;
            store(out, alpha, dot(&a[i * k..(i + 1) * k], x), beta);
        }
    };
    if m * k < PAR_FLOPS {
        c[..m].chunks_mut(ROWS_PER_TASK).enumerate().for_each(body);
    } else {
        c[..m]
            .par_chunks_mut(ROWS_PER_TASK)
            .enumerate()
            .for_each(body);
    }
}

/// `c[j] = alpha * sum_p A[p, j] * x[p] + beta * c[j]` for row-major `A` (`k x m`), i.e.
/// `A^T x`: partial sums over fixed blocks of rows, added in block order.
pub(crate) fn columns(
    m: usize,
    k: usize,
    alpha: f32,
    a: &[f32],
    x: &[f32],
    beta: f32,
    c: &mut [f32],
) {
    let partial = |t: usize| {
        let mut acc = vec![0f32; m];
        let end = ((t + 1) * ROWS_PER_TASK).min(k);
        for p in t * ROWS_PER_TASK..end {
            let w = x[p];
            acc.iter_mut()
                .zip(&a[p * m..(p + 1) * m])
                .for_each(|(s, &v)| *s += w * v);
        }
        acc
    };
    let blocks = k.div_ceil(ROWS_PER_TASK);
    let partials: Vec<Vec<f32>> = if m * k < PAR_FLOPS {
        (0..blocks).map(partial).collect()
    } else {
        (0..blocks).into_par_iter().map(partial).collect()
    };
    let mut total = vec![0f32; m];
    for p in partials {
        total.iter_mut().zip(p).for_each(|(t, v)| *t += v);
    }
    for (out, s) in c[..m].iter_mut().zip(total) {
        store(out, alpha, s, beta);
    }
}
