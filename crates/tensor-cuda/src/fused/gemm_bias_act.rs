//! `gemm_bias_act` on the GPU: a cuBLAS product, then the `bias_act` kernel in place.

use crate::backend::CudaBackend;
use crate::storage::CudaStorage;
use tensor_core::check::check_fused_gemm;
use tensor_core::{GemmBiasAct, GemmBiasActOp, Result};

impl GemmBiasActOp for CudaBackend {
    fn gemm_bias_act(&self, p: GemmBiasAct<'_, CudaStorage>, c: &mut CudaStorage) -> Result<()> {
        let spec = p.gemm;
        check_fused_gemm(self, "gemm_bias_act", &spec, ("bias", p.bias, spec.n), c)?;
        self.inner.gemm(spec, self.tf32(), p.a, p.b, c)?;
        self.inner
            .bias_act_in_place(c, p.bias, spec.m, spec.n, p.act)
    }
}
