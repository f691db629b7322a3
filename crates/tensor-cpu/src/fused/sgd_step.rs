//! `sgd_step` on the CPU: the SGD update in one pass.

use crate::CpuBackend;
use tensor_core::fused::sgd_step;
use tensor_core::{Result, SgdStep, SgdStepOp};

impl SgdStepOp for CpuBackend {
    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut Vec<f32>,
        grad: &Vec<f32>,
        velocity: Option<&mut Vec<f32>>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        kernel(step, param, grad, velocity)
    }
}

pub(crate) fn kernel(
    s: SgdStep,
    param: &mut [f32],
    grad: &[f32],
    velocity: Option<&mut Vec<f32>>,
) -> Result<()> {
    let velocity_len = velocity.as_ref().map(|v| v.len());
    let n = sgd_step::check([param.len(), grad.len()], velocity_len)?;
    // No decay term at all when there is none (0 * inf would be NaN).
    let wd = s.weight_decay;
    let decayed = |g: f32, p: f32| if wd != 0.0 { g + wd * p } else { g };
    match velocity {
        Some(vel) if s.momentum != 0.0 => {
            for i in 0..n {
                let g = decayed(grad[i], param[i]);
                vel[i] = s.momentum * vel[i] + g;
                let update = if s.nesterov {
                    g + s.momentum * vel[i]
                } else {
                    vel[i]
                };
                param[i] -= s.lr * update;
            }
        }
        _ => {
            for i in 0..n {
                param[i] -= s.lr * decayed(grad[i], param[i]);
            }
        }
    }
    Ok(())
}
