//! Matrix products through the `gemm` crate.

use crate::backend::check_len;
use tensor_core::{Gemm, Result};

/// Products smaller than this many multiply-adds run on one thread.
const PAR_FLOPS: usize = 1 << 18;

pub(crate) fn gemm(spec: Gemm, a: &[f32], b: &[f32], c: &mut [f32]) -> Result<()> {
    let Gemm {
        m,
        n,
        k,
        trans_a,
        trans_b,
        alpha,
        beta,
    } = spec;
    check_len("gemm", a.len(), m * k)?;
    check_len("gemm", b.len(), k * n)?;
    check_len("gemm", c.len(), m * n)?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        let c = &mut c[..m * n];
        if beta == 0.0 {
            c.fill(0.0);
        } else {
            c.iter_mut().for_each(|v| *v *= beta);
        }
        return Ok(());
    }
    // Row-major strides (row stride, column stride) of op(A) (m x k) and op(B) (k x n).
    let (a_rs, a_cs) = if trans_a { (1, m) } else { (k, 1) };
    let (b_rs, b_cs) = if trans_b { (1, k) } else { (n, 1) };
    let parallelism = if m * n * k >= PAR_FLOPS && rayon::current_num_threads() > 1 {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: the lengths were checked above, so every index
    // (i * rs + j * cs) the strides describe is inside its buffer, and `c` does not alias
    // `a` or `b` (it is borrowed mutably).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            beta != 0.0,
            a.as_ptr(),
            a_cs as isize,
            a_rs as isize,
            b.as_ptr(),
            b_cs as isize,
            b_rs as isize,
            beta,
            alpha,
            false,
            false,
            false,
            parallelism,
        );
    }
    Ok(())
}
