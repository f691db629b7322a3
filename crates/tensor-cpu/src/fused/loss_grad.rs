//! `loss_grad` on the CPU: each loss and its gradient in one pass, summed in f64 in fixed
//! chunks (the same bits for any thread count).

use crate::CpuBackend;
use crate::parallel::{PAR_THRESHOLD, SUM_CHUNK};
use rayon::prelude::*;
use tensor_core::fused::loss_grad;
use tensor_core::{LossGrad, LossGradOp, LossKind, Result, sigmoid};

impl LossGradOp for CpuBackend {
    fn loss_grad(
        &self,
        p: LossGrad<'_, Vec<f32>>,
        grad: &mut Vec<f32>,
        loss: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        let LossGrad {
            kind,
            pred,
            target,
            rows,
            cols,
        } = p;
        kernel(kind, pred, target, rows, cols, grad, loss)
    }
}

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
pub(crate) fn kernel(
    kind: LossKind,
    pred: &[f32],
    target: &[f32],
    rows: usize,
    cols: usize,
    grad: &mut [f32],
    loss: &mut [f32],
) -> Result<()> {
    let lens = [pred.len(), target.len(), grad.len(), loss.len()];
    let n = loss_grad::check(rows, cols, lens)?;
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
