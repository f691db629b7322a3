//! `hashgrid_forward` on the CPU (the kernels are in `hashgrid/`).

use crate::CpuBackend;
use tensor_core::{HashGridForwardOp, HashGridLookup, Result};

impl HashGridForwardOp for CpuBackend {
    fn hashgrid_forward(&self, p: HashGridLookup<'_, Vec<f32>>, out: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        let HashGridLookup {
            spec,
            layout,
            points,
            n,
            tables,
        } = p;
        crate::hashgrid::forward(spec, layout, points, n, tables, out)
    }
}
