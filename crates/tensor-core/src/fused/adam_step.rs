//! `adam_step`: one Adam or AdamW update of a parameter and its moments.

use super::compose::{assign, copy_all, flat, scale, scaled};
use crate::check::buffer_len;
use crate::{AdamStep, Backend, BinaryOp, Primitives, Result, UnaryOp};

/// The moment buffers that [`adam_step`](crate::AdamStepOp::adam_step) updates, each of the
/// parameter's length.
pub struct AdamMoments<'a, S> {
    /// The first moment (mean of the gradients).
    pub m: &'a mut S,
    /// The second moment (mean of the squared gradients).
    pub v: &'a mut S,
}

/// The fused operation `adam_step`; see [the fused operations](crate::fused).
pub trait AdamStepOp: Primitives {
    /// One Adam/AdamW update of `param` from `grad`, updating the moments.
    /// Default: [`composed`].
    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut Self::Storage,
        grad: &Self::Storage,
        moments: AdamMoments<'_, Self::Storage>,
    ) -> Result<()>;
}

/// Checks the buffers of a step, by their lengths: `grad`, `m` and `v` hold as many
/// elements as `param`. Returns that count; the error, [`Error::BufferLength`](crate::Error),
/// is the same from every backend.
#[inline]
pub fn check([param, grad, m, v]: [usize; 4]) -> Result<usize> {
    buffer_len("adam_step", "grad", grad, param)?;
    buffer_len("adam_step", "m", m, param)?;
    buffer_len("adam_step", "v", v, param)?;
    Ok(param)
}

/// The default [`AdamStepOp::adam_step`], written out in
/// element-wise primitives.
pub fn composed<B: Backend>(
    b: &B,
    s: AdamStep,
    param: &mut B::Storage,
    grad: &B::Storage,
    moments: AdamMoments<'_, B::Storage>,
) -> Result<()> {
    let AdamMoments { m, v } = moments;
    let n = check([
        b.storage_len(param),
        b.storage_len(grad),
        b.storage_len(m),
        b.storage_len(v),
    ])?;
    let all = flat(n);
    let mut g = b.alloc(n)?;
    copy_all(b, grad, &mut g, n)?;
    if s.weight_decay != 0.0 {
        if s.decoupled {
            scale(b, param, 1.0 - s.lr * s.weight_decay)?;
        } else {
            let mut wd = b.alloc(n)?;
            scaled(b, param, s.weight_decay, &mut wd)?;
            assign(b, BinaryOp::Add, (&mut g, &all), (&wd, &all))?;
        }
    }
    let mut tmp = b.alloc(n)?;
    scale(b, m, s.beta1)?;
    scaled(b, &g, 1.0 - s.beta1, &mut tmp)?;
    assign(b, BinaryOp::Add, (m, &all), (&tmp, &all))?;
    scale(b, v, s.beta2)?;
    b.unary(UnaryOp::Square, &g, &mut tmp)?;
    scale(b, &mut tmp, 1.0 - s.beta2)?;
    assign(b, BinaryOp::Add, (v, &all), (&tmp, &all))?;
    // denominator: sqrt(v / bc2) + eps, in tmp
    scaled(b, v, 1.0 / s.bias_correction2, &mut tmp)?;
    b.unary_assign(UnaryOp::Sqrt, &mut tmp)?;
    let add_eps = UnaryOp::Affine {
        scale: 1.0,
        shift: s.eps,
    };
    b.unary_assign(add_eps, &mut tmp)?;
    // numerator: lr * m / bc1, in g
    scaled(b, m, s.lr / s.bias_correction1, &mut g)?;
    assign(b, BinaryOp::Div, (&mut g, &all), (&tmp, &all))?;
    assign(b, BinaryOp::Sub, (param, &all), (&g, &all))
}

#[cfg(feature = "testing")]
impl<B: Backend> AdamStepOp for crate::testing::Composed<B> {
    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut Self::Storage,
        grad: &Self::Storage,
        moments: AdamMoments<'_, Self::Storage>,
    ) -> Result<()> {
        composed(self, step, param, grad, moments)
    }
}
