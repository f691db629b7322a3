//! `fourier_features` on the GPU: the `fourier_features` kernel.

use crate::backend::CudaBackend;
use crate::backend::Inner;
use crate::kernels::{Arg, K, u};
use crate::storage::CudaStorage;
use tensor_core::fused::fourier_features;
use tensor_core::{FourierFeatures, FourierFeaturesOp, Result};

impl FourierFeaturesOp for CudaBackend {
    fn fourier_features(
        &self,
        p: FourierFeatures<'_, CudaStorage>,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .fourier_features(p.x, p.freqs, p.rows, p.d, p.m, out)
    }
}

impl Inner {
    pub(crate) fn fourier_features(
        &self,
        x: &CudaStorage,
        b: &CudaStorage,
        rows: usize,
        d: usize,
        m: usize,
        out: &mut CudaStorage,
    ) -> Result<()> {
        let n = fourier_features::check((rows, d, m), [x.len, b.len, out.len])?;
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "fourier_features",
            K::FourierFeatures,
            self.linear(n),
            &[
                Arg::Ptr(x.ptr()),
                Arg::Ptr(b.ptr()),
                u(rows),
                u(d),
                u(m),
                Arg::Ptr(out.ptr()),
            ],
        )
    }
}
