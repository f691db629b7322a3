//! The parameters of the backend operations that take more than four arguments.
//!
//! Two conventions, one per trait family:
//!
//! - a [`Primitives`](crate::Primitives) operation takes a `Copy` description of its
//!   dimensions (like [`Gemm`](crate::Gemm)), then its buffers: `reduce(ReduceSpec { .. }, x, out)`;
//! - a fused operation (see [`fused`](crate::fused), where each defines its struct; those
//!   are re-exported here) takes one struct of what it reads (scalars
//!   and input buffers, by shared reference), then the buffers it writes:
//!   `loss_grad(LossGrad { .. }, grad, loss)`.
//!
//! Named fields replace runs of positional `usize`s that the compiler cannot tell apart.

use crate::{BinaryOp, ReduceOp, Shape};

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

pub use crate::fused::adam_step::AdamMoments;
pub use crate::fused::bias_act::BiasAct;
pub use crate::fused::fourier_features::FourierFeatures;
pub use crate::fused::gemm_act_grad::GemmActGrad;
pub use crate::fused::gemm_bias_act::GemmBiasAct;
pub use crate::fused::hashgrid_backward::HashGridScatter;
pub use crate::fused::hashgrid_forward::HashGridLookup;
pub use crate::fused::loss_grad::LossGrad;
