//! [`HashGridMlp`]: a multiresolution hash-grid encoding with trainable tables followed by
//! a small ReLU network (Müller et al., "Instant Neural Graphics Primitives", 2022).

use super::hashgrid_config::HashGridMlpConfig;
use super::predict::{chunk_rows_for, predict_in_chunks};
use crate::init::Init;
use crate::layer::train_pass_by_layers;
use crate::layer::{DenseParts, Layer, Linear, ParamMut, ParamRef, Sequential, Tuning};
use crate::layer::{check_input, ensure, no_forward};
use crate::model::Model;
use crate::{AdamConfig, Loss, Result, config_err};
use tensor_core::mlp_pass::{DenseGrad, DenseRef, relu_mlp_mse_pass};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Activation, Backend, FeatureLayout, HashGridSpec, ReduceOp, Tensor, UnaryOp};

/// Half-width of the uniform distribution the tables are drawn from.
pub const TABLE_INIT: f32 = 1e-4;

const FM: FeatureLayout = FeatureLayout::FeatureMajor;

/// The trainable tables of a hash-grid encoding and their gradient.
struct Tables<B: Backend> {
    spec: HashGridSpec,
    value: Tensor<B>,
    grad: Tensor<B>,
}

/// The first layer, reading the encoding's feature-major output with a transposed GEMM.
struct FirstLayer<B: Backend> {
    weight: Tensor<B>,
    bias: Tensor<B>,
    weight_grad: Tensor<B>,
    bias_grad: Tensor<B>,
}

/// Buffers of the training forward pass, reused while the batch size stays the same.
struct Buffers<B: Backend> {
    /// The inputs mapped to `[0, 1]`, `[n, d]`.
    unit: Option<Tensor<B>>,
    /// Encoded features, feature-major `[L F, n]`.
    features: Option<Tensor<B>>,
    /// The first layer's activation, `[n, h0]` (its ReLU's derivative is read off it).
    h: Option<Tensor<B>>,
    /// Gradients of `z` and of the features.
    grad_z: Option<Tensor<B>>,
    grad_features: Option<Tensor<B>>,
}

impl<B: Backend> Default for Buffers<B> {
    fn default() -> Self {
        Buffers {
            unit: None,
            features: None,
            h: None,
            grad_z: None,
            grad_features: None,
        }
    }
}

/// A hash-grid encoding (trainable tables) followed by ReLU layers and an output layer.
///
/// Parameters, in order: `encoding.tables` (`[table_entries, F]`, drawn from
/// U(-1e-4, 1e-4)), `input.weight` / `input.bias` (the first layer, `[L F, h0]`), then
/// `layers.k.weight` / `layers.k.bias` for the remaining layers. Inputs are mapped from
/// [`input_range`](HashGridMlpConfig::input_range) to `[0, 1]` first. The encoding's
/// features stay feature-major (`[L F, n]`, the fast layout) and the first layer reads them
/// with a transposed matrix product. There is no gradient with respect to the inputs:
/// [`Layer::backward`] is an error, training uses [`Layer::backward_params`].
pub struct HashGridMlp<B: Backend> {
    backend: B,
    config: HashGridMlpConfig,
    tables: Tables<B>,
    first: FirstLayer<B>,
    rest: Sequential<B>,
    /// Whether `rest` returns its input gradient times `relu'(h)` (the gradient at the first
    /// layer's pre-activation), computed in the same pass.
    rest_masks: bool,
    accumulate: bool,
    /// Whether the backend ran the fused training pass (`None` until first tried).
    fused: Option<bool>,
    buf: Buffers<B>,
}

impl<B: Backend> HashGridMlp<B> {
    /// The encoding's layout (levels, resolutions, table offsets).
    pub fn spec(&self) -> &HashGridSpec {
        &self.tables.spec
    }

    /// The activation of the first layer.
    fn first_act(&self) -> Activation {
        Activation::Relu
    }

