//! `relu_mlp_mse_pass` on the CPU: the whole pass in cache-sized tiles (see `mlp_pass/`).

use crate::CpuBackend;
use tensor_core::mlp_pass::{MlpPass, MlpPassOut};
use tensor_core::{ReluMlpMsePassOp, Result};

impl ReluMlpMsePassOp for CpuBackend {
    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, Vec<f32>>,
        out: MlpPassOut<'_, '_, Vec<f32>>,
    ) -> Result<bool> {
        let _flush = self.begin_op();
        crate::mlp_pass::relu_mlp_mse_pass(pass, out)
    }
}
