//! Matrix products through cuBLAS.

use crate::backend::Inner;
use crate::error::{check_len, product};
use crate::storage::CudaStorage;
use tensor_core::{Error, Gemm, Result, UnaryOp};

impl Inner {
    /// Row-major GEMM (see [`Gemm`]); `tf32` allows tensor-core TF32 math.
    pub(crate) fn gemm(
        &self,
        spec: Gemm,
        tf32: bool,
        a: &CudaStorage,
        b: &CudaStorage,
        c: &mut CudaStorage,
    ) -> Result<()> {
        let Gemm { m, n, k, .. } = spec;
        check_len("gemm", "a", a.len, product("gemm", m, k)?)?;
        check_len("gemm", "b", b.len, product("gemm", k, n)?)?;
        check_len("gemm", "c", c.len, product("gemm", m, n)?)?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        if k == 0 || spec.alpha == 0.0 {
            // An empty sum, or one BLAS does not compute (A and B are not read, whatever
            // NaN they hold; cuBLAS does not promise that): C = beta * C, where beta == 0
            // overwrites whatever C held. Adding -0 leaves every value, signed zeros
            // included, as the product made it.
            return if spec.beta == 0.0 {
                self.fill("gemm", c, 0.0)
            } else if spec.beta == 1.0 {
                Ok(())
            } else {
                self.unary_assign(
                    UnaryOp::Affine {
                        scale: spec.beta,
                        shift: -0.0,
                    },
                    c,
                )
            };
        }
        let limit = i32::MAX as usize;
        if m > limit || n > limit || k > limit {
            return Err(Error::InvalidArgument {
                op: "gemm",
                reason: format!("{m} x {n} x {k}: cuBLAS takes dimensions below 2^31"),
            });
        }
        self.blas().sgemm(&spec, tf32, a.ptr(), b.ptr(), c.ptr())?;
        self.counters.launch();
        Ok(())
    }
}
