//! `gemm_act_grad` on the GPU: a cuBLAS product, then the `act_backward` kernel in place.

use crate::backend::CudaBackend;
use crate::storage::CudaStorage;
use tensor_core::check::check_fused_gemm;
use tensor_core::{GemmActGrad, GemmActGradOp, Result};

impl GemmActGradOp for CudaBackend {
    fn gemm_act_grad(&self, p: GemmActGrad<'_, CudaStorage>, c: &mut CudaStorage) -> Result<()> {
        let spec = p.gemm;
        check_fused_gemm(self, "gemm_act_grad", &spec, ("at", p.at, c.len), c)?;
        self.inner.gemm(spec, self.tf32(), p.a, p.b, c)?;
        self.inner.act_grad_in_place(c, p.at, p.act)
    }
}
