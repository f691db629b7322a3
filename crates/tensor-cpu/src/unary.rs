//! Element-wise functions of one operand.

use crate::parallel::{CHUNK, PAR_THRESHOLD};
use rayon::prelude::*;
use tensor_core::{Activation, UnaryOp};

fn map_into<F: Fn(f32) -> f32 + Sync>(x: &[f32], out: &mut [f32], f: F) {
    if x.len() < PAR_THRESHOLD {
        out.iter_mut().zip(x).for_each(|(o, &v)| *o = f(v));
    } else {
        out.par_chunks_mut(CHUNK)
            .zip(x.par_chunks(CHUNK))
            .for_each(|(o, x)| o.iter_mut().zip(x).for_each(|(o, &v)| *o = f(v)));
    }
}

fn map_assign<F: Fn(f32) -> f32 + Sync>(x: &mut [f32], f: F) {
    crate::parallel::for_chunks_mut(x, |_, c| c.iter_mut().for_each(|v| *v = f(*v)));
}

/// Expands `$body` once per operation with `$f` bound to a closure specialised to it, so
/// each loop is monomorphised (and vectorised where the function allows).
macro_rules! dispatch {
    ($op:expr, $f:ident => $body:expr) => {
        match $op {
            UnaryOp::Neg => {
                let $f = |v: f32| -v;
                $body
            }
            UnaryOp::Exp => {
                let $f = f32::exp;
                $body
            }
            UnaryOp::Square => {
                let $f = |v: f32| v * v;
                $body
            }
            UnaryOp::Affine { scale, shift } => {
                let $f = move |v: f32| v * scale + shift;
                $body
            }
            UnaryOp::Act(Activation::Identity) => {
                let $f = |v: f32| v;
                $body
            }
            UnaryOp::Act(Activation::Relu) => {
                let $f = |v: f32| v.max(0.0);
                $body
            }
            UnaryOp::Sqrt => {
                let $f = f32::sqrt;
                $body
            }
            op => {
                let $f = move |v: f32| op.apply(v);
                $body
            }
        }
    };
}

pub(crate) fn unary(op: UnaryOp, x: &[f32], out: &mut [f32]) {
    dispatch!(op, f => map_into(x, out, f))
}

pub(crate) fn unary_assign(op: UnaryOp, x: &mut [f32]) {
    dispatch!(op, f => map_assign(x, f))
}
