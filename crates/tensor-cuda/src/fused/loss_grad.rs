//! `loss_grad` on the GPU: a loss kernel writes the gradient and per-block partial sums,
//! a second pass sums them.

use crate::backend::CudaBackend;
use crate::backend::Inner;
use crate::kernels::{Arg, BLOCK, Cfg, K, u};
use crate::storage::CudaStorage;
use tensor_core::fused::loss_grad;
use tensor_core::{LossGrad, LossGradOp, LossKind, ReduceOp, Result};

/// The most blocks a loss kernel uses; one warp then sums the partials.
const MAX_LOSS_BLOCKS: usize = 1024;

impl LossGradOp for CudaBackend {
    fn loss_grad(
        &self,
        p: LossGrad<'_, CudaStorage>,
        grad: &mut CudaStorage,
        loss: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .loss_grad(p.kind, p.pred, p.target, p.rows, p.cols, grad, loss)
    }
}

impl Inner {
    /// The loss kernel writes the gradient and one partial sum per block into the workspace;
    /// a second pass sums the partials into `loss` and divides by the batch size.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn loss_grad(
        &self,
        kind: LossKind,
        pred: &CudaStorage,
        target: &CudaStorage,
        rows: usize,
        cols: usize,
        grad: &mut CudaStorage,
        loss: &mut CudaStorage,
    ) -> Result<()> {
        let lens = [pred.len, target.len, grad.len, loss.len];
        let n = loss_grad::check(rows, cols, lens)?;
        if n == 0 {
            // The mean of nothing, as the default composition computes it (0 * 1/0).
            return self.fill("loss_grad", loss, f32::NAN);
        }
        let sms = self.info.sm_count as usize;
        let cap = (sms * 8).min(MAX_LOSS_BLOCKS);
        let (k, blocks, grad_scale, divisor, shape) = match kind {
            LossKind::Mse => (
                K::LossMse,
                n.div_ceil(BLOCK as usize).clamp(1, cap),
                2.0 / n as f32,
                n as f32,
                None,
            ),
            LossKind::BceWithLogits => (
                K::LossBce,
                n.div_ceil(BLOCK as usize).clamp(1, cap),
                1.0 / n as f32,
                n as f32,
                None,
            ),
            LossKind::SoftmaxCrossEntropy => (
                K::LossSoftmaxCe,
                rows.div_ceil((BLOCK / 32) as usize).clamp(1, cap),
                1.0 / rows as f32,
                -(rows as f32),
                Some((rows, cols)),
            ),
        };
        let cfg = Cfg {
            grid: (blocks as u32, 1, 1),
            block: (BLOCK, 1, 1),
        };
        let mut ws = self.workspace();
        let scratch = ws.ensure(&self.stream, &self.counters, "loss_grad", blocks)?;
        let (p, t, g) = (
            Arg::Ptr(pred.ptr()),
            Arg::Ptr(target.ptr()),
            Arg::Ptr(grad.ptr()),
        );
        let partials = Arg::Ptr(scratch.vals);
        match shape {
            None => self.launch(
                "loss_grad",
                k,
                cfg,
                &[p, t, u(n), Arg::F32(grad_scale), g, partials],
            )?,
            Some((rows, cols)) => self.launch(
                "loss_grad",
                k,
                cfg,
                &[p, t, u(rows), u(cols), Arg::F32(grad_scale), g, partials],
            )?,
        }
        // The partials stay locked (`ws`) until this pass is queued.
        self.reduce_rows_single_pass(ReduceOp::Sum, scratch.vals, 1, blocks, loss.ptr(), divisor)
    }
}
