//! Input encodings for coordinate networks and tables: layers that map `x` (`[rows, d]`)
//! to sines and cosines of linear projections of it.
//!
//! Both kinds compute `[x (optional), sin(2 pi x B), cos(2 pi x B)]` with a frequency
//! matrix `B` (`[d, m]`), fixed unless a positional encoding learns it
//! ([`Encoding::learn_frequencies`]), using the backend's fused `fourier_features`:
//! - [Gaussian random Fourier features](fourier) (Tancik et al. 2020): `B ~ N(0, sigma^2)`,
//!   drawn from a seed;
//! - [positional encoding](positional) (NeRF): `sin(2^k pi x_i)`, `cos(2^k pi x_i)` for
//!   `k < L`, optionally with `x` itself.

pub mod fourier;
mod learned;
pub mod positional;

use crate::layer::{
    Layer, ParamMut, ParamRef, Tuning, check_input, check_matrix, ensure, no_forward,
};
use crate::model::config::EncodingConfig;
use crate::{Result, config_err};
use learned::LearnedFrequencies;
use std::f32::consts::TAU;
use tensor_core::{Backend, BinaryOp, Tensor, UnaryOp};

/// A sine/cosine encoding `[x (optional), sin(2 pi x B), cos(2 pi x B)]` with a fixed
/// frequency matrix `B` (`[d, m]`).
pub struct Encoding<B: Backend> {
    backend: B,
    in_dim: usize,
    m: usize,
    include_input: bool,
    freqs: Tensor<B>,
    freqs_2pi: Tensor<B>,
    back_matrix: Tensor<B>,
    out: Option<Tensor<B>>,
    features: Option<Tensor<B>>,
    proj: Option<Tensor<B>>,
    tmp: Option<Tensor<B>>,
    deriv: Option<Tensor<B>>,
    grad_in: Option<Tensor<B>>,
    learned: Option<LearnedFrequencies<B>>,
}

/// The name of an encoding's frequency matrix among a model's parameters and state.
pub const FREQUENCIES: &str = "encoding.frequencies";

impl<B: Backend> Encoding<B> {
    /// An encoding from its frequency matrix (`[d, m]`, row-major) on the host.
    pub fn from_matrix(
        backend: &B,
        in_dim: usize,
        freqs: &[f32],
        include_input: bool,
    ) -> Result<Self> {
        if in_dim == 0 || freqs.is_empty() || !freqs.len().is_multiple_of(in_dim) {
            return Err(config_err(format!(
                "an encoding of {in_dim} inputs needs a non-empty [{in_dim}, m] frequency \
                 matrix, got {} values",
                freqs.len()
            )));
        }
        if freqs.iter().any(|f| !f.is_finite()) {
            return Err(config_err("the encoding's frequency matrix is not finite"));
        }
        let m = freqs.len() / in_dim;
        let off = if include_input { in_dim } else { 0 };
        let width = off + 2 * m;
        let mut back = vec![0.0f32; in_dim * width];
        for i in 0..in_dim {
            let row = &mut back[i * width..(i + 1) * width];
            if include_input {
                row[i] = 1.0;
            }
            for j in 0..m {
                let f = TAU * freqs[i * m + j];
                row[off + j] = f;
                row[off + m + j] = f;
            }
        }
        let scaled: Vec<f32> = freqs.iter().map(|f| TAU * f).collect();
        Ok(Encoding {
            backend: backend.clone(),
            in_dim,
            m,
            include_input,
            freqs: Tensor::from_slice(backend, freqs, [in_dim, m])?,
            freqs_2pi: Tensor::from_slice(backend, &scaled, [in_dim, m])?,
            back_matrix: Tensor::from_slice(backend, &back, [in_dim, width])?,
            out: None,
            features: None,
            proj: None,
            tmp: None,
            deriv: None,
            grad_in: None,
            learned: None,
        })
    }

