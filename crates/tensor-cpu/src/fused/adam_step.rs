//! `adam_step` on the CPU: the Adam update in one pass over the parameter, its gradient and
//! moments.

use crate::CpuBackend;
use crate::parallel::{PAR_THRESHOLD, chunk_len};
use rayon::prelude::*;
use tensor_core::fused::adam_step;
use tensor_core::{AdamMoments, AdamStep, AdamStepOp, Result};

impl AdamStepOp for CpuBackend {
    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut Vec<f32>,
        grad: &Vec<f32>,
        moments: AdamMoments<'_, Vec<f32>>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        kernel(step, param, grad, moments.m, moments.v)
    }
}

/// One chunk of each of `param`, `grad`, `m` and `v`, as rayon zips them.
type AdamSlices<'a> = (&'a mut [f32], (&'a [f32], (&'a mut [f32], &'a mut [f32])));

pub(crate) fn kernel(
    s: AdamStep,
    param: &mut [f32],
    grad: &[f32],
    m: &mut [f32],
    v: &mut [f32],
) -> Result<()> {
    let n = adam_step::check([param.len(), grad.len(), m.len(), v.len()])?;
    let step_size = s.lr / s.bias_correction1;
    let inv_bc2 = 1.0 / s.bias_correction2;
    let decay = if s.decoupled {
        1.0 - s.lr * s.weight_decay
    } else {
        1.0
    };
    // No decay term at all when there is none, so that an infinite parameter does not
    // turn its gradient into NaN (0 * inf), as in the default composition and PyTorch.
    let l2 = if s.decoupled { 0.0 } else { s.weight_decay };
    let k = AdamConsts {
        s,
        step_size,
        inv_bc2,
        decay,
        l2,
    };
    let body = |(p, (g, (m, v))): AdamSlices| adam_chunk(&k, p, g, m, v);
    if n < PAR_THRESHOLD {
        body((param, (grad, (m, v))));
    } else {
        let c = chunk_len(n);
        param
            .par_chunks_mut(c)
            .zip(
                grad.par_chunks(c)
                    .zip(m.par_chunks_mut(c).zip(v.par_chunks_mut(c))),
            )
            .for_each(body);
    }
    Ok(())
}

/// The per-call constants of an Adam step.
struct AdamConsts {
    s: AdamStep,
    step_size: f32,
    inv_bc2: f32,
    decay: f32,
    l2: f32,
}

crate::simd::multiversion! {
    /// One chunk of the Adam update, compiled for AVX2 on the AVX2 and AVX-512 paths (8 lanes
    /// for the square root and division) and for NEON. Every lane performs the same
    /// operations as the baseline build (no contraction into fused multiply-adds), so the
    /// bits do not depend on the CPU.
    fn adam_chunk(k: &AdamConsts, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]);
    avx512 uses avx2, V => adam_rows(k, p, g, m, v);
    otherwise => adam_rows(k, p, g, m, v);
}

/// [`adam_chunk`], compiled with the instructions of its caller.
#[inline(always)]
fn adam_rows(k: &AdamConsts, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    let AdamConsts {
        s,
        step_size,
        inv_bc2,
        decay,
        l2,
    } = *k;
    let rows = p.iter_mut().zip(g).zip(m.iter_mut().zip(v.iter_mut()));
    for ((p, &g), (m, v)) in rows {
        let g = if l2 != 0.0 { g + l2 * *p } else { g };
        *m = s.beta1 * *m + (1.0 - s.beta1) * g;
        *v = s.beta2 * *v + (1.0 - s.beta2) * g * g;
        *p = *p * decay - step_size * *m / ((*v * inv_bc2).sqrt() + s.eps);
    }
}
