//! The default compositions of the fused operations from primitives.
//!
//! A backend names one of these in its [`FusedOps`](crate::FusedOps) implementation
//! where it has no kernel of its own (`fused::bias_act(self, p, z, out)`); the conformance
//! suite checks every backend's kernels against them. They allocate temporaries. Each
//! checks its buffers first, as the contract in [`Backend`] asks, so that a bad call fails
//! before anything is written. The hash-grid defaults are
//! [`hashgrid::host_forward`](crate::hashgrid::host_forward) and
//! [`hashgrid::host_backward`](crate::hashgrid::host_backward); that of the fused MLP pass
//! is [`mlp_pass::unfused`](crate::mlp_pass::unfused).

use crate::check::{buffer_len, check_fused_gemm, elements};
use crate::params::{
    AdamMoments, BiasAct, BinaryAssignSpec, BinarySpec, BlockCopy, FourierFeatures, GemmActGrad,
    GemmBiasAct, LossGrad, ReduceSpec, SliceCopy,
};
use crate::{
    Activation, AdamStep, Backend, BinaryOp, Gemm, LossKind, ReduceOp, Result, SgdStep, Shape,
    UnaryOp,
};

fn flat(n: usize) -> Shape {
    Shape::new([n])
}

fn scale<B: Backend>(b: &B, x: &mut B::Storage, factor: f32) -> Result<()> {
    b.unary_assign(
        UnaryOp::Affine {
            scale: factor,
            shift: 0.0,
        },
        x,
    )
}

fn sum_all<B: Backend>(b: &B, x: &B::Storage, n: usize, out: &mut B::Storage) -> Result<()> {
    let spec = ReduceSpec {
        op: ReduceOp::Sum,
        outer: 1,
        len: n,
        inner: 1,
    };
    b.reduce(spec, x, out)
}

/// `a = op(a, b)` for two buffers of the same shape or `b` broadcast to `a_shape`.
fn assign<B: Backend>(
    b: &B,
    op: BinaryOp,
    (a, a_shape): (&mut B::Storage, &Shape),
    (x, b_shape): (&B::Storage, &Shape),
) -> Result<()> {
    let spec = BinaryAssignSpec {
        op,
        a_shape,
        b_shape,
    };
    b.binary_assign(spec, a, x)
}

/// `out = op(a, b)` for buffers of the one shape `shape`.
fn same_shape<B: Backend>(
    b: &B,
    op: BinaryOp,
    shape: &Shape,
    (a, x): (&B::Storage, &B::Storage),
    out: &mut B::Storage,
) -> Result<()> {
    let spec = BinarySpec {
        op,
        a_shape: shape,
        b_shape: shape,
        out_shape: shape,
    };
    b.binary(spec, a, x, out)
}

/// A copy of `n` elements of `src` into `dst`.
fn copy_all<B: Backend>(b: &B, src: &B::Storage, dst: &mut B::Storage, n: usize) -> Result<()> {
    let range = SliceCopy {
        src_offset: 0,
        dst_offset: 0,
        len: n,
    };
    b.copy_slice(range, src, dst)
}

/// The default [`FusedOps::bias_act`](crate::FusedOps::bias_act): a broadcast add, then
/// the activation.
pub fn bias_act<B: Backend>(
    b: &B,
    p: BiasAct<'_, B::Storage>,
    z: &mut B::Storage,
    out: &mut B::Storage,
) -> Result<()> {
    let BiasAct {
        bias,
        rows,
        cols,
        act,
    } = p;
    let n = elements("bias_act", rows, cols)?;
    buffer_len("bias_act", "z", b.storage_len(z), n)?;
    buffer_len("bias_act", "bias", b.storage_len(bias), cols)?;
    buffer_len("bias_act", "out", b.storage_len(out), n)?;
    let (matrix, row) = (Shape::new([rows, cols]), Shape::new([cols]));
    assign(b, BinaryOp::Add, (z, &matrix), (bias, &row))?;
    b.unary(UnaryOp::Act(act), z, out)
}