    /// Maps `x` to `[0, 1]` into `unit`.
    fn to_unit(&self, x: &Tensor<B>, unit: &mut Tensor<B>) -> Result<()> {
        let (scale, shift) = self.config.unit_map();
        Ok(x.unary_into(UnaryOp::Affine { scale, shift }, unit)?)
    }

    /// Encoding and first layer for `x` (mapped to `[0, 1]` in `unit`) into `h`: the
    /// features are read transposed, and the bias and ReLU fused into the product.
    fn head(&self, unit: &Tensor<B>, features: &mut Tensor<B>, h: &mut Tensor<B>) -> Result<()> {
        let t = &self.tables;
        unit.hashgrid_encode_into(&t.spec, &t.value, FM, features)?;
        let (f, w) = ((&*features, true), (&self.first.weight, false));
        Ok(Tensor::matmul_bias_act_into(
            f,
            w,
            &self.first.bias,
            self.first_act(),
            h,
        )?)
    }
}

impl<B: Backend> HashGridMlp<B> {
    /// The training pass as one backend call where it can be: the encoding, the fused pass
    /// of the ReLU layers ([`relu_mlp_mse_pass`]) and the tables' gradient. Returns
    /// `false` (nothing changed but the encoding buffers) when the loss, the output
    /// activation, gradient accumulation or the backend rule it out.
    fn fused_pass(
        &mut self,
        x: &Tensor<B>,
        target: &Tensor<B>,
        loss: Loss,
        loss_out: &mut Tensor<B>,
    ) -> Result<bool> {
        if self.fused == Some(false)
            || loss != Loss::Mse
            || self.accumulate
            || self.config.output_activation != Activation::Identity
        {
            return Ok(false);
        }
        let n = check_input(x, self.config.input, "HashGridMlp::train_pass")?;
        let width = self.tables.spec.output_dim();
        let mut buf = std::mem::take(&mut self.buf);
        let result: Result<bool> = (|| {
            let unit = ensure(&mut buf.unit, &self.backend, n, self.config.input)?;
            self.to_unit(x, unit)?;
            let features = ensure(&mut buf.features, &self.backend, width, n)?;
            let t = &self.tables;
            let unit = buf.unit.as_ref().expect("set above");
            unit.hashgrid_encode_into(&t.spec, &t.value, FM, features)?;
            let gf = ensure(&mut buf.grad_features, &self.backend, width, n)?;
            let f = &mut self.first;
            let mut parts = vec![DenseParts {
                params: DenseRef {
                    weight: &f.weight,
                    bias: &f.bias,
                },
                grads: DenseGrad {
                    weight: &mut f.weight_grad,
                    bias: &mut f.bias_grad,
                },
                act: Activation::Relu,
            }];
            let Some(rest) = self.rest.dense_parts_all() else {
                return Ok(false);
            };
            parts.extend(rest);
            let last = parts.len() - 1;
            let relu_net = parts.iter().enumerate().all(|(i, p)| {
                let want = if i == last {
                    Activation::Identity
                } else {
                    Activation::Relu
                };
                p.act == want
            });
            if !relu_net {
                return Ok(false);
            }
            let (layers, mut grads): (Vec<_>, Vec<_>) =
                parts.into_iter().map(|p| (p.params, p.grads)).unzip();
            let features = buf.features.as_ref().expect("set above");
            if !relu_mlp_mse_pass(
                features,
                FM,
                &layers,
                target,
                &mut grads,
                Some(gf),
                loss_out,
            )? {
                return Ok(false);
            }
            let t = &mut self.tables;
            unit.hashgrid_backward_into(&t.spec, FM, gf, &mut t.grad, false)?;
            Ok(true)
        })();
        self.buf = buf;
        let ran = result?;
        self.fused = Some(ran);
        Ok(ran)
    }
}

impl<B: Backend> Layer<B> for HashGridMlp<B> {
    fn describe(&self) -> String {
        let s = &self.tables.spec;
        format!(
            "hash grid ({} levels x {} features, {} entries) -> {}",
            s.levels().len(),
            s.features(),
            s.table_entries(),
            self.rest.describe()
        )
    }

    fn input_dim(&self) -> usize {
        self.config.input
    }