    /// Makes the frequencies trainable parameters (named [`FREQUENCIES`], not decayed): the
    /// backward pass sets their gradient. Only a positional encoding, whose every frequency
    /// reads one input, learns them; the frequencies that are 0 stay 0.
    pub fn learn_frequencies(&mut self) -> Result<()> {
        let freqs = self.freqs.to_vec()?;
        let off = self.offset();
        self.learned = Some(LearnedFrequencies::new(
            &self.backend,
            self.in_dim,
            &freqs,
            off,
        )?);
        Ok(())
    }

    /// Whether the frequencies are learned.
    pub fn learns_frequencies(&self) -> bool {
        self.learned.is_some()
    }

    /// The frequencies' copies the backward pass reads (`2 pi B` and the input-gradient
    /// matrix), made again from `B` after a step moved it.
    fn refresh_derived(&mut self) -> Result<()> {
        self.freqs_2pi.copy_from(&self.freqs)?;
        self.freqs_2pi.scale_assign(TAU)?;
        let off = self.offset();
        self.back_matrix.copy_columns_from(off, &self.freqs_2pi)?;
        self.back_matrix
            .copy_columns_from(off + self.m, &self.freqs_2pi)?;
        Ok(())
    }

    /// Gaussian random Fourier features: `m` frequencies per output half drawn from
    /// `N(0, sigma^2)` with a `ChaCha8Rng` seeded by `seed`; output `[sin, cos]`, `2 m` wide.
    pub fn fourier(backend: &B, in_dim: usize, m: usize, sigma: f32, seed: u64) -> Result<Self> {
        let freqs = fourier::gaussian_matrix(in_dim, m, sigma, seed)?;
        Self::from_matrix(backend, in_dim, &freqs, false)
    }

    /// NeRF positional encoding with `bands` frequency bands (`2^k pi`, `k < bands`),
    /// optionally keeping the input; output `2 d bands (+ d)` wide.
    pub fn positional(
        backend: &B,
        in_dim: usize,
        bands: usize,
        include_input: bool,
    ) -> Result<Self> {
        let freqs = positional::band_matrix(in_dim, bands)?;
        Self::from_matrix(backend, in_dim, &freqs, include_input)
    }

    /// The encoding an [`EncodingConfig`] describes (`None` for [`EncodingConfig::None`]).
    pub fn from_config(
        backend: &B,
        in_dim: usize,
        config: &EncodingConfig,
    ) -> Result<Option<Self>> {
        Ok(match *config {
            EncodingConfig::None => None,
            EncodingConfig::Fourier {
                features,
                sigma,
                seed,
            } => Some(Self::fourier(backend, in_dim, features, sigma, seed)?),
            EncodingConfig::Positional {
                bands,
                include_input,
            } => Some(Self::positional(backend, in_dim, bands, include_input)?),
        })
    }

    /// The frequency matrix `B` (`[d, m]`).
    pub fn frequencies(&self) -> &Tensor<B> {
        &self.freqs
    }

    /// Replaces the frequency matrix (same shape), e.g. from a checkpoint.
    pub fn set_frequencies(&mut self, freqs: &[f32]) -> Result<()> {
        let mut fresh = Self::from_matrix(&self.backend, self.in_dim, freqs, self.include_input)?;
        if self.learned.is_some() {
            fresh.learn_frequencies()?;
        }
        if fresh.m != self.m {
            return Err(crate::Error::StateMismatch(format!(
                "encoding frequencies: expected shape [{}, {}], got {} values",
                self.in_dim,
                self.m,
                freqs.len()
            )));
        }
        *self = fresh;
        Ok(())
    }

    /// Whether the input is kept as the first `d` output columns.
    pub fn includes_input(&self) -> bool {
        self.include_input
    }

    fn offset(&self) -> usize {
        if self.include_input { self.in_dim } else { 0 }
    }

    /// Writes the encoding of `x` into `out`; with the input kept, the sines and cosines go
    /// through `features` (`[rows, 2 m]`) first.
    fn encode(
        &self,
        x: &Tensor<B>,
        out: &mut Tensor<B>,
        features: Option<&mut Tensor<B>>,
    ) -> Result<()> {
        match features {
            None => x.fourier_features_into(&self.freqs, out)?,
            Some(f) => {
                x.fourier_features_into(&self.freqs, f)?;
                out.copy_columns_from(self.in_dim, f)?;
                out.copy_columns_from(0, x)?;
            }
        }
        Ok(())
    }
}

