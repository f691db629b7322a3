//! `fourier_features` on the CPU (the kernel is in `fourier.rs`).

use crate::CpuBackend;
use tensor_core::{FourierFeatures, FourierFeaturesOp, Result};

impl FourierFeaturesOp for CpuBackend {
    fn fourier_features(&self, p: FourierFeatures<'_, Vec<f32>>, out: &mut Vec<f32>) -> Result<()> {
        let _flush = self.begin_op();
        let FourierFeatures {
            x,
            freqs,
            rows,
            d,
            m,
        } = p;
        crate::fourier::fourier_features(x, freqs, rows, d, m, out)
    }
}
