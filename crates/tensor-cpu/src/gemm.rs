//! Matrix products through the `matrixmultiply` crate, split over rayon threads here.
//!
//! `matrixmultiply` packs both operands and runs an AVX-512 (or AVX2/FMA) micro-kernel
//! chosen at run time; it takes arbitrary row and column strides, so transposed operands
//! are read in place. It runs on one thread; large products are cut into blocks of rows
//! (or columns) of `C`, one per rayon thread. Each element of `C` is then computed by the
//! same sequence of floating-point operations whatever the cut, because the cuts fall on
//! multiples of [`SPLIT_ALIGN`] (a multiple of the crate's block and tile sizes), so the
//! result does not depend on the number of threads. A small `C` of a long product (a
//! weight gradient) is cut along the shared dimension instead, into chunks of fixed length
//! whose partial products are added in order. Products too small to amortise packing run
//! through a plain loop.

use crate::kernel;
use crate::skinny::Epilogue;
use rayon::prelude::*;
use tensor_core::check::{buffer_len, elements};
use tensor_core::{Gemm, Result};

/// Products of at most this many multiply-adds run through the plain loop (XOR-sized
/// layers, where packing would cost more than the arithmetic). Measured on the 2-core
/// development machine: 4x2x8 takes 0.13 us in the loop and 0.19 us through
/// `matrixmultiply`; from 8x8x8 on, `matrixmultiply` wins (16x16x16: 0.4 us against 4 us).
const TINY_FLOPS: usize = 256;
/// Products of at least this many multiply-adds are split over threads: 128x128x128
/// (2M) takes 31-48 us on one thread and 26-37 us on two; below that, waking a second
/// thread costs about what it saves.
const PAR_FLOPS: usize = 1 << 21;
/// Row or column cuts between threads fall on multiples of this: `matrixmultiply`'s row
/// block (64) and its widest micro-kernel tile (16) both divide it.
const SPLIT_ALIGN: usize = 64;

/// The length of the `k` chunks of such a product. Each chunk's partial product is computed
/// on its own (in parallel), then the partials are added in chunk order: the cut depends on
/// the shape alone, so the result does not depend on the number of threads.
const K_CHUNK: usize = 8192;

/// How to read a row-major operand: its (row, column) strides in elements.
#[derive(Clone, Copy)]
struct View {
    rs: usize,
    cs: usize,
}

pub(crate) fn gemm(spec: Gemm, a: &[f32], b: &[f32], c: &mut [f32]) -> Result<()> {
    gemm_then(spec, a, b, c, Epilogue::None)
}

/// `C = epi(alpha * op(A) op(B) + beta * C)`: the epilogue runs inside the product's
/// kernels where they support it, else as a second pass over `C` (the same values either
/// way). The epilogue's buffers must have been checked by the caller.
pub(crate) fn gemm_then(
    spec: Gemm,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    epi: Epilogue<'_>,
) -> Result<()> {
    if !product(spec, a, b, c, epi)? {
        apply_epilogue(c, spec.n, epi);
    }
    Ok(())
}

/// `epi(C)` in place, `C` having rows of `n` values.
fn apply_epilogue(c: &mut [f32], n: usize, epi: Epilogue<'_>) {
    const ROWS: usize = 1024;
    match epi {
        Epilogue::None => {}
        Epilogue::Bias { bias, relu } => c.par_chunks_mut(ROWS * n.max(1)).for_each(|rows| {
            for row in rows.chunks_exact_mut(n) {
                for (v, b) in row.iter_mut().zip(bias) {
                    let z = *v + b;
                    *v = if relu { kernel::relu(z) } else { z };
                }
            }
        }),
        Epilogue::ReluGrad { at } => c
            .par_chunks_mut(ROWS * n.max(1))
            .zip(at.par_chunks(ROWS * n.max(1)))
            .for_each(|(c, at)| {
                for (v, z) in c.iter_mut().zip(at) {
                    *v *= kernel::relu_grad(*z);
                }
            }),
    }
}

