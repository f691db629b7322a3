//! `gemm_bias_act` on the CPU: ReLU and identity as an epilogue of the product's own kernel;
//! other activations as the product, then the `bias_act` kernel.

use crate::CpuBackend;
use crate::skinny::Epilogue;
use tensor_core::check::check_fused_gemm;
use tensor_core::{Activation, GemmBiasAct, GemmBiasActOp, Result};

impl GemmBiasActOp for CpuBackend {
    fn gemm_bias_act(&self, p: GemmBiasAct<'_, Vec<f32>>, c: &mut Vec<f32>) -> Result<()> {
        use Activation::{Identity, Relu};
        let _flush = self.begin_op();
        let GemmBiasAct {
            gemm: spec,
            a,
            b,
            bias,
            act,
        } = p;
        let n = check_fused_gemm(self, "gemm_bias_act", &spec, ("bias", bias, spec.n), c)?;
        if let Identity | Relu = act {
            let epi = Epilogue::Bias {
                bias,
                relu: act == Relu,
            };
            return crate::gemm::gemm_then(spec, a, b, c, epi);
        }
        let mut z = vec![0.0; n];
        crate::gemm::gemm(spec, a, b, &mut z)?;
        crate::fused::bias_act::kernel(&mut z, bias, spec.m, spec.n, act, c)
    }
}