/// The default [`FusedOps::gemm_bias_act`](crate::FusedOps::gemm_bias_act): a GEMM into a
/// temporary, then [`bias_act`](crate::FusedOps::bias_act).
pub fn gemm_bias_act<B: Backend>(
    b: &B,
    p: GemmBiasAct<'_, B::Storage>,
    c: &mut B::Storage,
) -> Result<()> {
    let GemmBiasAct {
        gemm,
        a,
        b: bm,
        bias,
        act,
    } = p;
    let op = "gemm_bias_act";
    let n = check_fused_gemm(b, op, &gemm, ("bias", bias, gemm.n), c)?;
    let mut z = b.alloc(n)?;
    b.gemm(gemm, a, bm, &mut z)?;
    let epilogue = BiasAct {
        bias,
        rows: gemm.m,
        cols: gemm.n,
        act,
    };
    b.bias_act(epilogue, &mut z, c)
}

/// The default [`FusedOps::gemm_act_grad`](crate::FusedOps::gemm_act_grad): a GEMM into a
/// temporary, then [`act_backward`](crate::FusedOps::act_backward).
pub fn gemm_act_grad<B: Backend>(
    b: &B,
    p: GemmActGrad<'_, B::Storage>,
    c: &mut B::Storage,
) -> Result<()> {
    let GemmActGrad {
        gemm,
        a,
        b: bm,
        at,
        act,
    } = p;
    let op = "gemm_act_grad";
    let n = check_fused_gemm(b, op, &gemm, ("at", at, gemm.m * gemm.n), c)?;
    let mut g = b.alloc(n)?;
    b.gemm(gemm, a, bm, &mut g)?;
    b.act_backward(&g, at, act, c)
}

/// The default [`FusedOps::act_backward`](crate::FusedOps::act_backward): the derivative
/// into a temporary, then a product.
pub fn act_backward<B: Backend>(
    b: &B,
    grad_out: &B::Storage,
    z: &B::Storage,
    act: Activation,
    grad_z: &mut B::Storage,
) -> Result<()> {
    let n = b.storage_len(z);
    buffer_len("act_backward", "grad_out", b.storage_len(grad_out), n)?;
    buffer_len("act_backward", "grad_z", b.storage_len(grad_z), n)?;
    let mut d = b.alloc(n)?;
    b.unary(UnaryOp::ActGrad(act), z, &mut d)?;
    same_shape(b, BinaryOp::Mul, &flat(n), (grad_out, &d), grad_z)
}

/// The default [`FusedOps::loss_grad`](crate::FusedOps::loss_grad), one composition per
/// loss.
pub fn loss_grad<B: Backend>(
    b: &B,
    p: LossGrad<'_, B::Storage>,
    grad: &mut B::Storage,
    loss: &mut B::Storage,
) -> Result<()> {
    let LossGrad {
        kind,
        pred,
        target,
        rows,
        cols,
    } = p;
    let n = elements("loss_grad", rows, cols)?;
    buffer_len("loss_grad", "pred", b.storage_len(pred), n)?;
    buffer_len("loss_grad", "target", b.storage_len(target), n)?;
    buffer_len("loss_grad", "grad", b.storage_len(grad), n)?;
    buffer_len("loss_grad", "loss", b.storage_len(loss), 1)?;
    if n == 0 {
        // The mean over zero elements.
        return b.fill(loss, f32::NAN);
    }
    match kind {
        LossKind::Mse => mse(b, (pred, target), n, grad, loss),
        LossKind::BceWithLogits => bce_with_logits(b, (pred, target), n, grad, loss),
        LossKind::SoftmaxCrossEntropy => {
            softmax_cross_entropy(b, (pred, target), (rows, cols), grad, loss)
        }
    }
}

fn mse<B: Backend>(
    b: &B,
    (pred, target): (&B::Storage, &B::Storage),
    n: usize,
    grad: &mut B::Storage,
    loss: &mut B::Storage,
) -> Result<()> {
    let mut tmp = b.alloc(n)?;
    same_shape(b, BinaryOp::Sub, &flat(n), (pred, target), grad)?;
    b.unary(UnaryOp::Square, grad, &mut tmp)?;
    sum_all(b, &tmp, n, loss)?;
    scale(b, loss, 1.0 / n as f32)?;
    scale(b, grad, 2.0 / n as f32)
}

