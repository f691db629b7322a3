//! Helpers shared by the integration tests: data generators and an f64 host reference of
//! the layers, losses and encodings for gradient checks.
#![allow(dead_code)]

use nn::prelude::*;
use tensor_core::rand::{Rng, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_cpu::CpuBackend;

pub type T = Tensor<CpuBackend>;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn uniform(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

pub fn tensor(cpu: &CpuBackend, data: &[f32], rows: usize, cols: usize) -> T {
    Tensor::from_slice(cpu, data, [rows, cols]).unwrap()
}

/// Every parameter of a layer as (name, values, gradient).
pub fn params(layer: &dyn Layer<CpuBackend>) -> Vec<(String, Vec<f32>, Vec<f32>)> {
    let mut out = Vec::new();
    layer
        .visit_params(&mut |p| {
            out.push((p.name.to_string(), p.value.to_vec()?, p.grad.to_vec()?));
            Ok(())
        })
        .unwrap();
    out
}

/// The parameter values of a layer, flattened in visit order (for bit-exact comparisons).
pub fn flat_params(layer: &dyn Layer<CpuBackend>) -> Vec<f32> {
    params(layer).into_iter().flat_map(|p| p.1).collect()
}

// ---------------------------------------------------------------------------------------
// f64 host reference

pub fn act64(a: Activation, z: f64) -> f64 {
    match a {
        Activation::Identity => z,
        Activation::Sigmoid => 1.0 / (1.0 + (-z).exp()),
        Activation::Tanh => z.tanh(),
        Activation::Relu => z.max(0.0),
        Activation::LeakyRelu { alpha } => {
            if z > 0.0 {
                z
            } else {
                alpha as f64 * z
            }
        }
        Activation::Sine { w0 } => (w0 as f64 * z).sin(),
    }
}

/// A layer of the host reference.
#[derive(Clone, Debug)]
pub enum RefLayer {
    Linear {
        w: Vec<f64>,
        b: Vec<f64>,
        i: usize,
        o: usize,
        act: Activation,
    },
    Act(Activation),
    /// `y = x * s`, one factor per column.
    Scale(Vec<f64>),
    Encoding {
        freqs: Vec<f64>,
        d: usize,
        m: usize,
        include_input: bool,
    },
}

impl RefLayer {
    pub fn forward(&self, x: &[f64], rows: usize) -> Vec<f64> {
        match self {
            RefLayer::Linear { w, b, i, o, act } => {
                let mut y = vec![0.0; rows * o];
                for r in 0..rows {
                    for c in 0..*o {
                        let mut z = b[c];
                        for k in 0..*i {
                            z += x[r * i + k] * w[k * o + c];
                        }
                        y[r * o + c] = act64(*act, z);
                    }
                }
                y
            }
            RefLayer::Act(a) => x.iter().map(|&z| act64(*a, z)).collect(),
            RefLayer::Scale(s) => x
                .iter()
                .enumerate()
                .map(|(k, &v)| v * s[k % s.len()])
                .collect(),
            RefLayer::Encoding {
                freqs,
                d,
                m,
                include_input,
            } => {
                let off = if *include_input { *d } else { 0 };
                let w = off + 2 * m;
                let mut y = vec![0.0; rows * w];
                for r in 0..rows {
                    for k in 0..off {
                        y[r * w + k] = x[r * d + k];
                    }
                    for j in 0..*m {
                        let mut p = 0.0;
                        for k in 0..*d {
                            p += x[r * d + k] * freqs[k * m + j];
                        }
                        p *= std::f64::consts::TAU;
                        y[r * w + off + j] = p.sin();
                        y[r * w + off + m + j] = p.cos();
                    }
                }
                y
            }
        }
    }

    pub fn param_count(&self) -> usize {
        match self {
            RefLayer::Linear { w, b, .. } => w.len() + b.len(),
            RefLayer::Scale(s) => s.len(),
            _ => 0,
        }
    }

    pub fn param_mut(&mut self, k: usize) -> &mut f64 {
        match self {
            RefLayer::Linear { w, b, .. } => {
                if k < w.len() {
                    &mut w[k]
                } else {
                    &mut b[k - w.len()]
                }
            }
            RefLayer::Scale(s) => &mut s[k],
            _ => unreachable!(),
        }
    }
}

pub fn ref_forward(layers: &[RefLayer], x: &[f64], rows: usize) -> Vec<f64> {
    layers.iter().fold(x.to_vec(), |h, l| l.forward(&h, rows))
}

/// The f64 loss of `pred` against `target` (`rows x cols`).
pub fn ref_loss(loss: Loss, pred: &[f64], target: &[f64], rows: usize, cols: usize) -> f64 {
    let n = pred.len() as f64;
    match loss {
        Loss::Mse => {
            pred.iter()
                .zip(target)
                .map(|(p, t)| (p - t) * (p - t))
                .sum::<f64>()
                / n
        }
        Loss::BceWithLogits => {
            pred.iter()
                .zip(target)
                .map(|(&z, &y)| z.max(0.0) - z * y + (-z.abs()).exp().ln_1p())
                .sum::<f64>()
                / n
        }
        Loss::SoftmaxCrossEntropy => {
            let mut total = 0.0;
            for r in 0..rows {
                let row = &pred[r * cols..(r + 1) * cols];
                let max = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let lse = row.iter().map(|v| (v - max).exp()).sum::<f64>().ln() + max;
                for c in 0..cols {
                    total -= target[r * cols + c] * (row[c] - lse);
                }
            }
            total / rows as f64
        }
    }
}

/// The reference of an `Mlp` from its configuration and exported state.
pub fn ref_of_mlp(model: &Mlp<CpuBackend>) -> Vec<RefLayer> {
    let cfg = model.config();
    let state = model.export_state().unwrap();
    let get = |name: &str| -> Vec<f64> {
        state
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .data
            .iter()
            .map(|&v| v as f64)
            .collect()
    };
    let mut layers = Vec::new();
    if cfg.input_scale {
        layers.push(RefLayer::Scale(get(nn::model::mlp::INPUT_SCALE)));
    }
    if let Some(e) = model.encoding() {
        let freqs: Vec<f64> = e
            .frequencies()
            .to_vec()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect();
        let d = cfg.input;
        layers.push(RefLayer::Encoding {
            m: freqs.len() / d,
            freqs,
            d,
            include_input: e.includes_input(),
        });
    }
    for (k, (i, o, act)) in cfg.layer_dims().into_iter().enumerate() {
        layers.push(RefLayer::Linear {
            w: get(&format!("layers.{k}.weight")),
            b: get(&format!("layers.{k}.bias")),
            i,
            o,
            act,
        });
    }
    layers
}

/// Central differences of `f` with respect to every parameter of `layers` (in order:
/// each linear layer's weight then bias), and with respect to every input.
pub fn numeric_grads(
    layers: &[RefLayer],
    x: &[f64],
    rows: usize,
    f: &dyn Fn(&[f64]) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    // h = 1e-6 in f64: truncation error ~h^2 f''' and rounding ~1e-16 |L| / h, both far below
    // the f32 analytic gradient's own error (~1e-6 relative).
    let h = 1e-6;
    let mut work = layers.to_vec();
    let mut param_grads = Vec::new();
    for li in 0..work.len() {
        for k in 0..work[li].param_count() {
            let orig = *work[li].param_mut(k);
            *work[li].param_mut(k) = orig + h;
            let plus = f(&ref_forward(&work, x, rows));
            *work[li].param_mut(k) = orig - h;
            let minus = f(&ref_forward(&work, x, rows));
            *work[li].param_mut(k) = orig;
            param_grads.push((plus - minus) / (2.0 * h));
        }
    }
    let mut input_grads = Vec::new();
    let mut xs = x.to_vec();
    for k in 0..xs.len() {
        let orig = xs[k];
        xs[k] = orig + h;
        let plus = f(&ref_forward(layers, &xs, rows));
        xs[k] = orig - h;
        let minus = f(&ref_forward(layers, &xs, rows));
        xs[k] = orig;
        input_grads.push((plus - minus) / (2.0 * h));
    }
    (param_grads, input_grads)
}

/// Asserts `analytic` (f32, from nn) matches `numeric` (f64): |a - n| <= 1e-4 + 2e-3 |n|
/// (the analytic side carries f32 rounding of a few ulps per operation).
pub fn assert_close(what: &str, analytic: &[f32], numeric: &[f64]) {
    assert_eq!(analytic.len(), numeric.len(), "{what}: lengths differ");
    let scale = numeric.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1.0);
    for (i, (&a, &n)) in analytic.iter().zip(numeric).enumerate() {
        let err = (a as f64 - n).abs();
        assert!(
            err <= 1e-4 * scale + 2e-3 * n.abs(),
            "{what}[{i}]: analytic {a} vs numeric {n} (error {err})"
        );
    }
}

// ---------------------------------------------------------------------------------------
// images

/// Pixel-centre coordinates of an `n x n` grid in `[-1, 1]`, both ends included
/// (`i -> -1 + 2 i / (n - 1)`), as `(x, y)` rows in row-major pixel order.
pub fn grid(n: usize) -> Vec<f32> {
    let c = |i: usize| -1.0 + 2.0 * i as f32 / (n - 1) as f32;
    let mut out = Vec::with_capacity(2 * n * n);
    for r in 0..n {
        for col in 0..n {
            out.push(c(col));
            out.push(c(r));
        }
    }
    out
}

/// A black-and-white test drawing: thin concentric rings and a diagonal stroke (1 = ink).
pub fn rings(n: usize) -> Vec<f32> {
    let g = grid(n);
    g.chunks(2)
        .map(|p| {
            let (x, y) = (p[0], p[1]);
            let r = (x * x + y * y).sqrt();
            let ring = ((r * 6.0).fract() - 0.5).abs() < 0.12 && r < 0.95;
            let stroke = (x - 0.6 * y - 0.1).abs() < 0.04;
            if ring || stroke { 1.0 } else { 0.0 }
        })
        .collect()
}

pub fn psnr(pred: &[f32], target: &[f32]) -> f64 {
    let mse = pred
        .iter()
        .zip(target)
        .map(|(p, t)| ((p - t) as f64).powi(2))
        .sum::<f64>()
        / pred.len() as f64;
    10.0 * (1.0 / mse.max(1e-12)).log10()
}

/// Intersection over union of the ink (values above 0.5).
pub fn ink_iou(pred: &[f32], target: &[f32]) -> f64 {
    let (mut inter, mut union) = (0usize, 0usize);
    for (p, t) in pred.iter().zip(target) {
        let (a, b) = (*p > 0.5, *t > 0.5);
        inter += (a && b) as usize;
        union += (a || b) as usize;
    }
    inter as f64 / union.max(1) as f64
}

pub fn quiet(config: TrainerConfig) -> TrainerConfig {
    TrainerConfig { ..config }
}

/// `rows` evenly spaced x in [-3, 3] with y = sin(x).
pub fn sine_data(cpu: &CpuBackend, rows: usize) -> (T, T) {
    let x: Vec<f32> = (0..rows)
        .map(|i| -3.0 + 6.0 * i as f32 / (rows - 1) as f32)
        .collect();
    let y: Vec<f32> = x.iter().map(|v| v.sin()).collect();
    (tensor(cpu, &x, rows, 1), tensor(cpu, &y, rows, 1))
}

/// A 1 -> 16 (tanh) -> 1 MLP drawn from `seed`.
pub fn small(cpu: &CpuBackend, seed: u64) -> Mlp<CpuBackend> {
    Mlp::builder()
        .input(1)
        .hidden(&[16], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(cpu, seed)
        .unwrap()
}

/// Sets the learned input factors of `model` (a network with [`nn::MlpConfig::input_scale`]).
pub fn set_input_factors(model: &mut Mlp<CpuBackend>, factors: &[f32]) {
    let mut state = model.export_state().unwrap();
    let s = state
        .iter_mut()
        .find(|a| a.name == nn::model::mlp::INPUT_SCALE)
        .unwrap();
    s.data = factors.to_vec();
    model.import_state(&state).unwrap();
}