    fn output_dim(&self) -> usize {
        self.config.output
    }

    fn forward(&mut self, x: &Tensor<B>) -> Result<&Tensor<B>> {
        let n = check_input(x, self.config.input, "HashGridMlp::forward")?;
        let width = self.tables.spec.output_dim();
        let h0 = self.config.hidden[0];
        let mut buf = std::mem::take(&mut self.buf);
        let result = (|| {
            let unit = ensure(&mut buf.unit, &self.backend, n, self.config.input)?;
            self.to_unit(x, unit)?;
            let features = ensure(&mut buf.features, &self.backend, width, n)?;
            let h = ensure(&mut buf.h, &self.backend, n, h0)?;
            self.head(buf.unit.as_ref().expect("set above"), features, h)
        })();
        self.buf = buf;
        result?;
        let h = self.buf.h.as_ref().expect("set by the forward pass");
        self.rest.forward(h)
    }

    fn output(&self) -> Option<&Tensor<B>> {
        self.rest.output()
    }

    fn backward(&mut self, _x: &Tensor<B>, _grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        Err(config_err(
            "a hash-grid encoding has no gradient with respect to its input coordinates",
        ))
    }

    fn backward_params(&mut self, x: &Tensor<B>, grad_out: &Tensor<B>) -> Result<()> {
        let n = check_input(x, self.config.input, "HashGridMlp::backward")?;
        let b = &mut self.buf;
        let (Some(unit), Some(features), Some(h)) = (&b.unit, &b.features, &b.h) else {
            return Err(no_forward("HashGridMlp::backward"));
        };
        if unit.dims()[0] != n {
            return Err(no_forward("HashGridMlp::backward"));
        }
        let g_h = self.rest.backward(h, grad_out)?;
        let gz = if self.rest_masks {
            g_h
        } else {
            let gz = ensure(&mut b.grad_z, &self.backend, n, self.config.hidden[0])?;
            g_h.act_backward_into(h, Activation::Relu, gz)?;
            gz
        };
        let beta = if self.accumulate { 1.0 } else { 0.0 };
        let f = &mut self.first;
        Tensor::matmul_into(features, gz, &mut f.weight_grad, false, false, 1.0, beta)?;
        if self.accumulate {
            let sum = gz.reduce(ReduceOp::Sum, Some(0), false)?;
            f.bias_grad.add_assign(&sum)?;
        } else {
            gz.reduce_into(ReduceOp::Sum, Some(0), &mut f.bias_grad)?;
        }
        let width = self.tables.spec.output_dim();
        let gf = ensure(&mut b.grad_features, &self.backend, width, n)?;
        Tensor::matmul_into(&f.weight, gz, gf, false, true, 1.0, 0.0)?;
        let t = &mut self.tables;
        unit.hashgrid_backward_into(&t.spec, FM, gf, &mut t.grad, self.accumulate)?;
        Ok(())
    }

    fn train_pass(
        &mut self,
        x: &Tensor<B>,
        target: &Tensor<B>,
        loss: Loss,
        grad: &mut Tensor<B>,
        loss_out: &mut Tensor<B>,
    ) -> Result<()> {
        if self.fused_pass(x, target, loss, loss_out)? {
            return Ok(());
        }
        train_pass_by_layers(self, x, target, loss, grad, loss_out)
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        None
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let n = check_input(x, self.config.input, "HashGridMlp::infer")?;
        let h0 = self.config.hidden[0];
        let mut unit = Tensor::uninit(&self.backend, [n, self.config.input])?;
        self.to_unit(x, &mut unit)?;
        let mut features = Tensor::uninit(&self.backend, [self.tables.spec.output_dim(), n])?;
        let mut h = Tensor::uninit(&self.backend, [n, h0])?;
        self.head(&unit, &mut features, &mut h)?;
        drop((unit, features));
        self.rest.infer(&h, out)
    }

    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> Result<()>) -> Result<()> {
        let t = &self.tables;
        f(ParamRef {
            name: "encoding.tables",
            value: &t.value,
            grad: &t.grad,
        })?;
        let l = &self.first;
        f(ParamRef {
            name: "input.weight",
            value: &l.weight,
            grad: &l.weight_grad,
        })?;
        f(ParamRef {
            name: "input.bias",
            value: &l.bias,
            grad: &l.bias_grad,
        })?;
        self.rest.visit_params(f)
    }

    fn visit_params_mut(&mut self, f: &mut dyn FnMut(ParamMut<'_, B>) -> Result<()>) -> Result<()> {
        let t = &mut self.tables;
        f(ParamMut {
            name: "encoding.tables",
            value: &mut t.value,
            grad: &mut t.grad,
            tuning: Tuning::PLAIN,
        })?;
        let l = &mut self.first;
        f(ParamMut {
            name: "input.weight",
            value: &mut l.weight,
            grad: &mut l.weight_grad,
            tuning: Tuning::PLAIN,
        })?;
        f(ParamMut {
            name: "input.bias",
            value: &mut l.bias,
            grad: &mut l.bias_grad,
            tuning: Tuning::PLAIN,
        })?;
        self.rest.visit_params_mut(f)
    }

    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.accumulate = accumulate;
        self.rest.set_accumulate_grads(accumulate);
    }
}

