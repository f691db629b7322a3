//! `EncodedNet`: a model written outside the crate, the way a new architecture would be —
//! a NeRF positional encoding followed by `linear -> tanh -> linear` — to show that the
//! trainer, the optimizers and checkpoints need nothing but the `Model` trait.

use nn::model::{chunk_rows_for, predict_in_chunks};
use nn::prelude::*;
use nn::{ActivationLayer, Encoding, InputSplit, Linear, ParamMut, ParamRef, Sequential};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;

/// The structure of an [`EncodedNet`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncodedNetConfig {
    pub input: usize,
    pub bands: usize,
    pub hidden: usize,
    pub output: usize,
}

pub struct EncodedNet<B: Backend> {
    backend: B,
    config: EncodedNetConfig,
    encoding: Encoding<B>,
    body: Sequential<B>,
    /// Calls of the whole model's training forward (the encoding included).
    pub full_forwards: AtomicUsize,
}

/// The error of a backward pass without a forward pass.
fn no_forward() -> nn::Error {
    nn::Error::Config("EncodedNet: backward before forward".into())
}

impl<B: Backend> Layer<B> for EncodedNet<B> {
    fn describe(&self) -> String {
        format!(
            "encoded net [{}; {}]",
            self.encoding.describe(),
            self.body.describe()
        )
    }
    fn input_dim(&self) -> usize {
        self.config.input
    }
    fn output_dim(&self) -> usize {
        self.config.output
    }
    fn forward(&mut self, x: &Tensor<B>) -> nn::Result<&Tensor<B>> {
        self.full_forwards.fetch_add(1, Ordering::Relaxed);
        let encoded = self.encoding.forward(x)?;
        self.body.forward(encoded)
    }
    fn output(&self) -> Option<&Tensor<B>> {
        self.body.output()
    }
    fn backward(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> nn::Result<&Tensor<B>> {
        let encoded = self.encoding.output().ok_or_else(no_forward)?;
        let g = self.body.backward(encoded, grad_out)?;
        self.encoding.backward(x, g)
    }
    fn backward_params(&mut self, _x: &Tensor<B>, grad_out: &Tensor<B>) -> nn::Result<()> {
        let encoded = self.encoding.output().ok_or_else(no_forward)?;
        self.body.backward_params(encoded, grad_out)
    }
    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.encoding.input_grad()
    }
    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> nn::Result<()> {
        let rows = x.dims()[0];
        let mut encoded = Tensor::uninit(x.backend(), [rows, self.encoding.output_dim()])?;
        self.encoding.infer(x, &mut encoded)?;
        self.body.infer(&encoded, out)
    }
    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> nn::Result<()>) -> nn::Result<()> {
        self.body.visit_params(f)
    }
    fn visit_params_mut(
        &mut self,
        f: &mut dyn FnMut(ParamMut<'_, B>) -> nn::Result<()>,
    ) -> nn::Result<()> {
        self.body.visit_params_mut(f)
    }
    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.body.set_accumulate_grads(accumulate)
    }
}

impl<B: Backend> Model<B> for EncodedNet<B> {
    type Config = EncodedNetConfig;
    const KIND: &'static str = "encoded_net";

    fn backend(&self) -> &B {
        &self.backend
    }

    fn from_config(backend: &B, c: &EncodedNetConfig, seed: u64) -> nn::Result<Self> {
        let encoding = Encoding::positional(backend, c.input, c.bands, true)?;
        let width = encoding.output_dim();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let id = Activation::Identity;
        let tanh = Activation::Tanh;
        let first = Init::XavierUniform.layer(0, 2, width, c.hidden, id, tanh);
        let last = Init::XavierUniform.layer(1, 2, c.hidden, c.output, id, tanh);
        let body = Sequential::new()
            .with(Linear::new(backend, width, c.hidden, id, first, &mut rng)?)?
            .with(ActivationLayer::new(backend, c.hidden, tanh))?
            .with(Linear::new(
                backend, c.hidden, c.output, id, last, &mut rng,
            )?)?;
        Ok(EncodedNet {
            backend: backend.clone(),
            config: c.clone(),
            encoding,
            body,
            full_forwards: AtomicUsize::new(0),
        })
    }

    fn config(&self) -> &EncodedNetConfig {
        &self.config
    }

    fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>> {
        let widest = self.encoding.output_dim().max(self.config.hidden);
        predict_in_chunks(x, self.config.output, chunk_rows_for(widest), |x, out| {
            self.infer(x, out)
        })
    }

    fn split_input_encoding(&mut self) -> Option<InputSplit<'_, B>> {
        Some(InputSplit {
            encoding: &self.encoding,
            rest: &mut self.body,
        })
    }
}
