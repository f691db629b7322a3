//! Descriptions of the primitive operations a [`Backend`](crate::Backend) runs.

use crate::Activation;

/// An element-wise operation of one operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `e^x`
    Exp,
    /// Natural logarithm.
    Ln,
    /// Square root.
    Sqrt,
    /// Absolute value.
    Abs,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// `x^p`.
    Powf(f32),
    /// `x * x`.
    Square,
    /// `1 / x`.
    Recip,
    /// `min(max(x, min), max)`; NaN stays NaN (as `torch.clamp`).
    Clamp {
        /// Lower bound.
        min: f32,
        /// Upper bound.
        max: f32,
    },
    /// `x * scale + shift`.
    Affine {
        /// Factor.
        scale: f32,
        /// Offset added after scaling.
        shift: f32,
    },
    /// `ln(1 + e^x)`, computed without overflow.
    Softplus,
    /// `x > 0 ? 1 : 0`.
    Step,
    /// An activation function applied forward.
    Act(Activation),
    /// The derivative of an activation, as a function of its input (the pre-activation).
    ActGrad(Activation),
}

impl UnaryOp {
    /// Applies the operation to one value (the reference every backend must match).
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            UnaryOp::Neg => -x,
            UnaryOp::Exp => x.exp(),
            UnaryOp::Ln => x.ln(),
            UnaryOp::Sqrt => x.sqrt(),
            UnaryOp::Abs => x.abs(),
            UnaryOp::Sin => x.sin(),
            UnaryOp::Cos => x.cos(),
            UnaryOp::Powf(p) => x.powf(p),
            UnaryOp::Square => x * x,
            UnaryOp::Recip => 1.0 / x,
            UnaryOp::Clamp { min, max } => {
                if x.is_nan() {
                    x
                } else {
                    x.max(min).min(max)
                }
            }
            UnaryOp::Affine { scale, shift } => x * scale + shift,
            UnaryOp::Softplus => x.max(0.0) + (-x.abs()).exp().ln_1p(),
            UnaryOp::Step => {
                if x > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            UnaryOp::Act(a) => a.forward(x),
            UnaryOp::ActGrad(a) => a.derivative(x),
        }
    }
}

/// An element-wise operation of two operands (broadcast under numpy rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `max(a, b)`, NaN when either is NaN (as `torch.maximum`).
    Maximum,
    /// `min(a, b)`, NaN when either is NaN (as `torch.minimum`).
    Minimum,
    /// `a^b`
    Pow,
    /// `a > b` as 1.0 or 0.0.
    Gt,
    /// `a >= b` as 1.0 or 0.0.
    Ge,
    /// `a < b` as 1.0 or 0.0.
    Lt,
    /// `a <= b` as 1.0 or 0.0.
    Le,
    /// `a == b` as 1.0 or 0.0.
    Eq,
}

impl BinaryOp {
    /// Applies the operation to one pair of values.
    #[inline]
    pub fn apply(self, a: f32, b: f32) -> f32 {
        let mask = |c: bool| if c { 1.0 } else { 0.0 };
        match self {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            BinaryOp::Maximum => maximum(a, b),
            BinaryOp::Minimum => minimum(a, b),
            BinaryOp::Pow => a.powf(b),
            BinaryOp::Gt => mask(a > b),
            BinaryOp::Ge => mask(a >= b),
            BinaryOp::Lt => mask(a < b),
            BinaryOp::Le => mask(a <= b),
            BinaryOp::Eq => mask(a == b),
        }
    }
}

/// `max(a, b)`, propagating NaN (`f32::max` would drop it).
#[inline(always)]
pub(crate) fn maximum(a: f32, b: f32) -> f32 {
    if a > b || a.is_nan() { a } else { b }
}

/// `min(a, b)`, propagating NaN (`f32::min` would drop it).
#[inline(always)]
pub(crate) fn minimum(a: f32, b: f32) -> f32 {
    if a < b || a.is_nan() { a } else { b }
}

/// A reduction along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// Sum of the values.
    Sum,
    /// Arithmetic mean.
    Mean,
    /// Largest value; NaN when the values hold a NaN.
    Max,
    /// Smallest value; NaN when the values hold a NaN.
    Min,
    /// Position of the largest value (the first on ties, the first NaN when there is one),
    /// as f32.
    ArgMax,
    /// Position of the smallest value (the first on ties, the first NaN when there is one),
    /// as f32.
    ArgMin,
}

/// Dimensions and flags of a row-major GEMM: `C = alpha * op(A) * op(B) + beta * C`.
///
/// `op(A)` is `m x k` and `op(B)` is `k x n`; with `trans_a`, `A` is stored as `k x m`,
/// with `trans_b`, `B` is stored as `n x k`. As in BLAS, `alpha == 0` does not read `A` and
/// `B` and `beta == 0` does not read `C`, so NaN there does not reach the result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gemm {
    /// Rows of `C`.
    pub m: usize,
    /// Columns of `C`.
    pub n: usize,
    /// The shared dimension.
    pub k: usize,
    /// Whether `A` is stored transposed.
    pub trans_a: bool,
    /// Whether `B` is stored transposed.
    pub trans_b: bool,
    /// Factor on the product (0: `A` and `B` are not read).
    pub alpha: f32,
    /// Factor on the existing contents of `C` (0: `C` is not read, so even NaN is
    /// overwritten).
    pub beta: f32,
}

/// A loss function with its gradient, averaged over the batch; the loss of an empty batch
/// is NaN (the mean of nothing, as PyTorch's mean reduction gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossKind {
    /// Mean squared error over every element.
    Mse,
    /// Binary cross-entropy on logits, averaged over every element.
    BceWithLogits,
    /// Softmax cross-entropy over each row against one-hot (or probability) targets,
    /// averaged over rows.
    SoftmaxCrossEntropy,
}

/// One Adam or AdamW step's hyper-parameters, bias corrections included.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamStep {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the first moment.
    pub beta1: f32,
    /// Decay of the second moment.
    pub beta2: f32,
    /// Added to the root of the second moment.
    pub eps: f32,
    /// Weight decay (L2 for Adam, decoupled for AdamW).
    pub weight_decay: f32,
    /// Whether weight decay is decoupled (AdamW).
    pub decoupled: bool,
    /// `1 - beta1^t`.
    pub bias_correction1: f32,
    /// `1 - beta2^t`.
    pub bias_correction2: f32,
}

/// One SGD step's hyper-parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgdStep {
    /// Learning rate.
    pub lr: f32,
    /// Momentum factor (0 for plain SGD).
    pub momentum: f32,
    /// Whether to use Nesterov momentum.
    pub nesterov: bool,
    /// L2 weight decay added to the gradient.
    pub weight_decay: f32,
}