fn bce_with_logits<B: Backend>(
    b: &B,
    (pred, target): (&B::Storage, &B::Storage),
    n: usize,
    grad: &mut B::Storage,
    loss: &mut B::Storage,
) -> Result<()> {
    // loss = softplus(z) - z * y; grad = sigmoid(z) - y
    let all = flat(n);
    let (mut tmp, mut zy) = (b.alloc(n)?, b.alloc(n)?);
    b.unary(UnaryOp::Softplus, pred, &mut tmp)?;
    same_shape(b, BinaryOp::Mul, &all, (pred, target), &mut zy)?;
    assign(b, BinaryOp::Sub, (&mut tmp, &all), (&zy, &all))?;
    sum_all(b, &tmp, n, loss)?;
    scale(b, loss, 1.0 / n as f32)?;
    b.unary(UnaryOp::Act(Activation::Sigmoid), pred, grad)?;
    assign(b, BinaryOp::Sub, (grad, &all), (target, &all))?;
    scale(b, grad, 1.0 / n as f32)
}

fn softmax_cross_entropy<B: Backend>(
    b: &B,
    (pred, target): (&B::Storage, &B::Storage),
    (rows, cols): (usize, usize),
    grad: &mut B::Storage,
    loss: &mut B::Storage,
) -> Result<()> {
    let n = rows * cols;
    let matrix = Shape::new([rows, cols]);
    let column = Shape::new([rows, 1]);
    let per_row = |op| ReduceSpec {
        op,
        outer: rows,
        len: cols,
        inner: 1,
    };
    let mut row_max = b.alloc(rows)?;
    b.reduce(per_row(ReduceOp::Max), pred, &mut row_max)?;
    // tmp = shifted logits
    let mut tmp = b.alloc(n)?;
    let shift = BinarySpec {
        op: BinaryOp::Sub,
        a_shape: &matrix,
        b_shape: &column,
        out_shape: &matrix,
    };
    b.binary(shift, pred, &row_max, &mut tmp)?;
    b.unary(UnaryOp::Exp, &tmp, grad)?;
    let mut row_sum = b.alloc(rows)?;
    b.reduce(per_row(ReduceOp::Sum), grad, &mut row_sum)?;
    assign(b, BinaryOp::Div, (grad, &matrix), (&row_sum, &column))?;
    assign(b, BinaryOp::Sub, (grad, &matrix), (target, &matrix))?;
    scale(b, grad, 1.0 / rows as f32)?;
    // log-probabilities: shifted - ln(row_sum)
    b.unary_assign(UnaryOp::Ln, &mut row_sum)?;
    assign(b, BinaryOp::Sub, (&mut tmp, &matrix), (&row_sum, &column))?;
    assign(b, BinaryOp::Mul, (&mut tmp, &matrix), (target, &matrix))?;
    sum_all(b, &tmp, n, loss)?;
    scale(b, loss, -1.0 / rows as f32)
}

fn scaled<B: Backend>(b: &B, x: &B::Storage, factor: f32, out: &mut B::Storage) -> Result<()> {
    let op = UnaryOp::Affine {
        scale: factor,
        shift: 0.0,
    };
    b.unary(op, x, out)
}

/// The default [`FusedOps::adam_step`](crate::FusedOps::adam_step), written out in
/// element-wise primitives.
pub fn adam_step<B: Backend>(
    b: &B,
    s: AdamStep,
    param: &mut B::Storage,
    grad: &B::Storage,
    moments: AdamMoments<'_, B::Storage>,
) -> Result<()> {
    let AdamMoments { m, v } = moments;
    let n = b.storage_len(param);
    buffer_len("adam_step", "grad", b.storage_len(grad), n)?;
    buffer_len("adam_step", "m", b.storage_len(m), n)?;
    buffer_len("adam_step", "v", b.storage_len(v), n)?;
    let all = flat(n);
    let mut g = b.alloc(n)?;
    copy_all(b, grad, &mut g, n)?;
    if s.weight_decay != 0.0 {
        if s.decoupled {
            scale(b, param, 1.0 - s.lr * s.weight_decay)?;
        } else {
            let mut wd = b.alloc(n)?;
            scaled(b, param, s.weight_decay, &mut wd)?;
            assign(b, BinaryOp::Add, (&mut g, &all), (&wd, &all))?;
        }
    }
    let mut tmp = b.alloc(n)?;
    scale(b, m, s.beta1)?;
    scaled(b, &g, 1.0 - s.beta1, &mut tmp)?;
    assign(b, BinaryOp::Add, (m, &all), (&tmp, &all))?;
    scale(b, v, s.beta2)?;
    b.unary(UnaryOp::Square, &g, &mut tmp)?;
    scale(b, &mut tmp, 1.0 - s.beta2)?;
    assign(b, BinaryOp::Add, (v, &all), (&tmp, &all))?;
    // denominator: sqrt(v / bc2) + eps, in tmp
    scaled(b, v, 1.0 / s.bias_correction2, &mut tmp)?;
    b.unary_assign(UnaryOp::Sqrt, &mut tmp)?;
    let add_eps = UnaryOp::Affine {
        scale: 1.0,
        shift: s.eps,
    };
    b.unary_assign(add_eps, &mut tmp)?;
    // numerator: lr * m / bc1, in g
    scaled(b, m, s.lr / s.bias_correction1, &mut g)?;
    assign(b, BinaryOp::Div, (&mut g, &all), (&tmp, &all))?;
    assign(b, BinaryOp::Sub, (param, &all), (&g, &all))
}

