//! `relu_mlp_mse_pass` on the GPU: no fused pass (the layers run one at a time).

use crate::backend::CudaBackend;
use crate::storage::CudaStorage;
use tensor_core::mlp_pass::{self, MlpPass, MlpPassOut};
use tensor_core::{ReluMlpMsePassOp, Result};

impl ReluMlpMsePassOp for CudaBackend {
    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, CudaStorage>,
        out: MlpPassOut<'_, '_, CudaStorage>,
    ) -> Result<bool> {
        mlp_pass::unfused(pass, out)
    }
}
