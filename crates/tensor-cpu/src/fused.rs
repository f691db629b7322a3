//! Single-pass versions of the fused operations.

use crate::kernel::{self, Elem, with_act, with_act_grad};
use crate::parallel::{PAR_THRESHOLD, SUM_CHUNK, chunk_len};
use rayon::prelude::*;
use tensor_core::check::{buffer_len, elements};
use tensor_core::{Activation, AdamStep, LossKind, Result, SgdStep, sigmoid};

pub(crate) fn bias_act(
    z: &mut [f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
    act: Activation,
    out: &mut [f32],
) -> Result<()> {
    let n = elements("bias_act", rows, cols)?;
    buffer_len("bias_act", "z", z.len(), n)?;
    buffer_len("bias_act", "bias", bias.len(), cols)?;
    buffer_len("bias_act", "out", out.len(), n)?;
    if cols == 0 {
        return Ok(());
    }
    with_act!(act, e => bias_act_with(e, z, bias, cols, out));
    Ok(())
}

/// `bias_act` for one activation: each task adds the bias to its rows, then applies the
/// activation to them while they are still in cache.
fn bias_act_with<E: Elem>(e: E, z: &mut [f32], bias: &[f32], cols: usize, out: &mut [f32]) {
    let rows = |(z, o): (&mut [f32], &mut [f32])| {
        for row in z.chunks_exact_mut(cols) {
            row.iter_mut().zip(bias).for_each(|(z, b)| *z += b);
        }
        kernel::map(e, z, o);
    };
    if z.len() < PAR_THRESHOLD {
        rows((z, out));
    } else {
        let rows_per_task = (chunk_len(z.len()) / cols).max(1) * cols;
        z.par_chunks_mut(rows_per_task)
            .zip(out.par_chunks_mut(rows_per_task))
            .for_each(rows);
    }
}

pub(crate) fn act_backward(
    grad_out: &[f32],
    z: &[f32],
    act: Activation,
    grad_z: &mut [f32],
) -> Result<()> {
    buffer_len("act_backward", "grad_out", grad_out.len(), z.len())?;
    buffer_len("act_backward", "grad_z", grad_z.len(), z.len())?;
    with_act_grad!(act, e => act_backward_with(e, grad_out, z, grad_z));
    Ok(())
}

fn act_backward_with<E: Elem>(e: E, grad_out: &[f32], z: &[f32], grad_z: &mut [f32]) {
    if z.len() < PAR_THRESHOLD {
        kernel::mul_map(e, grad_out, z, grad_z);
    } else {
        let c = chunk_len(z.len());
        grad_z
            .par_chunks_mut(c)
            .zip(grad_out.par_chunks(c).zip(z.par_chunks(c)))
            .for_each(|(gz, (go, z))| kernel::mul_map(e, go, z, gz));
    }
}

/// Sums `f(i)` over `0..n` in f64, in fixed chunks added in order (thread-count independent).
fn sum_f64<F: Fn(usize) -> f64 + Sync>(n: usize, f: F) -> f64 {
    let chunk = |c: usize| {
        ((c * SUM_CHUNK)..((c + 1) * SUM_CHUNK).min(n))
            .map(&f)
            .sum::<f64>()
    };
    let chunks = n.div_ceil(SUM_CHUNK);
    if n < PAR_THRESHOLD {
        (0..chunks).map(chunk).sum()
    } else {
        let partials: Vec<f64> = (0..chunks).into_par_iter().map(chunk).collect();
        partials.into_iter().sum()
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn loss_grad(
    kind: LossKind,
    pred: &[f32],
    target: &[f32],
    rows: usize,
    cols: usize,
    grad: &mut [f32],
    loss: &mut [f32],
) -> Result<()> {
    let n = elements("loss_grad", rows, cols)?;
    buffer_len("loss_grad", "pred", pred.len(), n)?;
    buffer_len("loss_grad", "target", target.len(), n)?;
    buffer_len("loss_grad", "grad", grad.len(), n)?;
    buffer_len("loss_grad", "loss", loss.len(), 1)?;
    if n == 0 {
        // The mean over zero elements.
        loss[0] = f32::NAN;
        return Ok(());
    }
    let inv_n = 1.0 / n as f64;
    let total = match kind {
        LossKind::Mse => {
            let g = (2.0 * inv_n) as f32;
            grad.iter_mut()
                .zip(pred.iter().zip(target))
                .for_each(|(g_i, (&p, &t))| *g_i = (p - t) * g);
            sum_f64(n, |i| {
                let d = (pred[i] - target[i]) as f64;
                d * d
            }) * inv_n
        }
        LossKind::BceWithLogits => {
            let g = inv_n as f32;
            grad.iter_mut()
                .zip(pred.iter().zip(target))
                .for_each(|(g_i, (&z, &y))| *g_i = (sigmoid(z) - y) * g);
            sum_f64(n, |i| {
                let (z, y) = (pred[i] as f64, target[i] as f64);
                z.max(0.0) - z * y + (-z.abs()).exp().ln_1p()
            }) * inv_n
        }
        LossKind::SoftmaxCrossEntropy => softmax_ce(pred, target, rows, cols, grad),
    };
    loss[0] = total as f32;
    Ok(())
}

fn softmax_ce(pred: &[f32], target: &[f32], rows: usize, cols: usize, grad: &mut [f32]) -> f64 {
    let inv_rows = 1.0 / rows as f64;
    let mut total = 0.0f64;
    for ((p, t), g) in pred
        .chunks_exact(cols)
        .zip(target.chunks_exact(cols))
        .zip(grad.chunks_exact_mut(cols))
    {
        let max = p.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
        let sum: f64 = p.iter().map(|&v| (v as f64 - max).exp()).sum();
        let lse = sum.ln();
        for ((&pv, &tv), gv) in p.iter().zip(t).zip(g.iter_mut()) {
            let logp = pv as f64 - max - lse;
            total -= tv as f64 * logp;
            *gv = ((logp.exp() - tv as f64) * inv_rows) as f32;
        }
    }
    total * inv_rows
}

/// One chunk of each of `param`, `grad`, `m` and `v`, as rayon zips them.
type AdamSlices<'a> = (&'a mut [f32], (&'a [f32], (&'a mut [f32], &'a mut [f32])));

pub(crate) fn adam_step(
    s: AdamStep,
    param: &mut [f32],
    grad: &[f32],
    m: &mut [f32],
    v: &mut [f32],
) -> Result<()> {
    let n = param.len();
    buffer_len("adam_step", "grad", grad.len(), n)?;
    buffer_len("adam_step", "m", m.len(), n)?;
    buffer_len("adam_step", "v", v.len(), n)?;
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

/// One chunk of the Adam update, compiled for AVX2 on the AVX2 and AVX-512 paths (8 lanes
/// for the square root and division; NEON is part of aarch64's baseline, so its copy is
/// the plain one). Every lane performs the same operations as the baseline
/// build (no contraction into fused multiply-adds), so the bits do not depend on the CPU.
fn adam_chunk(k: &AdamConsts, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    #[inline(always)]
    fn run(k: &AdamConsts, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
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
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        fn avx2(k: &AdamConsts, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
            run(k, p, g, m, v)
        }
        use crate::simd::SimdPath;
        if matches!(crate::simd::active(), SimdPath::Avx2 | SimdPath::Avx512) {
            // SAFETY: the path that runs is one the CPU has.
            return unsafe { avx2(k, p, g, m, v) };
        }
    }
    run(k, p, g, m, v)
}

pub(crate) fn sgd_step(
    s: SgdStep,
    param: &mut [f32],
    grad: &[f32],
    velocity: Option<&mut Vec<f32>>,
) -> Result<()> {
    let n = param.len();
    buffer_len("sgd_step", "grad", grad.len(), n)?;
    if let Some(vel) = &velocity {
        buffer_len("sgd_step", "velocity", vel.len(), n)?;
    }
    // No decay term at all when there is none (0 * inf would be NaN).
    let wd = s.weight_decay;
    let decayed = |g: f32, p: f32| if wd != 0.0 { g + wd * p } else { g };
    match velocity {
        Some(vel) if s.momentum != 0.0 => {
            for i in 0..n {
                let g = decayed(grad[i], param[i]);
                vel[i] = s.momentum * vel[i] + g;
                let update = if s.nesterov {
                    g + s.momentum * vel[i]
                } else {
                    vel[i]
                };
                param[i] -= s.lr * update;
            }
        }
        _ => {
            for i in 0..n {
                param[i] -= s.lr * decayed(grad[i], param[i]);
            }
        }
    }
    Ok(())
}