impl<B: Backend> std::fmt::Debug for HashGridMlp<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashGridMlp")
            .field("backend", &self.backend.name())
            .field("config", &self.config)
            .finish()
    }
}

impl<B: Backend> Model<B> for HashGridMlp<B> {
    type Config = HashGridMlpConfig;
    const KIND: &'static str = "hash_grid_mlp";

    fn backend(&self) -> &B {
        &self.backend
    }

    /// The Instant-NGP recipe ([`AdamConfig::hash_grid`]), without weight decay.
    fn adam(lr: f32, _weight_decay: f32) -> AdamConfig {
        AdamConfig::hash_grid(lr)
    }

    fn from_config(backend: &B, config: &HashGridMlpConfig, seed: u64) -> Result<Self> {
        let spec = config.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let shape = [spec.table_entries(), spec.features()];
        let value = Tensor::rand_uniform(backend, shape, -TABLE_INIT, TABLE_INIT, &mut rng)?;
        let tables = Tables {
            grad: Tensor::zeros(backend, shape)?,
            value,
            spec,
        };
        let relu = Activation::Relu;
        let out_act = config.output_activation;
        let mut dims = vec![tables.spec.output_dim()];
        dims.extend(&config.hidden);
        dims.push(config.output);
        let count = dims.len() - 1;
        let act = |i: usize| if i + 1 == count { out_act } else { relu };
        let init = |i: usize| Init::Auto.layer(i, count, dims[i], dims[i + 1], act(i), relu);
        let (weight, bias) = init(0).draw(backend, dims[0], dims[1], &mut rng)?;
        let first = FirstLayer {
            weight_grad: Tensor::zeros(backend, weight.shape().clone())?,
            bias_grad: Tensor::zeros(backend, bias.shape().clone())?,
            weight,
            bias,
        };
        let mut rest = Sequential::new();
        for i in 1..count {
            let layer = Linear::new(backend, dims[i], dims[i + 1], act(i), init(i), &mut rng)?;
            rest.push(Box::new(layer))?;
        }
        let rest_masks = rest.set_input_relu(true);
        Ok(HashGridMlp {
            backend: backend.clone(),
            config: config.clone(),
            tables,
            first,
            rest,
            rest_masks,
            accumulate: false,
            fused: None,
            buf: Buffers::default(),
        })
    }

    fn config(&self) -> &HashGridMlpConfig {
        &self.config
    }

    fn predict(&self, x: &Tensor<B>) -> Result<Tensor<B>> {
        let s = &self.tables.spec;
        let widest = self
            .config
            .hidden
            .iter()
            .fold(s.output_dim(), |a, &b| a.max(b));
        // The encoding, the first layer's two buffers and the rest's: about 4 buffers.
        let rows = chunk_rows_for(widest * 4);
        predict_in_chunks(x, self.config.output, rows, |x, out| self.infer(x, out))
    }
}
