//! `bias_act` on the GPU: the `bias_act` kernel (also the in-place epilogue of
//! `gemm_bias_act`).

use crate::backend::CudaBackend;
use crate::backend::Inner;
use crate::codes;
use crate::error::{check_len, product};
use crate::kernels::{Arg, K, u};
use crate::storage::CudaStorage;
use tensor_core::fused::bias_act;
use tensor_core::{Activation, BiasAct, BiasActOp, Result};

impl BiasActOp for CudaBackend {
    fn bias_act(
        &self,
        p: BiasAct<'_, CudaStorage>,
        z: &mut CudaStorage,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.bias_act(z, p.bias, p.rows, p.cols, p.act, out)
    }
}

impl Inner {
    pub(crate) fn bias_act(
        &self,
        z: &mut CudaStorage,
        bias: &CudaStorage,
        rows: usize,
        cols: usize,
        act: Activation,
        out: &mut CudaStorage,
    ) -> Result<()> {
        bias_act::check(rows, cols, [bias.len, z.len, out.len])?;
        self.launch_bias_act("bias_act", z.ptr(), bias, (rows, cols), act, out.ptr())
    }

    /// `c = act(c + bias)` in place: the epilogue of `gemm_bias_act`, by the `bias_act`
    /// kernel with its pre-activation and output at the same address (each thread reads
    /// its element, then writes it twice, the activation last).
    pub(crate) fn bias_act_in_place(
        &self,
        c: &mut CudaStorage,
        bias: &CudaStorage,
        rows: usize,
        cols: usize,
        act: Activation,
    ) -> Result<()> {
        let n = product("gemm_bias_act", rows, cols)?;
        check_len("gemm_bias_act", "c", c.len, n)?;
        check_len("gemm_bias_act", "bias", bias.len, cols)?;
        let ptr = c.ptr();
        self.launch_bias_act("gemm_bias_act", ptr, bias, (rows, cols), act, ptr)
    }

    /// Launches the `bias_act` kernel on checked buffers (`z` and `out` may be one).
    fn launch_bias_act(
        &self,
        op: &'static str,
        z: u64,
        bias: &CudaStorage,
        (rows, cols): (usize, usize),
        act: Activation,
        out: u64,
    ) -> Result<()> {
        let n = rows * cols;
        if n == 0 {
            return Ok(());
        }
        let (code, p) = codes::activation(act);
        self.launch(
            op,
            K::BiasAct,
            self.linear(n),
            &[
                Arg::Ptr(z),
                Arg::Ptr(bias.ptr()),
                u(rows),
                u(cols),
                Arg::I32(code),
                Arg::F32(p),
                Arg::Ptr(out),
            ],
        )
    }
}