/// The product, with the epilogue when the skinny kernels ran it: returns whether they did.
fn product(spec: Gemm, a: &[f32], b: &[f32], c: &mut [f32], epi: Epilogue<'_>) -> Result<bool> {
    let Gemm {
        m,
        n,
        k,
        trans_a,
        trans_b,
        alpha,
        beta,
    } = spec;
    buffer_len("gemm", "a", a.len(), elements("gemm", m, k)?)?;
    buffer_len("gemm", "b", b.len(), elements("gemm", k, n)?)?;
    buffer_len("gemm", "c", c.len(), elements("gemm", m, n)?)?;
    if m == 0 || n == 0 {
        return Ok(false);
    }
    if k == 0 || alpha == 0.0 {
        // An empty product, or one BLAS does not compute: A and B are not read.
        scale_c(c, beta);
        return Ok(false);
    }
    // Row-major strides (row stride, column stride) of op(A) (m x k) and op(B) (k x n).
    let va = if trans_a {
        View { rs: 1, cs: m }
    } else {
        View { rs: k, cs: 1 }
    };
    let vb = if trans_b {
        View { rs: 1, cs: k }
    } else {
        View { rs: n, cs: 1 }
    };
    let flops = m * n * k;
    if n == 1 && flops > TINY_FLOPS {
        // One output column: B is a vector of k contiguous values whatever `trans_b`.
        if trans_a {
            crate::gemv::columns(m, k, alpha, a, b, beta, c);
        } else {
            crate::gemv::rows(m, k, alpha, a, b, beta, c);
        }
        return Ok(false);
    }
    if flops <= TINY_FLOPS {
        naive(m, n, k, alpha, a, va, b, vb, beta, c);
        return Ok(false);
    }
    // One long dimension and two short ones (an MLP layer over a batch): no packing.
    let (sa, sb) = ((va.rs, va.cs), (vb.rs, vb.cs));
    if crate::skinny::gemm((m, n, k), alpha, a, sa, b, sb, beta, c, epi) {
        return Ok(true);
    }
    // A result of at most SPLIT_ALIGN x SPLIT_ALIGN cannot be cut by rows or columns (a
    // weight gradient `X^T dY`, 64 x 64 over 65,536 rows, would run on one thread): cut
    // along `k` when it is long.
    if m <= SPLIT_ALIGN && n <= SPLIT_ALIGN && k >= 2 * K_CHUNK && flops >= PAR_FLOPS {
        split_k(m, n, k, alpha, a, va, b, vb, beta, c);
        return Ok(false);
    }
    let threads = rayon::current_num_threads();
    if flops < PAR_FLOPS || threads < 2 {
        // SAFETY: lengths checked above; `c` is exclusively borrowed.
        unsafe {
            block(
                m,
                n,
                k,
                alpha,
                a.as_ptr(),
                va,
                b.as_ptr(),
                vb,
                beta,
                c.as_mut_ptr(),
                n,
            )
        };
        return Ok(false);
    }
    let c_addr = c.as_mut_ptr() as usize;
    let (a_addr, b_addr) = (a.as_ptr() as usize, b.as_ptr() as usize);
    if m >= n {
        let rows = m.div_ceil(threads).next_multiple_of(SPLIT_ALIGN);
        (0..m.div_ceil(rows)).into_par_iter().for_each(|t| {
            let r0 = t * rows;
            let mr = rows.min(m - r0);
            // SAFETY: blocks of rows r0..r0 + mr are disjoint parts of `c`; A is read from
            // row r0 on, inside its checked length.
            unsafe {
                let a = (a_addr as *const f32).add(r0 * va.rs);
                let c = (c_addr as *mut f32).add(r0 * n);
                block(mr, n, k, alpha, a, va, b_addr as *const f32, vb, beta, c, n);
            }
        });
    } else {
        let cols = n.div_ceil(threads).next_multiple_of(SPLIT_ALIGN);
        (0..n.div_ceil(cols)).into_par_iter().for_each(|t| {
            let c0 = t * cols;
            let nc = cols.min(n - c0);
            // SAFETY: blocks of columns c0..c0 + nc are disjoint parts of `c`; B is read
            // from column c0 on, inside its checked length.
            unsafe {
                let b = (b_addr as *const f32).add(c0 * vb.cs);
                let c = (c_addr as *mut f32).add(c0);
                block(m, nc, k, alpha, a_addr as *const f32, va, b, vb, beta, c, n);
            }
        });
    }
    Ok(false)
}

