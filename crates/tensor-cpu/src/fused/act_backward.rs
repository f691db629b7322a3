//! `act_backward` on the CPU: `grad_z = grad_out * act'(z)` in one pass.

use crate::CpuBackend;
use crate::kernel::{self, Elem, with_act_grad};
use crate::parallel::{PAR_THRESHOLD, chunk_len};
use rayon::prelude::*;
use tensor_core::fused::act_backward;
use tensor_core::{ActBackwardOp, Activation, Result};

impl ActBackwardOp for CpuBackend {
    fn act_backward(
        &self,
        grad_out: &Vec<f32>,
        z: &Vec<f32>,
        act: Activation,
        grad_z: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        kernel(grad_out, z, act, grad_z)
    }
}

pub(crate) fn kernel(
    grad_out: &[f32],
    z: &[f32],
    act: Activation,
    grad_z: &mut [f32],
) -> Result<()> {
    act_backward::check([grad_out.len(), z.len(), grad_z.len()])?;
    with_act_grad!(act, e => act_backward_with(e, grad_out, z, grad_z));
    Ok(())
}

fn act_backward_with<E: Elem>(e: E, grad_out: &[f32], z: &[f32], grad_z: &mut [f32]) {
    if z.len() < PAR_THRESHOLD {
        kernel::mul_map(e, grad_out, z, grad_z);
    } else {
        let c = chunk_len(z.len());
        grad_z
            .par_chunks_mut(c)
            .zip(grad_out.par_chunks(c).zip(z.par_chunks(c)))
            .for_each(|(gz, (go, z))| kernel::mul_map(e, go, z, gz));
    }
}
