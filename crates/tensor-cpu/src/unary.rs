//! Element-wise functions of one operand.

use crate::kernel::{self, Cos, Elem, Plain, Sin, with_act, with_act_grad};
use crate::parallel::{PAR_THRESHOLD, chunk_len};
use rayon::prelude::*;
use tensor_core::UnaryOp;

fn map_into<E: Elem>(e: E, x: &[f32], out: &mut [f32]) {
    if x.len() < PAR_THRESHOLD {
        kernel::map(e, x, out);
    } else {
        let chunk = chunk_len(x.len());
        out.par_chunks_mut(chunk)
            .zip(x.par_chunks(chunk))
            .for_each(|(o, x)| kernel::map(e, x, o));
    }
}

fn map_assign<E: Elem>(e: E, x: &mut [f32]) {
    crate::parallel::for_chunks_mut(x, |_, c| kernel::map_assign(e, c));
}

/// Expands `$body` once per operation with `$e` bound to an [`Elem`] specialised to it, so
/// each loop is monomorphised (and vectorised where the function allows).
macro_rules! dispatch {
    ($op:expr, $e:ident => $body:expr) => {
        match $op {
            UnaryOp::Neg => {
                let $e = Plain(|v: f32| -v);
                $body
            }
            UnaryOp::Exp => {
                let $e = Plain(crate::math::exp);
                $body
            }
            UnaryOp::Sqrt => {
                let $e = Plain(f32::sqrt);
                $body
            }
            UnaryOp::Abs => {
                let $e = Plain(f32::abs);
                $body
            }
            UnaryOp::Sin => {
                let $e = Sin { scale: 1.0, mul: 1.0 };
                $body
            }
            UnaryOp::Cos => {
                let $e = Cos { scale: 1.0, mul: 1.0 };
                $body
            }
            UnaryOp::Square => {
                let $e = Plain(|v: f32| v * v);
                $body
            }
            UnaryOp::Recip => {
                let $e = Plain(|v: f32| 1.0 / v);
                $body
            }
            op @ UnaryOp::Clamp { .. } => {
                let $e = Plain(move |v: f32| op.apply(v));
                $body
            }
            UnaryOp::Affine { scale, shift } => {
                let $e = Plain(move |v: f32| v * scale + shift);
                $body
            }
            UnaryOp::Step => {
                let $e = Plain(|v: f32| if v > 0.0 { 1.0 } else { 0.0 });
                $body
            }
            UnaryOp::Act(act) => with_act!(act, $e => $body),
            UnaryOp::ActGrad(act) => with_act_grad!(act, $e => $body),
            op @ (UnaryOp::Ln | UnaryOp::Powf(_) | UnaryOp::Softplus) => {
                // The library `ln` and `powf` normalise a subnormal input by its bits, which
                // reads garbage once the float mode reads it as zero: give them the zero.
                let $e = Plain(move |v: f32| op.apply($crate::subnormals::read_as_zero(v)));
                $body
            }
        }
    };
}

pub(crate) fn unary(op: UnaryOp, x: &[f32], out: &mut [f32]) {
    dispatch!(op, e => map_into(e, x, out))
}

pub(crate) fn unary_assign(op: UnaryOp, x: &mut [f32]) {
    dispatch!(op, e => map_assign(e, x))
}
