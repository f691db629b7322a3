//! Single-pass versions of the fused operations.

use crate::backend::{check_equal, check_len};
use crate::parallel::{CHUNK, PAR_THRESHOLD};
use rayon::prelude::*;
use tensor_core::{Activation, AdamStep, LossKind, Result, SgdStep, sigmoid};

pub(crate) fn bias_act(
    z: &mut [f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
    act: Activation,
    out: &mut [f32],
) -> Result<()> {
    check_equal("bias_act", z.len(), rows * cols)?;
    check_equal("bias_act", out.len(), rows * cols)?;
    check_equal("bias_act", bias.len(), cols)?;
    if cols == 0 {
        return Ok(());
    }
    let row = |(z, o): (&mut [f32], &mut [f32])| {
        z.iter_mut().zip(bias).for_each(|(z, b)| *z += b);
        o.iter_mut()
            .zip(z.iter())
            .for_each(|(o, &z)| *o = act.forward(z));
    };
    if z.len() < PAR_THRESHOLD {
        z.chunks_mut(cols).zip(out.chunks_mut(cols)).for_each(row);
    } else {
        let rows_per_task = (CHUNK / cols).max(1) * cols;
        z.par_chunks_mut(rows_per_task)
            .zip(out.par_chunks_mut(rows_per_task))
            .for_each(|(z, o)| z.chunks_mut(cols).zip(o.chunks_mut(cols)).for_each(row));
    }
    Ok(())
}

pub(crate) fn act_backward(
    grad_out: &[f32],
    z: &[f32],
    act: Activation,
    grad_z: &mut [f32],
) -> Result<()> {
    check_equal("act_backward", grad_out.len(), z.len())?;
    check_equal("act_backward", grad_z.len(), z.len())?;
    let body = |(gz, (go, z)): (&mut [f32], (&[f32], &[f32]))| {
        gz.iter_mut()
            .zip(go.iter().zip(z))
            .for_each(|(gz, (&go, &z))| *gz = go * act.derivative(z));
    };
    if z.len() < PAR_THRESHOLD {
        body((grad_z, (grad_out, z)));
    } else {
        grad_z
            .par_chunks_mut(CHUNK)
            .zip(grad_out.par_chunks(CHUNK).zip(z.par_chunks(CHUNK)))
            .for_each(body);
    }
    Ok(())
}

/// Sums `f(i)` over `0..n` in f64, in fixed chunks added in order (thread-count independent).
fn sum_f64<F: Fn(usize) -> f64 + Sync>(n: usize, f: F) -> f64 {
    let chunk = |c: usize| ((c * CHUNK)..((c + 1) * CHUNK).min(n)).map(&f).sum::<f64>();
    let chunks = n.div_ceil(CHUNK);
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
    let n = rows * cols;
    check_equal("loss_grad", pred.len(), n)?;
    check_equal("loss_grad", target.len(), n)?;
    check_equal("loss_grad", grad.len(), n)?;
    check_len("loss_grad", loss.len(), 1)?;
    if n == 0 {
        loss[0] = 0.0;
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

pub(crate) fn adam_step(
    s: AdamStep,
    param: &mut [f32],
    grad: &[f32],
    m: &mut [f32],
    v: &mut [f32],
) -> Result<()> {
    let n = param.len();
    check_equal("adam_step", grad.len(), n)?;
    check_equal("adam_step", m.len(), n)?;
    check_equal("adam_step", v.len(), n)?;
    let step_size = s.lr / s.bias_correction1;
    let inv_bc2 = 1.0 / s.bias_correction2;
    let decay = if s.decoupled {
        1.0 - s.lr * s.weight_decay
    } else {
        1.0
    };
    let l2 = if s.decoupled { 0.0 } else { s.weight_decay };
    let body = |(p, (g, (m, v))): (&mut [f32], (&[f32], (&mut [f32], &mut [f32])))| {
        for i in 0..p.len() {
            let g = g[i] + l2 * p[i];
            m[i] = s.beta1 * m[i] + (1.0 - s.beta1) * g;
            v[i] = s.beta2 * v[i] + (1.0 - s.beta2) * g * g;
            p[i] = p[i] * decay - step_size * m[i] / ((v[i] * inv_bc2).sqrt() + s.eps);
        }
    };
    if n < PAR_THRESHOLD {
        body((param, (grad, (m, v))));
    } else {
        param
            .par_chunks_mut(CHUNK)
            .zip(
                grad.par_chunks(CHUNK)
                    .zip(m.par_chunks_mut(CHUNK).zip(v.par_chunks_mut(CHUNK))),
            )
            .for_each(body);
    }
    Ok(())
}

pub(crate) fn sgd_step(
    s: SgdStep,
    param: &mut [f32],
    grad: &[f32],
    velocity: Option<&mut Vec<f32>>,
) -> Result<()> {
    let n = param.len();
    check_equal("sgd_step", grad.len(), n)?;
    match velocity {
        Some(vel) if s.momentum != 0.0 => {
            check_equal("sgd_step", vel.len(), n)?;
            for i in 0..n {
                let g = grad[i] + s.weight_decay * param[i];
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
                param[i] -= s.lr * (grad[i] + s.weight_decay * param[i]);
            }
        }
    }
    Ok(())
}
