//! Default implementations of the fused operations, composed from primitives.
//!
//! They allocate temporaries; backends override the hot ones with single-pass kernels. Each
//! checks its buffers first, as the contract in [`Backend`] asks, so that a bad call fails
//! before anything is written.

use crate::check::{buffer_len, check_fused_gemm, elements};
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
    b.reduce(ReduceOp::Sum, x, 1, n, 1, out)
}

pub(crate) fn bias_act<B: Backend>(
    b: &B,
    z: &mut B::Storage,
    bias: &B::Storage,
    rows: usize,
    cols: usize,
    act: Activation,
    out: &mut B::Storage,
) -> Result<()> {
    let n = elements("bias_act", rows, cols)?;
    buffer_len("bias_act", "z", b.storage_len(z), n)?;
    buffer_len("bias_act", "bias", b.storage_len(bias), cols)?;
    buffer_len("bias_act", "out", b.storage_len(out), n)?;
    b.binary_assign(
        BinaryOp::Add,
        z,
        &Shape::new([rows, cols]),
        bias,
        &Shape::new([cols]),
    )?;
    b.unary(UnaryOp::Act(act), z, out)
}

pub(crate) fn gemm_bias_act<B: Backend>(
    b: &B,
    spec: Gemm,
    a: &B::Storage,
    bm: &B::Storage,
    bias: &B::Storage,
    act: Activation,
    c: &mut B::Storage,
) -> Result<()> {
    let op = "gemm_bias_act";
    let n = check_fused_gemm(b, op, &spec, ("bias", bias, spec.n), c)?;
    let mut z = b.alloc(n)?;
    b.gemm(spec, a, bm, &mut z)?;
    b.bias_act(&mut z, bias, spec.m, spec.n, act, c)
}

pub(crate) fn gemm_act_grad<B: Backend>(
    b: &B,
    spec: Gemm,
    a: &B::Storage,
    bm: &B::Storage,
    at: &B::Storage,
    act: Activation,
    c: &mut B::Storage,
) -> Result<()> {
    let op = "gemm_act_grad";
    let n = check_fused_gemm(b, op, &spec, ("at", at, spec.m * spec.n), c)?;
    let mut g = b.alloc(n)?;
    b.gemm(spec, a, bm, &mut g)?;
    b.act_backward(&g, at, act, c)
}

