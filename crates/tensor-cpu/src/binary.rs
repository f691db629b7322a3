//! Element-wise functions of two operands, with numpy broadcasting.

use crate::parallel::{PAR_THRESHOLD, chunk_len};
use rayon::prelude::*;
use tensor_core::check::buffer_len;
use tensor_core::{BinaryOp, Error, Result, Shape};

/// How to read the two operands for each row (last axis) of the output.
struct Layout {
    /// Output dimensions except the last.
    outer_dims: Vec<usize>,
    /// Length of the last axis of the output.
    last: usize,
    a_strides: Vec<usize>,
    b_strides: Vec<usize>,
}

impl Layout {
    fn new(a_shape: &Shape, b_shape: &Shape, out_shape: &Shape) -> Self {
        let dims = out_shape.dims();
        let (outer_dims, last) = match dims.split_last() {
            Some((&last, outer)) => (outer.to_vec(), last),
            None => (Vec::new(), 1),
        };
        Layout {
            outer_dims,
            last,
            a_strides: a_shape.broadcast_strides(out_shape),
            b_strides: b_shape.broadcast_strides(out_shape),
        }
    }

    /// Offsets of the start of output row `row` in `a` and `b`, and their strides along
    /// the last axis.
    fn row(&self, mut row: usize) -> (usize, usize, usize, usize) {
        let (mut ao, mut bo) = (0, 0);
        for i in (0..self.outer_dims.len()).rev() {
            let d = self.outer_dims[i];
            let idx = row % d;
            row /= d;
            ao += idx * self.a_strides[i];
            bo += idx * self.b_strides[i];
        }
        let (a_last, b_last) = match (self.a_strides.last(), self.b_strides.last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, 0),
        };
        (ao, bo, a_last, b_last)
    }
}

#[allow(clippy::too_many_arguments)]
fn check_shapes(
    op: &'static str,
    a: usize,
    a_shape: &Shape,
    b: usize,
    b_shape: &Shape,
    out: usize,
    out_shape: &Shape,
) -> Result<()> {
    buffer_len(op, "a", a, a_shape.numel())?;
    buffer_len(op, "b", b, b_shape.numel())?;
    buffer_len(op, "out", out, out_shape.numel())?;
    let expected = a_shape.broadcast(b_shape, op)?;
    if &expected != out_shape {
        return Err(Error::ShapeMismatch {
            op,
            lhs: expected,
            rhs: out_shape.clone(),
        });
    }
    Ok(())
}

macro_rules! dispatch {
    ($op:expr, $f:ident => $body:expr) => {
        match $op {
            BinaryOp::Add => {
                let $f = |a: f32, b: f32| a + b;
                $body
            }
            BinaryOp::Sub => {
                let $f = |a: f32, b: f32| a - b;
                $body
            }
            BinaryOp::Mul => {
                let $f = |a: f32, b: f32| a * b;
                $body
            }
            BinaryOp::Div => {
                let $f = |a: f32, b: f32| a / b;
                $body
            }
            BinaryOp::Pow => {
                // The library `powf` normalises a subnormal base by its bits, which reads
                // garbage once the float mode reads it as zero: give it the zero.
                use $crate::subnormals::read_as_zero;
                let $f = |a: f32, b: f32| read_as_zero(a).powf(read_as_zero(b));
                $body
            }
            op => {
                let $f = move |a: f32, b: f32| op.apply(a, b);
                $body
            }
        }
    };
}

/// `out = op(a, b)` with broadcasting.
pub(crate) fn binary(
    op: BinaryOp,
    a: &[f32],
    a_shape: &Shape,
    b: &[f32],
    b_shape: &Shape,
    out: &mut [f32],
    out_shape: &Shape,
) -> Result<()> {
    check_shapes(
        "binary",
        a.len(),
        a_shape,
        b.len(),
        b_shape,
        out.len(),
        out_shape,
    )?;
    dispatch!(op, f => apply(f, a, a_shape, b, b_shape, out, out_shape));
    Ok(())
}

/// `a = op(a, b)` where `b` broadcasts to `a`.
pub(crate) fn binary_assign(
    op: BinaryOp,
    a: &mut [f32],
    a_shape: &Shape,
    b: &[f32],
    b_shape: &Shape,
) -> Result<()> {
    check_shapes(
        "binary_assign",
        a.len(),
        a_shape,
        b.len(),
        b_shape,
        a.len(),
        a_shape,
    )?;
    dispatch!(op, f => apply_assign(f, a, a_shape, b, b_shape));
    Ok(())
}

fn apply<F: Fn(f32, f32) -> f32 + Sync>(
    f: F,
    a: &[f32],
    a_shape: &Shape,
    b: &[f32],
    b_shape: &Shape,
    out: &mut [f32],
    out_shape: &Shape,
) {
    let n = out.len();
    if n == 0 {
        return;
    }
    if a.len() == n && b.len() == n {
        let body = |(o, (a, b)): (&mut [f32], (&[f32], &[f32]))| {
            o.iter_mut()
                .zip(a.iter().zip(b))
                .for_each(|(o, (&x, &y))| *o = f(x, y))
        };
        if n < PAR_THRESHOLD {
            body((out, (a, b)));
        } else {
            let chunk = chunk_len(n);
            out.par_chunks_mut(chunk)
                .zip(a.par_chunks(chunk).zip(b.par_chunks(chunk)))
                .for_each(body);
        }
        return;
    }
    let layout = Layout::new(a_shape, b_shape, out_shape);
    let last = layout.last;
    let row = |(r, o): (usize, &mut [f32])| {
        let (ao, bo, sa, sb) = layout.row(r);
        for (j, o) in o.iter_mut().enumerate() {
            *o = f(a[ao + j * sa], b[bo + j * sb]);
        }
    };
    if n < PAR_THRESHOLD {
        out.chunks_mut(last).enumerate().for_each(row);
    } else {
        out.par_chunks_mut(last).enumerate().for_each(row);
    }
}

fn apply_assign<F: Fn(f32, f32) -> f32 + Sync>(
    f: F,
    a: &mut [f32],
    a_shape: &Shape,
    b: &[f32],
    b_shape: &Shape,
) {
    let n = a.len();
    if n == 0 {
        return;
    }
    if b.len() == n {
        let body =
            |(a, b): (&mut [f32], &[f32])| a.iter_mut().zip(b).for_each(|(x, &y)| *x = f(*x, y));
        if n < PAR_THRESHOLD {
            body((a, b));
        } else {
            let chunk = chunk_len(n);
            a.par_chunks_mut(chunk)
                .zip(b.par_chunks(chunk))
                .for_each(body);
        }
        return;
    }
    let layout = Layout::new(a_shape, b_shape, a_shape);
    let last = layout.last;
    let row = |(r, x): (usize, &mut [f32])| {
        let (_, bo, _, sb) = layout.row(r);
        for (j, x) in x.iter_mut().enumerate() {
            *x = f(*x, b[bo + j * sb]);
        }
    };
    if n < PAR_THRESHOLD {
        a.chunks_mut(last).enumerate().for_each(row);
    } else {
        a.par_chunks_mut(last).enumerate().for_each(row);
    }
}
