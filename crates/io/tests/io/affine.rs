//! A model type defined outside the library, in this file alone: an affine map
//! `y = x W + b`, an [`nn::Layer`] and an [`nn::Model`] (its `KIND` names it in files) and
//! nothing else. The model-file tests register it with `io::fitted::register`; the ONNX
//! tests include this file too and add its ONNX form.

use nn::{Activation, Init, Layer, Linear, Model, NamedArray, ParamMut, ParamRef};
use serde::{Deserialize, Serialize};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, Tensor};
use tensor_cpu::CpuBackend;

/// The configuration of [`Affine`]: its widths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AffineConfig {
    pub inputs: usize,
    pub outputs: usize,
}

/// `y = x W + b`, one [`Linear`] layer without activation.
pub struct Affine<B: Backend> {
    backend: B,
    config: AffineConfig,
    layer: Linear<B>,
}

impl<B: Backend> Layer<B> for Affine<B> {
    fn describe(&self) -> String {
        format!("affine [{}]", self.layer.describe())
    }
    fn input_dim(&self) -> usize {
        self.config.inputs
    }
    fn output_dim(&self) -> usize {
        self.config.outputs
    }
    fn forward(&mut self, x: &Tensor<B>) -> nn::Result<&Tensor<B>> {
        self.layer.forward(x)
    }
    fn output(&self) -> Option<&Tensor<B>> {
        self.layer.output()
    }
    fn backward(&mut self, x: &Tensor<B>, grad: &Tensor<B>) -> nn::Result<&Tensor<B>> {
        self.layer.backward(x, grad)
    }
    fn backward_params(&mut self, x: &Tensor<B>, grad: &Tensor<B>) -> nn::Result<()> {
        self.layer.backward_params(x, grad)
    }
    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.layer.input_grad()
    }
    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> nn::Result<()> {
        self.layer.infer(x, out)
    }
    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> nn::Result<()>) -> nn::Result<()> {
        self.layer.visit_params(f)
    }
    fn visit_params_mut(
        &mut self,
        f: &mut dyn FnMut(ParamMut<'_, B>) -> nn::Result<()>,
    ) -> nn::Result<()> {
        self.layer.visit_params_mut(f)
    }
    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.layer.set_accumulate_grads(accumulate)
    }
}

impl<B: Backend> Model<B> for Affine<B> {
    type Config = AffineConfig;
    const KIND: &'static str = "test_affine";

    fn backend(&self) -> &B {
        &self.backend
    }

    fn from_config(backend: &B, config: &AffineConfig, seed: u64) -> nn::Result<Self> {
        if config.inputs == 0 || config.outputs == 0 {
            return Err(nn::Error::Config(
                "an affine map needs widths of at least 1".into(),
            ));
        }
        let (i, o) = (config.inputs, config.outputs);
        let id = Activation::Identity;
        let init = Init::XavierUniform.layer(0, 1, i, o, id, id);
        let layer = Linear::new(
            backend,
            i,
            o,
            id,
            init,
            &mut ChaCha8Rng::seed_from_u64(seed),
        )?;
        Ok(Affine {
            backend: backend.clone(),
            config: config.clone(),
            layer,
        })
    }

    fn config(&self) -> &AffineConfig {
        &self.config
    }

    fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>> {
        let mut out = Tensor::zeros(&self.backend, [x.dims()[0], self.config.outputs])?;
        self.layer.infer(x, &mut out)?;
        Ok(out)
    }
}

/// An affine map with the given weight (`[inputs, outputs]`, row-major) and bias.
pub fn affine(cpu: &CpuBackend, inputs: usize, weight: &[f32], bias: &[f32]) -> Affine<CpuBackend> {
    let outputs = bias.len();
    let mut m = Affine::from_config(cpu, &AffineConfig { inputs, outputs }, 3).unwrap();
    let state = [
        NamedArray::new("weight", vec![inputs, outputs], weight.to_vec()).unwrap(),
        NamedArray::new("bias", vec![outputs], bias.to_vec()).unwrap(),
    ];
    m.import_state(&state).unwrap();
    m
}