/// The default [`FusedOps::sgd_step`](crate::FusedOps::sgd_step), written out in
/// element-wise primitives.
pub fn sgd_step<B: Backend>(
    b: &B,
    s: SgdStep,
    param: &mut B::Storage,
    grad: &B::Storage,
    velocity: Option<&mut B::Storage>,
) -> Result<()> {
    let n = b.storage_len(param);
    buffer_len("sgd_step", "grad", b.storage_len(grad), n)?;
    if let Some(vel) = &velocity {
        buffer_len("sgd_step", "velocity", b.storage_len(vel), n)?;
    }
    let all = flat(n);
    let mut g = b.alloc(n)?;
    copy_all(b, grad, &mut g, n)?;
    if s.weight_decay != 0.0 {
        let mut wd = b.alloc(n)?;
        scaled(b, param, s.weight_decay, &mut wd)?;
        assign(b, BinaryOp::Add, (&mut g, &all), (&wd, &all))?;
    }
    if let (Some(vel), true) = (velocity, s.momentum != 0.0) {
        scale(b, vel, s.momentum)?;
        assign(b, BinaryOp::Add, (vel, &all), (&g, &all))?;
        if s.nesterov {
            let mut mv = b.alloc(n)?;
            scaled(b, vel, s.momentum, &mut mv)?;
            assign(b, BinaryOp::Add, (&mut g, &all), (&mv, &all))?;
        } else {
            copy_all(b, vel, &mut g, n)?;
        }
    }
    scale(b, &mut g, s.lr)?;
    assign(b, BinaryOp::Sub, (param, &all), (&g, &all))
}

/// The default [`FusedOps::fourier_features`](crate::FusedOps::fourier_features): one GEMM,
/// then the sines and cosines copied into their halves of the output.
pub fn fourier_features<B: Backend>(
    b: &B,
    p: FourierFeatures<'_, B::Storage>,
    out: &mut B::Storage,
) -> Result<()> {
    let FourierFeatures {
        x,
        freqs,
        rows,
        d,
        m,
    } = p;
    let op = "fourier_features";
    buffer_len(op, "x", b.storage_len(x), elements(op, rows, d)?)?;
    buffer_len(op, "b", b.storage_len(freqs), elements(op, d, m)?)?;
    let n = elements(op, rows, m)?;
    buffer_len(op, "out", b.storage_len(out), elements(op, n, 2)?)?;
    let mut proj = b.alloc(n)?;
    let gemm = Gemm {
        m: rows,
        n: m,
        k: d,
        trans_a: false,
        trans_b: false,
        alpha: std::f32::consts::TAU,
        beta: 0.0,
    };
    b.gemm(gemm, x, freqs, &mut proj)?;
    let mut tmp = b.alloc(n)?;
    let half = |col_offset| BlockCopy {
        rows,
        src_cols: m,
        dst_cols: 2 * m,
        col_offset,
    };
    b.unary(UnaryOp::Sin, &proj, &mut tmp)?;
    b.copy_block(half(0), &tmp, out)?;
    b.unary(UnaryOp::Cos, &proj, &mut tmp)?;
    b.copy_block(half(m), &tmp, out)
}
