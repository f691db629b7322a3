//! `sgd_step`: one SGD update, with momentum (plain or Nesterov) and weight decay.

use super::compose::{assign, copy_all, flat, scale, scaled};
use crate::check::buffer_len;
use crate::{Backend, BinaryOp, Primitives, Result, SgdStep};

/// The fused operation `sgd_step`; see [the fused operations](crate::fused).
pub trait SgdStepOp: Primitives {
    /// One SGD update of `param` from `grad`, with an optional momentum buffer
    /// (`velocity`, of `param`'s length whenever it is given; read and written only when
    /// `step.momentum != 0`). Default: [`composed`].
    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut Self::Storage,
        grad: &Self::Storage,
        velocity: Option<&mut Self::Storage>,
    ) -> Result<()>;
}

/// Checks the buffers of a step, by their lengths: `grad` and the velocity, if any, hold as
/// many elements as `param`. Returns that count; the error,
/// [`Error::BufferLength`](crate::Error), is the same from every backend.
#[inline]
pub fn check([param, grad]: [usize; 2], velocity: Option<usize>) -> Result<usize> {
    buffer_len("sgd_step", "grad", grad, param)?;
    if let Some(velocity) = velocity {
        buffer_len("sgd_step", "velocity", velocity, param)?;
    }
    Ok(param)
}

/// The default [`SgdStepOp::sgd_step`], written out in
/// element-wise primitives.
pub fn composed<B: Backend>(
    b: &B,
    s: SgdStep,
    param: &mut B::Storage,
    grad: &B::Storage,
    velocity: Option<&mut B::Storage>,
) -> Result<()> {
    let velocity_len = velocity.as_deref().map(|v| b.storage_len(v));
    let n = check([b.storage_len(param), b.storage_len(grad)], velocity_len)?;
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

#[cfg(feature = "testing")]
impl<B: Backend> SgdStepOp for crate::testing::Composed<B> {
    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut Self::Storage,
        grad: &Self::Storage,
        velocity: Option<&mut Self::Storage>,
    ) -> Result<()> {
        composed(self, step, param, grad, velocity)
    }
}
