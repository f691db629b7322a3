//! Learned frequencies of an encoding whose every frequency reads one input (the positional
//! encoding): the gradient of the loss with respect to each frequency.
//!
//! With `p = 2 pi x B` and the encoding `[x, sin p, cos p]`, a frequency `B[i, j]` (input
//! `i`, column `j`) has the gradient `2 pi sum_rows x_i (g_sin_j cos p_j - g_cos_j sin p_j)`.
//! The backward pass already holds `deriv = [1, cos p, -sin p] * grad_out`, so
//! `G = x^T deriv` (`[d, width]`) holds every `sum_rows x_i deriv_c`; the entries of the
//! input each column reads are kept (`structure`), summed down the columns, and the sine
//! and cosine halves of each frequency added (`fold`, with the `2 pi`).

use crate::{Result, config_err};
use std::f32::consts::TAU;
use tensor_core::{Backend, BinaryOp, Tensor};

/// The buffers of the frequencies' gradient.
pub(super) struct LearnedFrequencies<B: Backend> {
    /// The gradient (`[d, m]`).
    pub(super) grad: Tensor<B>,
    /// 1 where a frequency is learned (the input its column reads), else 0 (`[d, m]`).
    mask: Tensor<B>,
    /// 1 where an encoded column reads an input through a frequency (`[d, width]`).
    structure: Tensor<B>,
    /// `2 pi` from each sine and cosine column to its frequency's column (`[width, m]`).
    fold: Tensor<B>,
    /// Ones, to sum `G` down its columns (`[1, d]`).
    ones: Tensor<B>,
    /// `G` (`[d, width]`), its column sums (`[1, width]`), folded (`[1, m]`).
    full: Tensor<B>,
    sums: Tensor<B>,
    folded: Tensor<B>,
}

impl<B: Backend> LearnedFrequencies<B> {
    /// The buffers for `freqs` (`[d, m]`, row-major) of an encoding that keeps the input
    /// (`offset` = d) or not (0). Refuses a matrix with a column that reads more than one
    /// input (random Fourier features).
    pub(super) fn new(backend: &B, d: usize, freqs: &[f32], offset: usize) -> Result<Self> {
        let m = freqs.len() / d;
        let width = offset + 2 * m;
        let mut mask = vec![0f32; d * m];
        let mut structure = vec![0f32; d * width];
        let mut fold = vec![0f32; width * m];
        for j in 0..m {
            let reads: Vec<usize> = (0..d).filter(|&i| freqs[i * m + j] != 0.0).collect();
            if reads.len() > 1 {
                return Err(config_err(
                    "learned frequencies need each frequency to read one input (a positional \
                     encoding)",
                ));
            }
            for &i in &reads {
                mask[i * m + j] = 1.0;
                structure[i * width + offset + j] = 1.0;
                structure[i * width + offset + m + j] = 1.0;
            }
            fold[(offset + j) * m + j] = TAU;
            fold[(offset + m + j) * m + j] = TAU;
        }
        Ok(LearnedFrequencies {
            grad: Tensor::zeros(backend, [d, m])?,
            mask: Tensor::from_slice(backend, &mask, [d, m])?,
            structure: Tensor::from_slice(backend, &structure, [d, width])?,
            fold: Tensor::from_slice(backend, &fold, [width, m])?,
            ones: Tensor::ones(backend, [1, d])?,
            full: Tensor::zeros(backend, [d, width])?,
            sums: Tensor::zeros(backend, [1, width])?,
            folded: Tensor::zeros(backend, [1, m])?,
        })
    }

    /// Sets the gradient from the encoding's input `x` (`[rows, d]`) and `deriv`
    /// (`[rows, width]`: the derivative of each encoded column times its gradient).
    pub(super) fn set_grad(&mut self, x: &Tensor<B>, deriv: &Tensor<B>) -> Result<()> {
        Tensor::matmul_into(x, deriv, &mut self.full, true, false, 1.0, 0.0)?;
        self.full.binary_assign(BinaryOp::Mul, &self.structure)?;
        Tensor::matmul_into(
            &self.ones,
            &self.full,
            &mut self.sums,
            false,
            false,
            1.0,
            0.0,
        )?;
        Tensor::matmul_into(
            &self.sums,
            &self.fold,
            &mut self.folded,
            false,
            false,
            1.0,
            0.0,
        )?;
        self.mask
            .binary_into(BinaryOp::Mul, &self.folded, &mut self.grad)?;
        Ok(())
    }
}