impl<B: Backend> Layer<B> for Encoding<B> {
    fn describe(&self) -> String {
        format!(
            "sin/cos encoding {} -> {} ({} frequencies{})",
            self.in_dim,
            self.output_dim(),
            self.m,
            if self.include_input {
                ", with input"
            } else {
                ""
            }
        )
    }

    fn input_dim(&self) -> usize {
        self.in_dim
    }

    fn output_dim(&self) -> usize {
        self.offset() + 2 * self.m
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        let rows = check_input(x, self.in_dim, "Encoding::forward")?;
        let width = self.output_dim();
        let mut out = self.out.take();
        let mut features = self.features.take();
        let result = (|| {
            let o = ensure(&mut out, &self.backend, rows, width)?;
            let f = if self.include_input {
                Some(ensure(&mut features, &self.backend, rows, 2 * self.m)?)
            } else {
                None
            };
            self.encode(x, o, f)
        })();
        self.out = out;
        self.features = features;
        result?;
        self.out
            .as_ref()
            .ok_or_else(|| no_forward("Encoding::forward"))
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.out.as_ref()
    }

    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        let rows = check_input(x, self.in_dim, "Encoding::backward (input)")?;
        let width = self.output_dim();
        check_matrix(grad_out, rows, width, "Encoding::backward (gradient)")?;
        if self.learned.is_some() {
            self.refresh_derived()?;
        }
        let (m, off) = (self.m, self.offset());
        // deriv = [1 | cos(p) | -sin(p)] with p = 2 pi x B, then deriv *= grad_out and
        // grad_in = deriv * [I | 2 pi B | 2 pi B]^T.
        let proj = ensure(&mut self.proj, &self.backend, rows, m)?;
        Tensor::matmul_into(x, &self.freqs_2pi, proj, false, false, 1.0, 0.0)?;
        let tmp = ensure(&mut self.tmp, &self.backend, rows, m)?;
        let deriv = ensure(&mut self.deriv, &self.backend, rows, width)?;
        if self.include_input {
            deriv.fill(1.0)?;
        }
        if rows > 0 {
            proj.unary_into(UnaryOp::Cos, tmp)?;
            deriv.copy_columns_from(off, tmp)?;
            proj.unary_into(UnaryOp::Sin, tmp)?;
            tmp.unary_assign(UnaryOp::Neg)?;
            deriv.copy_columns_from(off + m, tmp)?;
        }
        deriv.binary_assign(BinaryOp::Mul, grad_out)?;
        if let Some(l) = &mut self.learned {
            l.set_grad(x, deriv)?;
        }
        let gi = ensure(&mut self.grad_in, &self.backend, rows, self.in_dim)?;
        Tensor::matmul_into(deriv, &self.back_matrix, gi, false, true, 1.0, 0.0)?;
        Ok(gi)
    }

    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        match self.learned {
            Some(_) => self.backward(x, grad_out).map(|_| ()),
            None => Ok(()),
        }
    }

    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        match &self.learned {
            Some(l) => f(ParamRef {
                name: FREQUENCIES,
                value: &self.freqs,
                grad: &l.grad,
            }),
            None => Ok(()),
        }
    }

    fn visit_params_mut(&mut self, f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>) -> Result<()> {
        match &mut self.learned {
            Some(l) => f(ParamMut {
                name: FREQUENCIES,
                value: &mut self.freqs,
                grad: &mut l.grad,
                tuning: Tuning {
                    lr_factor: 1.0,
                    decays: false,
                },
            }),
            None => Ok(()),
        }
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.grad_in.as_ref()
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.in_dim, "Encoding::infer")?;
        check_matrix(out, rows, self.output_dim(), "Encoding::infer (output)")?;
        if self.include_input {
            let mut f = Tensor::uninit(&self.backend, [rows, 2 * self.m])?;
            self.encode(x, out, Some(&mut f))
        } else {
            self.encode(x, out, None)
        }
    }
}
