//! `adam_step` on the GPU: the `adam_step` kernel.

use crate::backend::CudaBackend;
use crate::backend::Inner;
use crate::kernels::{Arg, K, u};
use crate::storage::CudaStorage;
use tensor_core::fused::adam_step;
use tensor_core::{AdamMoments, AdamStep, AdamStepOp, Result};

impl AdamStepOp for CudaBackend {
    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        moments: AdamMoments<'_, CudaStorage>,
    ) -> Result<()> {
        self.inner
            .adam_step(step, param, grad, moments.m, moments.v)
    }
}

impl Inner {
    pub(crate) fn adam_step(
        &self,
        s: AdamStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        m: &mut CudaStorage,
        v: &mut CudaStorage,
    ) -> Result<()> {
        let n = adam_step::check([param.len, grad.len, m.len, v.len])?;
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "adam_step",
            K::AdamStep,
            self.linear(n),
            &[
                Arg::Ptr(param.ptr()),
                Arg::Ptr(grad.ptr()),
                Arg::Ptr(m.ptr()),
                Arg::Ptr(v.ptr()),
                u(n),
                Arg::F32(s.beta1),
                Arg::F32(s.beta2),
                Arg::F32(1.0 - s.beta1),
                Arg::F32(1.0 - s.beta2),
                Arg::F32(s.eps),
                Arg::F32(s.weight_decay),
                Arg::I32(i32::from(s.decoupled)),
                Arg::F32(1.0 - s.lr * s.weight_decay),
                Arg::F32(1.0 / s.bias_correction2),
                Arg::F32(s.lr / s.bias_correction1),
            ],
        )
    }
}
