//! `hashgrid_backward` on the CPU (the kernels are in `hashgrid/`).

use crate::CpuBackend;
use tensor_core::{HashGridBackwardOp, HashGridScatter, Result};

impl HashGridBackwardOp for CpuBackend {
    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, Vec<f32>>,
        grad_tables: &mut Vec<f32>,
    ) -> Result<()> {
        let _flush = self.begin_op();
        let HashGridScatter {
            spec,
            layout,
            points,
            n,
            grad_features,
            accumulate,
        } = p;
        crate::hashgrid::backward(
            spec,
            layout,
            points,
            n,
            grad_features,
            grad_tables,
            accumulate,
        )
    }
}
