//! `gemm_act_grad` on the CPU: ReLU's derivative as an epilogue of the product's own kernel;
//! other activations as the product, then the `act_backward` kernel.

use crate::CpuBackend;
use crate::skinny::Epilogue;
use tensor_core::check::check_fused_gemm;
use tensor_core::{Activation, GemmActGrad, GemmActGradOp, Result};

impl GemmActGradOp for CpuBackend {
    fn gemm_act_grad(&self, p: GemmActGrad<'_, Vec<f32>>, c: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        let GemmActGrad {
            gemm: spec,
            a,
            b,
            at,
            act,
        } = p;
        let n = check_fused_gemm(self, "gemm_act_grad", &spec, ("at", at, c.len()), c)?;
        if act == Activation::Relu {
            return crate::gemm::gemm_then(spec, a, b, c, Epilogue::ReluGrad { at });
        }
        let mut g = vec![0.0; n];
        crate::gemm::gemm(spec, a, b, &mut g)?;
        crate::fused::act_backward::kernel(&g, at, act, c)
    }
}
