//! `hashgrid_backward` on the GPU (the launch is in `ops/hashgrid.rs`).

use crate::backend::CudaBackend;
use crate::storage::CudaStorage;
use tensor_core::{HashGridBackwardOp, HashGridScatter, Result};

impl HashGridBackwardOp for CudaBackend {
    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, CudaStorage>,
        grad_tables: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.hashgrid_backward(
            p.spec,
            p.layout,
            p.points,
            p.n,
            p.grad_features,
            grad_tables,
            p.accumulate,
        )
    }
}
