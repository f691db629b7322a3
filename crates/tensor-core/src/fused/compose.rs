//! Small compositions of primitives that the default compositions of the fused
//! operations share.

use crate::params::{BinaryAssignSpec, BinarySpec, ReduceSpec, SliceCopy};
use crate::{Backend, BinaryOp, ReduceOp, Result, Shape, UnaryOp};

pub(super) fn flat(n: usize) -> Shape {
    Shape::new([n])
}

pub(super) fn scale<B: Backend>(b: &B, x: &mut B::Storage, factor: f32) -> Result<()> {
    b.unary_assign(
        UnaryOp::Affine {
            scale: factor,
            shift: 0.0,
        },
        x,
    )
}

pub(super) fn sum_all<B: Backend>(
    b: &B,
    x: &B::Storage,
    n: usize,
    out: &mut B::Storage,
) -> Result<()> {
    let spec = ReduceSpec {
        op: ReduceOp::Sum,
        outer: 1,
        len: n,
        inner: 1,
    };
    b.reduce(spec, x, out)
}

/// `a = op(a, b)` for two buffers of the same shape or `b` broadcast to `a_shape`.
pub(super) fn assign<B: Backend>(
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
pub(super) fn same_shape<B: Backend>(
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
pub(super) fn copy_all<B: Backend>(
    b: &B,
    src: &B::Storage,
    dst: &mut B::Storage,
    n: usize,
) -> Result<()> {
    let range = SliceCopy {
        src_offset: 0,
        dst_offset: 0,
        len: n,
    };
    b.copy_slice(range, src, dst)
}

pub(super) fn scaled<B: Backend>(
    b: &B,
    x: &B::Storage,
    factor: f32,
    out: &mut B::Storage,
) -> Result<()> {
    let op = UnaryOp::Affine {
        scale: factor,
        shift: 0.0,
    };
    b.unary(op, x, out)
}
