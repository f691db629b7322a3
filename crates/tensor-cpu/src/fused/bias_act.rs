//! `bias_act` on the CPU: each task adds the bias to its rows and applies the activation
//! while they are in cache.

use crate::CpuBackend;
use crate::kernel::{self, Elem, with_act};
use crate::parallel::{PAR_THRESHOLD, chunk_len};
use rayon::prelude::*;
use tensor_core::fused::bias_act;
use tensor_core::{Activation, BiasAct, BiasActOp, Result};

impl BiasActOp for CpuBackend {
    fn bias_act(
        &self,
        p: BiasAct<'_, Vec<f32>>,
        z: &mut Vec<f32>,
        out: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        kernel(z, p.bias, p.rows, p.cols, p.act, out)
    }
}

pub(crate) fn kernel(
    z: &mut [f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
    act: Activation,
    out: &mut [f32],
) -> Result<()> {
    bias_act::check(rows, cols, [bias.len(), z.len(), out.len()])?;
    if cols == 0 {
        return Ok(());
    }
    with_act!(act, e => bias_act_with(e, z, bias, cols, out));
    Ok(())
}

/// `bias_act` for one activation: each task adds the bias to its rows, then applies the
/// activation to them while they are still in cache.
fn bias_act_with<E: Elem>(e: E, z: &mut [f32], bias: &[f32], cols: usize, out: &mut [f32]) {
    let rows = |(z, o): (&mut [f32], &mut [f32])| {
        for row in z.chunks_exact_mut(cols) {
            row.iter_mut().zip(bias).for_each(|(z, b)| *z += b);
        }
        kernel::map(e, z, o);
    };
    if z.len() < PAR_THRESHOLD {
        rows((z, out));
    } else {
        let rows_per_task = (chunk_len(z.len()) / cols).max(1) * cols;
        z.par_chunks_mut(rows_per_task)
            .zip(out.par_chunks_mut(rows_per_task))
            .for_each(rows);
    }
}
