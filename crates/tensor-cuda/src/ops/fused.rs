//! The fused kernels of the training hot path, overriding the default compositions.

use crate::backend::Inner;
use crate::codes;
use crate::error::{check_len, product};
use crate::kernels::{Arg, BLOCK, Cfg, K, u};
use crate::storage::CudaStorage;
use tensor_core::{Activation, AdamStep, LossKind, ReduceOp, Result, SgdStep};

/// The most blocks a loss kernel uses; one warp then sums the partials.
const MAX_LOSS_BLOCKS: usize = 1024;

impl Inner {
    pub(crate) fn bias_act(
        &self,
        z: &mut CudaStorage,
        bias: &CudaStorage,
        rows: usize,
        cols: usize,
        act: Activation,
        out: &mut CudaStorage,
    ) -> Result<()> {
        let n = product("bias_act", rows, cols)?;
        check_len("bias_act", "z", z.len, n)?;
        check_len("bias_act", "bias", bias.len, cols)?;
        check_len("bias_act", "out", out.len, n)?;
        self.launch_bias_act("bias_act", z.ptr(), bias, (rows, cols), act, out.ptr())
    }

    /// `c = act(c + bias)` in place: the epilogue of `gemm_bias_act`, by the `bias_act`
    /// kernel with its pre-activation and output at the same address (each thread reads
    /// its element, then writes it twice, the activation last).
    pub(crate) fn bias_act_in_place(
        &self,
        c: &mut CudaStorage,
        bias: &CudaStorage,
        rows: usize,
        cols: usize,
        act: Activation,
    ) -> Result<()> {
        let n = product("gemm_bias_act", rows, cols)?;
        check_len("gemm_bias_act", "c", c.len, n)?;
        check_len("gemm_bias_act", "bias", bias.len, cols)?;
        let ptr = c.ptr();
        self.launch_bias_act("gemm_bias_act", ptr, bias, (rows, cols), act, ptr)
    }

    /// Launches the `bias_act` kernel on checked buffers (`z` and `out` may be one).
    fn launch_bias_act(
        &self,
        op: &'static str,
        z: u64,
        bias: &CudaStorage,
        (rows, cols): (usize, usize),
        act: Activation,
        out: u64,
    ) -> Result<()> {
        let n = rows * cols;
        if n == 0 {
            return Ok(());
        }
        let (code, p) = codes::activation(act);
        self.launch(
            op,
            K::BiasAct,
            self.linear(n),
            &[
                Arg::Ptr(z),
                Arg::Ptr(bias.ptr()),
                u(rows),
                u(cols),
                Arg::I32(code),
                Arg::F32(p),
                Arg::Ptr(out),
            ],
        )
    }

    /// `c *= act'(at)` in place: the epilogue of `gemm_act_grad`, by the `act_backward`
    /// kernel with its incoming and outgoing gradients at the same address.
    pub(crate) fn act_grad_in_place(
        &self,
        c: &mut CudaStorage,
        at: &CudaStorage,
        act: Activation,
    ) -> Result<()> {
        check_len("gemm_act_grad", "at", at.len, c.len)?;
        let ptr = c.ptr();
        self.launch_act_backward("gemm_act_grad", ptr, at, act, ptr)
    }

    pub(crate) fn act_backward(
        &self,
        grad_out: &CudaStorage,
        z: &CudaStorage,
        act: Activation,
        grad_z: &mut CudaStorage,
    ) -> Result<()> {
        let n = z.len;
        check_len("act_backward", "grad_out", grad_out.len, n)?;
        check_len("act_backward", "grad_z", grad_z.len, n)?;
        self.launch_act_backward("act_backward", grad_out.ptr(), z, act, grad_z.ptr())
    }

