//! The parameters of the backend operations that take more than four arguments.
//!
//! Two conventions, one per trait family:
//!
//! - a [`Primitives`](crate::Primitives) operation takes a `Copy` description of its
//!   dimensions (like [`Gemm`]), then its buffers: `reduce(ReduceSpec { .. }, x, out)`;
//! - a [`FusedOps`](crate::FusedOps) operation takes one struct of what it reads (scalars
//!   and input buffers, by shared reference), then the buffers it writes:
//!   `loss_grad(LossGrad { .. }, grad, loss)`.
//!
//! Named fields replace runs of positional `usize`s that the compiler cannot tell apart.

use crate::hashgrid::{FeatureLayout, HashGridSpec};
use crate::{Activation, BinaryOp, Gemm, LossKind, ReduceOp, Shape};

/// [`copy_slice`](crate::Primitives::copy_slice): `len` elements from `src[src_offset..]`
/// to `dst[dst_offset..]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceCopy {
    /// The first element read from `src`.
    pub src_offset: usize,
    /// The first element written in `dst`.
    pub dst_offset: usize,
    /// How many elements to copy.
    pub len: usize,
}

/// [`copy_block`](crate::Primitives::copy_block): a `rows x src_cols` matrix into columns
/// `col_offset..col_offset + src_cols` of a `rows x dst_cols` matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockCopy {
    /// Rows of both matrices.
    pub rows: usize,
    /// Columns of the source matrix.
    pub src_cols: usize,
    /// Columns of the destination matrix.
    pub dst_cols: usize,
    /// The destination column that receives the source's first column.
    pub col_offset: usize,
}

/// [`binary`](crate::Primitives::binary): `out = op(a, b)` with broadcasting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinarySpec<'a> {
    /// The element-wise operation.
    pub op: BinaryOp,
    /// The shape of `a`.
    pub a_shape: &'a Shape,
    /// The shape of `b`.
    pub b_shape: &'a Shape,
    /// The shape of `out`: the broadcast of the two.
    pub out_shape: &'a Shape,
}

/// [`binary_assign`](crate::Primitives::binary_assign): `a = op(a, b)`, `b` broadcast to
/// `a`'s shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinaryAssignSpec<'a> {
    /// The element-wise operation.
    pub op: BinaryOp,
    /// The shape of `a` (and of the result).
    pub a_shape: &'a Shape,
    /// The shape of `b`, which broadcasts to `a_shape`.
    pub b_shape: &'a Shape,
}

/// [`reduce`](crate::Primitives::reduce): `x` seen as `outer x len x inner`, reduced along
/// the middle axis into `outer x inner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceSpec {
    /// The reduction.
    pub op: ReduceOp,
    /// The product of the dimensions before the reduced axis.
    pub outer: usize,
    /// The length of the reduced axis.
    pub len: usize,
    /// The product of the dimensions after the reduced axis.
    pub inner: usize,
}

/// [`gather_rows`](crate::Primitives::gather_rows): `dst[r, :] = src[index[start + r], :]`
/// for `r < count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatherSpec {
    /// Rows of `src`; every gathered index must be below it.
    pub src_rows: usize,
    /// Columns of `src` and `dst`.
    pub cols: usize,
    /// The first index read from the index buffer.
    pub start: usize,
    /// Rows gathered (the rows of `dst`).
    pub count: usize,
}

/// What [`bias_act`](crate::FusedOps::bias_act) reads besides the pre-activation `z`.
pub struct BiasAct<'a, S> {
    /// The bias, `[cols]`, broadcast over the rows.
    pub bias: &'a S,
    /// Rows of `z` and `out`.
    pub rows: usize,
    /// Columns of `z` and `out`.
    pub cols: usize,
    /// The activation applied after the bias.
    pub act: Activation,
}

/// What [`gemm_bias_act`](crate::FusedOps::gemm_bias_act) reads:
/// `c = act(alpha * op(A) op(B) + bias)`.
pub struct GemmBiasAct<'a, S> {
    /// The product's dimensions and flags; `beta` must be 0.
    pub gemm: Gemm,
    /// `A`, `m * k` elements.
    pub a: &'a S,
    /// `B`, `k * n` elements.
    pub b: &'a S,
    /// The bias, `[n]`, broadcast over the rows of the result.
    pub bias: &'a S,
    /// The activation applied last.
    pub act: Activation,
}

/// What [`gemm_act_grad`](crate::FusedOps::gemm_act_grad) reads:
/// `c = (alpha * op(A) op(B)) * act'(at)`.
pub struct GemmActGrad<'a, S> {
    /// The product's dimensions and flags; `beta` must be 0.
    pub gemm: Gemm,
    /// `A`, `m * k` elements.
    pub a: &'a S,
    /// `B`, `k * n` elements.
    pub b: &'a S,
    /// Where the activation's derivative is taken, `m * n` elements.
    pub at: &'a S,
    /// The activation whose derivative multiplies the product.
    pub act: Activation,
}

/// What [`loss_grad`](crate::FusedOps::loss_grad) reads.
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

/// The moment buffers that [`adam_step`](crate::FusedOps::adam_step) updates, each of the
/// parameter's length.
pub struct AdamMoments<'a, S> {
    /// The first moment (mean of the gradients).
    pub m: &'a mut S,
    /// The second moment (mean of the squared gradients).
    pub v: &'a mut S,
}

/// What [`fourier_features`](crate::FusedOps::fourier_features) reads:
/// `out = [sin(2 pi x b), cos(2 pi x b)]`.
pub struct FourierFeatures<'a, S> {
    /// The points, `rows x d`.
    pub x: &'a S,
    /// The frequencies, `d x m`.
    pub freqs: &'a S,
    /// Points.
    pub rows: usize,
    /// Input dimensions.
    pub d: usize,
    /// Frequencies (the output has `2 m` columns).
    pub m: usize,
}

/// What [`hashgrid_forward`](crate::FusedOps::hashgrid_forward) reads.
pub struct HashGridLookup<'a, S> {
    /// The grid's levels and table sizes.
    pub spec: &'a HashGridSpec,
    /// How the output features are laid out.
    pub layout: FeatureLayout,
    /// The points, `n x d`, coordinates in `[0, 1]` (clamped).
    pub points: &'a S,
    /// Points.
    pub n: usize,
    /// The tables, [`HashGridSpec::param_count`] values.
    pub tables: &'a S,
}

/// What [`hashgrid_backward`](crate::FusedOps::hashgrid_backward) reads.
pub struct HashGridScatter<'a, S> {
    /// The grid's levels and table sizes.
    pub spec: &'a HashGridSpec,
    /// How `grad_features` is laid out.
    pub layout: FeatureLayout,
    /// The points of the forward pass, `n x d`.
    pub points: &'a S,
    /// Points.
    pub n: usize,
    /// The gradient with respect to the features, in `layout`.
    pub grad_features: &'a S,
    /// Add to the table gradient's contents (`true`) or overwrite them (`false`).
    pub accumulate: bool,
}