/// `C = alpha * A * B + beta * C` for one block (`m x n`, row stride `ldc`).
///
/// # Safety
/// The strides must describe elements inside the buffers behind `a`, `b`, and `c`, and no
/// other thread may touch this block of `c`.
#[allow(clippy::too_many_arguments)]
unsafe fn block(
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: *const f32,
    va: View,
    b: *const f32,
    vb: View,
    beta: f32,
    c: *mut f32,
    ldc: usize,
) {
    // SAFETY: forwarded from the caller; matrixmultiply does not read C when beta is 0.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a,
            va.rs as isize,
            va.cs as isize,
            b,
            vb.rs as isize,
            vb.cs as isize,
            beta,
            c,
            ldc as isize,
            1,
        );
    }
}

/// `C = alpha * A * B + beta * C` as the sum, in order, of the products over consecutive
/// [`K_CHUNK`]s of the shared dimension, computed in parallel.
#[allow(clippy::too_many_arguments)]
fn split_k(
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: &[f32],
    va: View,
    b: &[f32],
    vb: View,
    beta: f32,
    c: &mut [f32],
) {
    let chunks = k.div_ceil(K_CHUNK);
    let mut partials = vec![0f32; chunks * m * n];
    let (a_addr, b_addr) = (a.as_ptr() as usize, b.as_ptr() as usize);
    partials
        .par_chunks_mut(m * n)
        .enumerate()
        .for_each(|(t, part)| {
            let k0 = t * K_CHUNK;
            let kc = K_CHUNK.min(k - k0);
            // SAFETY: op(A) columns and op(B) rows k0..k0 + kc lie inside the checked
            // buffers; each partial is its own exclusive slice of m x n values.
            unsafe {
                let a = (a_addr as *const f32).add(k0 * va.cs);
                let b = (b_addr as *const f32).add(k0 * vb.rs);
                block(m, n, kc, alpha, a, va, b, vb, 0.0, part.as_mut_ptr(), n);
            }
        });
    let parts: Vec<&[f32]> = partials.chunks_exact(m * n).collect();
    c.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for (j, out) in row.iter_mut().enumerate() {
            let idx = i * n + j;
            let mut sum = parts[0][idx];
            for p in &parts[1..] {
                sum += p[idx];
            }
            *out = if beta == 0.0 { sum } else { sum + beta * *out };
        }
    });
}

/// The product by definition, for tiny matrices (sums in order of `k`).
#[allow(clippy::too_many_arguments)]
fn naive(
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: &[f32],
    va: View,
    b: &[f32],
    vb: View,
    beta: f32,
    c: &mut [f32],
) {
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in 0..k {
                acc += a[i * va.rs + p * va.cs] * b[p * vb.rs + j * vb.cs];
            }
            let out = &mut c[i * n + j];
            *out = if beta == 0.0 {
                alpha * acc
            } else {
                alpha * acc + beta * *out
            };
        }
    }
}

/// `C *= beta`, where 0 overwrites (even NaN) as for a full product.
fn scale_c(c: &mut [f32], beta: f32) {
    if beta == 0.0 {
        c.fill(0.0);
    } else {
        c.iter_mut().for_each(|v| *v *= beta);
    }
}
