//! `loss_grad`: a loss and its gradient in one pass.

use super::compose::{assign, flat, same_shape, scale, sum_all};
use crate::check::{buffer_len, elements};
use crate::{
    Activation, Backend, BinaryOp, BinarySpec, LossKind, Primitives, ReduceOp, ReduceSpec, Result,
    Shape, UnaryOp,
};

/// What [`loss_grad`](crate::LossGradOp::loss_grad) reads.
pub struct LossGrad<'a, S> {
    /// The loss.
    pub kind: LossKind,
    /// The predictions, `rows x cols`.
    pub pred: &'a S,
    /// The targets, `rows x cols`.
    pub target: &'a S,
    /// Rows of the batch.
    pub rows: usize,
    /// Columns (outputs per row).
    pub cols: usize,
}

/// The fused operation `loss_grad`; see [the fused operations](crate::fused).
pub trait LossGradOp: Primitives {
    /// The loss of `pred` against `target` (both `rows x cols`) into the one-element
    /// `loss`, and its gradient with respect to `pred` into `grad`. An empty batch gives a
    /// NaN loss. Default: [`composed`].
    fn loss_grad(
        &self,
        p: LossGrad<'_, Self::Storage>,
        grad: &mut Self::Storage,
        loss: &mut Self::Storage,
    ) -> Result<()>;
}

/// Checks the buffers of a `rows x cols` call, by their lengths: `pred`, `target` and `grad`
/// hold `rows * cols` elements, `loss` one. Returns `rows * cols`; the error is
/// [`Error::BufferLength`](crate::Error) (or `InvalidArgument` when the product overflows),
/// the same from every backend.
#[inline]
pub fn check(rows: usize, cols: usize, [pred, target, grad, loss]: [usize; 4]) -> Result<usize> {
    let n = elements("loss_grad", rows, cols)?;
    buffer_len("loss_grad", "pred", pred, n)?;
    buffer_len("loss_grad", "target", target, n)?;
    buffer_len("loss_grad", "grad", grad, n)?;
    buffer_len("loss_grad", "loss", loss, 1)?;
    Ok(n)
}

/// The default [`LossGradOp::loss_grad`], one composition per
/// loss.
pub fn composed<B: Backend>(
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
    let lens = [
        b.storage_len(pred),
        b.storage_len(target),
        b.storage_len(grad),
        b.storage_len(loss),
    ];
    let n = check(rows, cols, lens)?;
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

#[cfg(feature = "testing")]
impl<B: Backend> LossGradOp for crate::testing::Composed<B> {
    fn loss_grad(
        &self,
        p: LossGrad<'_, Self::Storage>,
        grad: &mut Self::Storage,
        loss: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, grad, loss)
    }
}
