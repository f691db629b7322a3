//! `fourier_features`: `[sin(2 pi x b), cos(2 pi x b)]` of points `x` and frequencies `b`.

use crate::check::{buffer_len, elements};
use crate::{Backend, BlockCopy, Gemm, Primitives, Result, UnaryOp};

/// What [`fourier_features`](crate::FourierFeaturesOp::fourier_features) reads:
/// `out = [sin(2 pi x b), cos(2 pi x b)]`.
pub struct FourierFeatures<'a, S> {
    /// The points, `rows x d`.
    pub x: &'a S,
    /// The frequencies, `d x m`.
    pub freqs: &'a S,
    /// Points.
    pub rows: usize,
    /// Input dimensions.
    pub d: usize,
    /// Frequencies (the output has `2 m` columns).
    pub m: usize,
}

/// The fused operation `fourier_features`; see [the fused operations](crate::fused).
pub trait FourierFeaturesOp: Primitives {
    /// Fourier features of `x` (`rows x d`) with frequencies `freqs` (`d x m`):
    /// `out = [sin(2 pi x b), cos(2 pi x b)]` (`rows x 2m`).
    /// Default: [`composed`].
    fn fourier_features(
        &self,
        p: FourierFeatures<'_, Self::Storage>,
        out: &mut Self::Storage,
    ) -> Result<()>;
}

/// Checks the buffers of a call, by their lengths: `x` holds `rows * d` elements, `freqs`
/// (`b`) `d * m` and `out` `rows * 2m`. Returns `rows * m`; the error is
/// [`Error::BufferLength`](crate::Error) (or `InvalidArgument` when a product overflows), the
/// same from every backend.
#[inline]
pub fn check((rows, d, m): (usize, usize, usize), [x, b, out]: [usize; 3]) -> Result<usize> {
    let op = "fourier_features";
    buffer_len(op, "x", x, elements(op, rows, d)?)?;
    buffer_len(op, "b", b, elements(op, d, m)?)?;
    let n = elements(op, rows, m)?;
    buffer_len(op, "out", out, elements(op, n, 2)?)?;
    Ok(n)
}

/// The default [`FourierFeaturesOp::fourier_features`]: one GEMM,
/// then the sines and cosines copied into their halves of the output.
pub fn composed<B: Backend>(
    b: &B,
    p: FourierFeatures<'_, B::Storage>,
    out: &mut B::Storage,
) -> Result<()> {
    let FourierFeatures {
        x,
        freqs,
        rows,
        d,
        m,
    } = p;
    let lens = [b.storage_len(x), b.storage_len(freqs), b.storage_len(out)];
    let n = check((rows, d, m), lens)?;
    let mut proj = b.alloc(n)?;
    let gemm = Gemm {
        m: rows,
        n: m,
        k: d,
        trans_a: false,
        trans_b: false,
        alpha: std::f32::consts::TAU,
        beta: 0.0,
    };
    b.gemm(gemm, x, freqs, &mut proj)?;
    let mut tmp = b.alloc(n)?;
    let half = |col_offset| BlockCopy {
        rows,
        src_cols: m,
        dst_cols: 2 * m,
        col_offset,
    };
    b.unary(UnaryOp::Sin, &proj, &mut tmp)?;
    b.copy_block(half(0), &tmp, out)?;
    b.unary(UnaryOp::Cos, &proj, &mut tmp)?;
    b.copy_block(half(m), &tmp, out)
}

#[cfg(feature = "testing")]
impl<B: Backend> FourierFeaturesOp for crate::testing::Composed<B> {
    fn fourier_features(
        &self,
        p: FourierFeatures<'_, Self::Storage>,
        out: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, out)
    }
}