pub(crate) fn act_backward<B: Backend>(
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
    b.binary(
        BinaryOp::Mul,
        grad_out,
        &flat(n),
        &d,
        &flat(n),
        grad_z,
        &flat(n),
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn loss_grad<B: Backend>(
    b: &B,
    kind: LossKind,
    pred: &B::Storage,
    target: &B::Storage,
    rows: usize,
    cols: usize,
    grad: &mut B::Storage,
    loss: &mut B::Storage,
) -> Result<()> {
    let n = elements("loss_grad", rows, cols)?;
    buffer_len("loss_grad", "pred", b.storage_len(pred), n)?;
    buffer_len("loss_grad", "target", b.storage_len(target), n)?;
    buffer_len("loss_grad", "grad", b.storage_len(grad), n)?;
    buffer_len("loss_grad", "loss", b.storage_len(loss), 1)?;
    if n == 0 {
        // The mean over zero elements.
        return b.fill(loss, f32::NAN);
    }
    let all = flat(n);
    let mut tmp = b.alloc(n)?;
    match kind {
        LossKind::Mse => {
            b.binary(BinaryOp::Sub, pred, &all, target, &all, grad, &all)?;
            b.unary(UnaryOp::Square, grad, &mut tmp)?;
            sum_all(b, &tmp, n, loss)?;
            scale(b, loss, 1.0 / n as f32)?;
            scale(b, grad, 2.0 / n as f32)
        }
        LossKind::BceWithLogits => {
            // loss = softplus(z) - z * y; grad = sigmoid(z) - y
            let mut zy = b.alloc(n)?;
            b.unary(UnaryOp::Softplus, pred, &mut tmp)?;
            b.binary(BinaryOp::Mul, pred, &all, target, &all, &mut zy, &all)?;
            b.binary_assign(BinaryOp::Sub, &mut tmp, &all, &zy, &all)?;
            sum_all(b, &tmp, n, loss)?;
            scale(b, loss, 1.0 / n as f32)?;
            b.unary(UnaryOp::Act(Activation::Sigmoid), pred, grad)?;
            b.binary_assign(BinaryOp::Sub, grad, &all, target, &all)?;
            scale(b, grad, 1.0 / n as f32)
        }
        LossKind::SoftmaxCrossEntropy => {
            let matrix = Shape::new([rows, cols]);
            let column = Shape::new([rows, 1]);
            let mut row_max = b.alloc(rows)?;
            b.reduce(ReduceOp::Max, pred, rows, cols, 1, &mut row_max)?;
            // tmp = shifted logits
            b.binary(
                BinaryOp::Sub,
                pred,
                &matrix,
                &row_max,
                &column,
                &mut tmp,
                &matrix,
            )?;
            b.unary(UnaryOp::Exp, &tmp, grad)?;
            let mut row_sum = b.alloc(rows)?;
            b.reduce(ReduceOp::Sum, grad, rows, cols, 1, &mut row_sum)?;
            b.binary_assign(BinaryOp::Div, grad, &matrix, &row_sum, &column)?;
            b.binary_assign(BinaryOp::Sub, grad, &matrix, target, &matrix)?;
            scale(b, grad, 1.0 / rows as f32)?;
            // log-probabilities: shifted - ln(row_sum)
            b.unary_assign(UnaryOp::Ln, &mut row_sum)?;
            b.binary_assign(BinaryOp::Sub, &mut tmp, &matrix, &row_sum, &column)?;
            b.binary_assign(BinaryOp::Mul, &mut tmp, &matrix, target, &matrix)?;
            sum_all(b, &tmp, n, loss)?;
            scale(b, loss, -1.0 / rows as f32)
        }
    }
}

pub(crate) fn adam_step<B: Backend>(
    b: &B,
    s: AdamStep,
    param: &mut B::Storage,
    grad: &B::Storage,
    m: &mut B::Storage,
    v: &mut B::Storage,
) -> Result<()> {
    let n = b.storage_len(param);
    buffer_len("adam_step", "grad", b.storage_len(grad), n)?;
    buffer_len("adam_step", "m", b.storage_len(m), n)?;
    buffer_len("adam_step", "v", b.storage_len(v), n)?;
    let all = flat(n);
    let mut g = b.alloc(n)?;
    b.copy_slice(grad, 0, &mut g, 0, n)?;
    if s.weight_decay != 0.0 {
        if s.decoupled {
            scale(b, param, 1.0 - s.lr * s.weight_decay)?;
        } else {
            let mut wd = b.alloc(n)?;
            b.unary(
                UnaryOp::Affine {
                    scale: s.weight_decay,
                    shift: 0.0,
                },
                param,
                &mut wd,
            )?;
            b.binary_assign(BinaryOp::Add, &mut g, &all, &wd, &all)?;
        }
    }
    let mut tmp = b.alloc(n)?;
    scale(b, m, s.beta1)?;
    b.unary(
        UnaryOp::Affine {
            scale: 1.0 - s.beta1,
            shift: 0.0,
        },
        &g,
        &mut tmp,
    )?;
    b.binary_assign(BinaryOp::Add, m, &all, &tmp, &all)?;
    scale(b, v, s.beta2)?;
    b.unary(UnaryOp::Square, &g, &mut tmp)?;
    scale(b, &mut tmp, 1.0 - s.beta2)?;
    b.binary_assign(BinaryOp::Add, v, &all, &tmp, &all)?;
    // denominator: sqrt(v / bc2) + eps, in tmp
    b.unary(
        UnaryOp::Affine {
            scale: 1.0 / s.bias_correction2,
            shift: 0.0,
        },
        v,
        &mut tmp,
    )?;
    b.unary_assign(UnaryOp::Sqrt, &mut tmp)?;
    b.unary_assign(
        UnaryOp::Affine {
            scale: 1.0,
            shift: s.eps,
        },
        &mut tmp,
    )?;
    // numerator: lr * m / bc1, in g
    b.unary(
        UnaryOp::Affine {
            scale: s.lr / s.bias_correction1,
            shift: 0.0,
        },
        m,
        &mut g,
    )?;
    b.binary_assign(BinaryOp::Div, &mut g, &all, &tmp, &all)?;
    b.binary_assign(BinaryOp::Sub, param, &all, &g, &all)
}

pub(crate) fn sgd_step<B: Backend>(
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
    b.copy_slice(grad, 0, &mut g, 0, n)?;
    if s.weight_decay != 0.0 {
        let mut wd = b.alloc(n)?;
        b.unary(
            UnaryOp::Affine {
                scale: s.weight_decay,
                shift: 0.0,
            },
            param,
            &mut wd,
        )?;
        b.binary_assign(BinaryOp::Add, &mut g, &all, &wd, &all)?;
    }
    if let (Some(vel), true) = (velocity, s.momentum != 0.0) {
        scale(b, vel, s.momentum)?;
        b.binary_assign(BinaryOp::Add, vel, &all, &g, &all)?;
        if s.nesterov {
            let mut mv = b.alloc(n)?;
            b.unary(
                UnaryOp::Affine {
                    scale: s.momentum,
                    shift: 0.0,
                },
                vel,
                &mut mv,
            )?;
            b.binary_assign(BinaryOp::Add, &mut g, &all, &mv, &all)?;
        } else {
            b.copy_slice(vel, 0, &mut g, 0, n)?;
        }
    }
    scale(b, &mut g, s.lr)?;
    b.binary_assign(BinaryOp::Sub, param, &all, &g, &all)
}

pub(crate) fn fourier_features<B: Backend>(
    b: &B,
    x: &B::Storage,
    freqs: &B::Storage,
    rows: usize,
    d: usize,
    m: usize,
    out: &mut B::Storage,
) -> Result<()> {
    let op = "fourier_features";
    buffer_len(op, "x", b.storage_len(x), elements(op, rows, d)?)?;
    buffer_len(op, "b", b.storage_len(freqs), elements(op, d, m)?)?;
    let n = elements(op, rows, m)?;
    buffer_len(op, "out", b.storage_len(out), elements(op, n, 2)?)?;
    let mut proj = b.alloc(n)?;
    b.gemm(
        Gemm {
            m: rows,
            n: m,
            k: d,
            trans_a: false,
            trans_b: false,
            alpha: std::f32::consts::TAU,
            beta: 0.0,
        },
        x,
        freqs,
        &mut proj,
    )?;
    let mut tmp = b.alloc(n)?;
    b.unary(UnaryOp::Sin, &proj, &mut tmp)?;
    b.copy_block(&tmp, m, out, 2 * m, 0, rows)?;
    b.unary(UnaryOp::Cos, &proj, &mut tmp)?;
    b.copy_block(&tmp, m, out, 2 * m, m, rows)
}