    /// Launches the `act_backward` kernel over `z`'s elements on checked buffers (the two
    /// gradients may be one).
    fn launch_act_backward(
        &self,
        op: &'static str,
        grad_out: u64,
        z: &CudaStorage,
        act: Activation,
        grad_z: u64,
    ) -> Result<()> {
        let n = z.len;
        if n == 0 {
            return Ok(());
        }
        let (code, p) = codes::activation(act);
        self.launch(
            op,
            K::ActBackward,
            self.linear(n),
            &[
                Arg::Ptr(grad_out),
                Arg::Ptr(z.ptr()),
                u(n),
                Arg::I32(code),
                Arg::F32(p),
                Arg::Ptr(grad_z),
            ],
        )
    }

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
        let n = product("loss_grad", rows, cols)?;
        check_len("loss_grad", "pred", pred.len, n)?;
        check_len("loss_grad", "target", target.len, n)?;
        check_len("loss_grad", "grad", grad.len, n)?;
        check_len("loss_grad", "loss", loss.len, 1)?;
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

    pub(crate) fn adam_step(
        &self,
        s: AdamStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        m: &mut CudaStorage,
        v: &mut CudaStorage,
    ) -> Result<()> {
        let n = param.len;
        check_len("adam_step", "grad", grad.len, n)?;
        check_len("adam_step", "m", m.len, n)?;
        check_len("adam_step", "v", v.len, n)?;
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "adam_step",
            K::AdamStep,
            self.linear(n),
            &[
                Arg::Ptr(param.ptr()),
                Arg::Ptr(grad.ptr()),
                Arg::Ptr(m.ptr()),
                Arg::Ptr(v.ptr()),
                u(n),
                Arg::F32(s.beta1),
                Arg::F32(s.beta2),
                Arg::F32(1.0 - s.beta1),
                Arg::F32(1.0 - s.beta2),
                Arg::F32(s.eps),
                Arg::F32(s.weight_decay),
                Arg::I32(i32::from(s.decoupled)),
                Arg::F32(1.0 - s.lr * s.weight_decay),
                Arg::F32(1.0 / s.bias_correction2),
                Arg::F32(s.lr / s.bias_correction1),
            ],
        )
    }

    pub(crate) fn sgd_step(
        &self,
        s: SgdStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        velocity: Option<&mut CudaStorage>,
    ) -> Result<()> {
        let n = param.len;
        check_len("sgd_step", "grad", grad.len, n)?;
        if let Some(v) = &velocity {
            check_len("sgd_step", "velocity", v.len, n)?;
        }
        let velocity = match velocity {
            Some(v) if s.momentum != 0.0 => v.ptr(),
            _ => 0,
        };
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "sgd_step",
            K::SgdStep,
            self.linear(n),
            &[
                Arg::Ptr(param.ptr()),
                Arg::Ptr(grad.ptr()),
                Arg::Ptr(velocity),
                u(n),
                Arg::F32(s.lr),
                Arg::F32(s.momentum),
                Arg::I32(i32::from(s.nesterov)),
                Arg::F32(s.weight_decay),
            ],
        )
    }

    pub(crate) fn fourier_features(
        &self,
        x: &CudaStorage,
        b: &CudaStorage,
        rows: usize,
        d: usize,
        m: usize,
        out: &mut CudaStorage,
    ) -> Result<()> {
        check_len(
            "fourier_features",
            "x",
            x.len,
            product("fourier_features", rows, d)?,
        )?;
        check_len(
            "fourier_features",
            "b",
            b.len,
            product("fourier_features", d, m)?,
        )?;
        let n = product("fourier_features", rows, m)?;
        check_len(
            "fourier_features",
            "out",
            out.len,
            product("fourier_features", n, 2)?,
        )?;
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "fourier_features",
            K::FourierFeatures,
            self.linear(n),
            &[
                Arg::Ptr(x.ptr()),
                Arg::Ptr(b.ptr()),
                u(rows),
                u(d),
                u(m),
                Arg::Ptr(out.ptr()),
            ],
        )
    }
}
