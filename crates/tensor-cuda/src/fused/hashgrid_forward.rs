//! `hashgrid_forward` on the GPU (the launch is in `ops/hashgrid.rs`, shared with the
//! backward pass).

use crate::backend::CudaBackend;
use crate::storage::CudaStorage;
use tensor_core::{HashGridForwardOp, HashGridLookup, Result};

impl HashGridForwardOp for CudaBackend {
    fn hashgrid_forward(
        &self,
        p: HashGridLookup<'_, CudaStorage>,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .hashgrid_forward(p.spec, p.layout, p.points, p.n, p.tables, out)
    }
}
