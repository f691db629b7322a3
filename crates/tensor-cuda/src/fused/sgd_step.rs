//! `sgd_step` on the GPU: the `sgd_step` kernel.

use crate::backend::CudaBackend;
use crate::backend::Inner;
use crate::kernels::{Arg, K, u};
use crate::storage::CudaStorage;
use tensor_core::fused::sgd_step;
use tensor_core::{Result, SgdStep, SgdStepOp};

impl SgdStepOp for CudaBackend {
    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        velocity: Option<&mut CudaStorage>,
    ) -> Result<()> {
        self.inner.sgd_step(step, param, grad, velocity)
    }
}

impl Inner {
    pub(crate) fn sgd_step(
        &self,
        s: SgdStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        velocity: Option<&mut CudaStorage>,
    ) -> Result<()> {
        let n = sgd_step::check([param.len, grad.len], velocity.as_ref().map(|v| v.len))?;
        let velocity = match velocity {
            Some(v) if s.momentum != 0.0 => v.ptr(),
            _ => 0,
        };
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "sgd_step",
            K::SgdStep,
            self.linear(n),
            &[
                Arg::Ptr(param.ptr()),
                Arg::Ptr(grad.ptr()),
                Arg::Ptr(velocity),
                u(n),
                Arg::F32(s.lr),
                Arg::F32(s.momentum),
                Arg::I32(i32::from(s.nesterov)),
                Arg::F32(s.weight_decay),
            ],
        )
    }
}
