//! `act_backward` on the GPU: the `act_backward` kernel (also the in-place epilogue of
//! `gemm_act_grad`).

use crate::backend::CudaBackend;
use crate::backend::Inner;
use crate::codes;
use crate::error::check_len;
use crate::kernels::{Arg, K, u};
use crate::storage::CudaStorage;
use tensor_core::fused::act_backward;
use tensor_core::{ActBackwardOp, Activation, Result};

impl ActBackwardOp for CudaBackend {
    fn act_backward(
        &self,
        grad_out: &CudaStorage,
        z: &CudaStorage,
        act: Activation,
        grad_z: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.act_backward(grad_out, z, act, grad_z)
    }
}

impl Inner {
    /// `c *= act'(at)` in place: the epilogue of `gemm_act_grad`, by the `act_backward`
    /// kernel with its incoming and outgoing gradients at the same address.
    pub(crate) fn act_grad_in_place(
        &self,
        c: &mut CudaStorage,
        at: &CudaStorage,
        act: Activation,
    ) -> Result<()> {
        check_len("gemm_act_grad", "at", at.len, c.len)?;
        let ptr = c.ptr();
        self.launch_act_backward("gemm_act_grad", ptr, at, act, ptr)
    }

    pub(crate) fn act_backward(
        &self,
        grad_out: &CudaStorage,
        z: &CudaStorage,
        act: Activation,
        grad_z: &mut CudaStorage,
    ) -> Result<()> {
        act_backward::check([grad_out.len, z.len, grad_z.len])?;
        self.launch_act_backward("act_backward", grad_out.ptr(), z, act, grad_z.ptr())
    }

    /// Launches the `act_backward` kernel over `z`'s elements on checked buffers (the two
    /// gradients may be one).
    fn launch_act_backward(
        &self,
        op: &'static str,
        grad_out: u64,
        z: &CudaStorage,
        act: Activation,
        grad_z: u64,
    ) -> Result<()> {
        let n = z.len;
        if n == 0 {
            return Ok(());
        }
        let (code, p) = codes::activation(act);
        self.launch(
            op,
            K::ActBackward,
            self.linear(n),
            &[
                Arg::Ptr(grad_out),
                Arg::Ptr(z.ptr()),
                u(n),
                Arg::I32(code),
                Arg::F32(p),
                Arg::Ptr(grad_z),
            ],
        )
    }
}
