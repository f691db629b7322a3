//! Gradient checks: analytic gradients (f32, from the layers) against central finite
//! differences of an f64 host reference of the same network.

use crate::common::*;
use nn::prelude::*;
use nn::{ActivationLayer, Encoding, Linear, Sequential};
use tensor_cpu::CpuBackend;

/// Runs forward, loss and backward on `model`, then compares parameter and input gradients
/// with finite differences of the reference.
fn check_mlp(model: &mut Mlp<CpuBackend>, loss: Loss, x: &[f32], y: &[f32], what: &str) {
    let cpu = model.backend().clone();
    let rows = x.len() / model.config().input;
    let cols = model.config().output;
    let xt = tensor(&cpu, x, rows, model.config().input);
    let yt = tensor(&cpu, y, rows, cols);
    let pred = model.forward(&xt).unwrap();
    let out = loss.compute(pred, &yt).unwrap();
    let input_grad = model.backward(&xt, &out.grad).unwrap().to_vec().unwrap();
    let analytic: Vec<f32> = params(model).into_iter().flat_map(|p| p.2).collect();

    let reference = ref_of_mlp(model);
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
    // The reference forward agrees with the model's.
    let ref_pred = ref_forward(&reference, &x64, rows);
    let model_pred = model.output().unwrap().to_vec().unwrap();
    for (a, b) in model_pred.iter().zip(&ref_pred) {
        assert!(
            (*a as f64 - b).abs() < 1e-4 * (1.0 + b.abs()),
            "{what}: forward {a} vs {b}"
        );
    }
    let f = |p: &[f64]| ref_loss(loss, p, &y64, rows, cols);
    let ref_value = f(&ref_pred);
    let value = out.loss.to_scalar().unwrap() as f64;
    assert!(
        (value - ref_value).abs() < 1e-4 * (1.0 + ref_value.abs()),
        "{what}: loss"
    );
    let (num_params, num_input) = numeric_grads(&reference, &x64, rows, &f);
    assert_close(
        &format!("{what} parameter gradients"),
        &analytic,
        &num_params,
    );
    assert_close(&format!("{what} input gradients"), &input_grad, &num_input);
}

fn data(seed: u64, rows: usize, input: usize, output: usize) -> (Vec<f32>, Vec<f32>) {
    let mut r = rng(seed);
    (
        uniform(&mut r, rows * input, -1.0, 1.0),
        uniform(&mut r, rows * output, -1.0, 1.0),
    )
}

#[test]
fn every_activation_in_an_mlp() {
    let cpu = CpuBackend::new();
    let acts = [
        Activation::Identity,
        Activation::Sigmoid,
        Activation::Tanh,
        Activation::Relu,
        Activation::LeakyRelu { alpha: 0.1 },
        Activation::Sine { w0: 3.0 },
        Activation::Sine { w0: 30.0 },
    ];
    for (k, act) in acts.into_iter().enumerate() {
        let mut model = Mlp::builder()
            .input(3)
            .hidden(&[5, 4], act)
            .output(2, Activation::Identity)
            .init(Init::PyTorch)
            .build(&cpu, k as u64)
            .unwrap();
        let (x, y) = data(10 + k as u64, 6, 3, 2);
        check_mlp(&mut model, Loss::Mse, &x, &y, &format!("{act:?}"));
    }
}

/// A batch of 600 rows sends every product of a ReLU network through the CPU's kernels for
/// one long dimension, with the bias and ReLU fused into the forward products and ReLU's
/// derivative into the input-gradient products: the gradients still match.
#[test]
fn a_long_batch_through_the_fused_products() {
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(3)
        .hidden(&[16, 16], Activation::Relu)
        .output(2, Activation::Identity)
        .init(Init::PyTorch)
        .build(&cpu, 5)
        .unwrap();
    let (x, y) = data(77, 600, 3, 2);
    check_mlp(&mut model, Loss::Mse, &x, &y, "ReLU 16x2 on 600 rows");
}

#[test]
fn siren_initialisation_gradients() {
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[8, 8], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(&cpu, 3)
        .unwrap();
    let (x, y) = data(4, 5, 2, 1);
    check_mlp(&mut model, Loss::Mse, &x, &y, "siren");
}

#[test]
fn output_activations() {
    let cpu = CpuBackend::new();
    for (k, act) in [Activation::Sigmoid, Activation::Tanh]
        .into_iter()
        .enumerate()
    {
        let mut model = Mlp::builder()
            .input(2)
            .hidden(&[4], Activation::Relu)
            .output(2, act)
            .build(&cpu, 40 + k as u64)
            .unwrap();
        let (x, y) = data(50 + k as u64, 5, 2, 2);
        check_mlp(&mut model, Loss::Mse, &x, &y, &format!("output {act:?}"));
    }
}

#[test]
fn every_loss() {
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(3)
        .hidden(&[6], Activation::Tanh)
        .output(3, Activation::Identity)
        .build(&cpu, 7)
        .unwrap();
    let (x, _) = data(8, 5, 3, 3);
    // BCE: targets in [0, 1], some fractional.
    let bce_y: Vec<f32> = (0..15).map(|i| [0.0, 1.0, 0.3][i % 3]).collect();
    check_mlp(&mut model, Loss::BceWithLogits, &x, &bce_y, "bce");
    // Softmax cross-entropy: one-hot rows.
    let ce_y: Vec<f32> = (0..15)
        .map(|i| if i % 3 == (i / 3) % 3 { 1.0 } else { 0.0 })
        .collect();
    check_mlp(
        &mut model,
        Loss::SoftmaxCrossEntropy,
        &x,
        &ce_y,
        "softmax ce",
    );
    let (_, mse_y) = data(9, 5, 3, 3);
    check_mlp(&mut model, Loss::Mse, &x, &mse_y, "mse");
}

#[test]
fn bce_is_stable_for_huge_logits() {
    let cpu = CpuBackend::new();
    let pred = tensor(&cpu, &[100.0, -100.0, 1e4, -1e4], 4, 1);
    let target = tensor(&cpu, &[0.0, 1.0, 1.0, 0.0], 4, 1);
    let out = Loss::BceWithLogits.compute(&pred, &target).unwrap();
    let loss = out.loss.to_scalar().unwrap();
    assert!((loss - 50.0).abs() < 1e-3, "{loss}");
    let g = out.grad.to_vec().unwrap();
    assert!(g.iter().all(|v| v.is_finite()));
    assert!((g[0] - 0.25).abs() < 1e-6 && (g[1] + 0.25).abs() < 1e-6);
    assert!(g[2].abs() < 1e-6 && g[3].abs() < 1e-6);
}

#[test]
fn fourier_features_encoding() {
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(2)
        .fourier_features(4, 1.0)
        .hidden(&[6], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 11)
        .unwrap();
    let (x, y) = data(12, 5, 2, 1);
    check_mlp(&mut model, Loss::Mse, &x, &y, "fourier");
}

#[test]
fn positional_encoding_with_and_without_input() {
    let cpu = CpuBackend::new();
    for include in [false, true] {
        let mut model = Mlp::builder()
            .input(2)
            .positional_encoding(3, include)
            .hidden(&[5], Activation::Relu)
            .output(2, Activation::Identity)
            .build(&cpu, 13)
            .unwrap();
        assert_eq!(
            model.encoding().unwrap().output_dim(),
            2 * 2 * 3 + if include { 2 } else { 0 }
        );
        let (x, y) = data(14, 4, 2, 2);
        check_mlp(
            &mut model,
            Loss::Mse,
            &x,
            &y,
            &format!("positional {include}"),
        );
    }
}

#[test]
fn learned_input_scale_with_and_without_an_encoding() {
    let cpu = CpuBackend::new();
    for bands in [0, 2] {
        let mut builder = Mlp::builder().input(3).input_scale(true);
        if bands > 0 {
            builder = builder.positional_encoding(bands, true);
        }
        let mut model = builder
            .hidden(&[5], Activation::Tanh)
            .output(2, Activation::Identity)
            .build(&cpu, 15)
            .unwrap();
        // Factors away from 1, so that a gradient that ignored them would be seen.
        let factors = [0.5f32, -1.5, 2.0];
        set_input_factors(&mut model, &factors);
        assert_eq!(model.config().num_params(), model.num_params());
        let (x, y) = data(16, 5, 3, 2);
        check_mlp(
            &mut model,
            Loss::Mse,
            &x,
            &y,
            &format!("scale, {bands} bands"),
        );
    }
}

#[test]
fn positional_encoding_values() {
    let cpu = CpuBackend::new();
    let mut enc = Encoding::positional(&cpu, 1, 3, true).unwrap();
    let x = tensor(&cpu, &[0.25], 1, 1);
    let out = enc.forward(&x).unwrap().to_vec().unwrap();
    let pi = std::f32::consts::PI;
    let want = [
        0.25,
        (pi * 0.25).sin(),
        (2.0 * pi * 0.25).sin(),
        (4.0 * pi * 0.25).sin(),
        (pi * 0.25).cos(),
        (2.0 * pi * 0.25).cos(),
        (4.0 * pi * 0.25).cos(),
    ];
    for (a, b) in out.iter().zip(want) {
        assert!((a - b).abs() < 1e-5, "{out:?} vs {want:?}");
    }
}

fn linear(
    cpu: &CpuBackend,
    seed: u64,
    i: usize,
    o: usize,
    act: Activation,
) -> (Linear<CpuBackend>, RefLayer) {
    let mut r = rng(seed);
    let w = uniform(&mut r, i * o, -0.8, 0.8);
    let b = uniform(&mut r, o, -0.5, 0.5);
    let layer = Linear::from_tensors(
        Tensor::from_slice(cpu, &w, [i, o]).unwrap(),
        Tensor::from_slice(cpu, &b, [o]).unwrap(),
        act,
    )
    .unwrap();
    let reference = RefLayer::Linear {
        w: w.iter().map(|&v| v as f64).collect(),
        b: b.iter().map(|&v| v as f64).collect(),
        i,
        o,
        act,
    };
    (layer, reference)
}

#[test]
fn sequential_with_standalone_activation_layers() {
    let cpu = CpuBackend::new();
    let acts = [
        Activation::Sigmoid,
        Activation::Tanh,
        Activation::Relu,
        Activation::LeakyRelu { alpha: 0.2 },
        Activation::Sine { w0: 2.0 },
        Activation::Identity,
    ];
    for (k, act) in acts.into_iter().enumerate() {
        let (l0, r0) = linear(&cpu, 100 + k as u64, 3, 4, Activation::Identity);
        let (l1, r1) = linear(&cpu, 200 + k as u64, 4, 2, Activation::Identity);
        let mut seq = Sequential::new()
            .with(l0)
            .unwrap()
            .with(ActivationLayer::new(&cpu, 4, act))
            .unwrap()
            .with(l1)
            .unwrap();
        let names: Vec<String> = params(&seq).into_iter().map(|p| p.0).collect();
        assert_eq!(
            names,
            [
                "layers.0.weight",
                "layers.0.bias",
                "layers.2.weight",
                "layers.2.bias"
            ]
        );
        let reference = vec![r0, RefLayer::Act(act), r1];
        let rows = 5;
        let (x, y) = data(300 + k as u64, rows, 3, 2);
        let xt = tensor(&cpu, &x, rows, 3);
        let yt = tensor(&cpu, &y, rows, 2);
        let pred = seq.forward(&xt).unwrap();
        let out = Loss::Mse.compute(pred, &yt).unwrap();
        let gi = seq.backward(&xt, &out.grad).unwrap().to_vec().unwrap();
        let analytic: Vec<f32> = params(&seq).into_iter().flat_map(|p| p.2).collect();
        let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
        let f = |p: &[f64]| ref_loss(Loss::Mse, p, &y64, rows, 2);
        let (np, ni) = numeric_grads(&reference, &x64, rows, &f);
        assert_close(&format!("sequential {act:?} params"), &analytic, &np);
        assert_close(&format!("sequential {act:?} input"), &gi, &ni);
        // Inference gives the training forward's output.
        let mut inferred = Tensor::uninit(&cpu, [rows, 2]).unwrap();
        seq.infer(&xt, &mut inferred).unwrap();
        let a = inferred.to_vec().unwrap();
        let b = seq.output().unwrap().to_vec().unwrap();
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() < 1e-6);
        }
    }
}

#[test]
fn gradients_accumulate_when_asked() {
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[3], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 1)
        .unwrap();
    let (x, y) = data(2, 4, 2, 1);
    let xt = tensor(&cpu, &x, 4, 2);
    let yt = tensor(&cpu, &y, 4, 1);
    let pass = |m: &mut Mlp<CpuBackend>| {
        let pred = m.forward(&xt).unwrap();
        let out = Loss::Mse.compute(pred, &yt).unwrap();
        m.backward_params(&xt, &out.grad).unwrap();
    };
    pass(&mut model);
    let once: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    pass(&mut model);
    let overwritten: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    assert_eq!(
        once, overwritten,
        "by default backward overwrites gradients"
    );
    model.set_accumulate_grads(true);
    pass(&mut model);
    let twice: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    for (a, b) in once.iter().zip(&twice) {
        assert!((2.0 * a - b).abs() < 1e-6 * (1.0 + b.abs()));
    }
    model.zero_grads().unwrap();
    assert!(params(&model).iter().all(|p| p.2.iter().all(|&g| g == 0.0)));
}

#[test]
fn gradient_clipping_scales_to_the_global_norm() {
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[4], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 5)
        .unwrap();
    let (x, _) = data(6, 8, 2, 1);
    let xt = tensor(&cpu, &x, 8, 2);
    let yt = tensor(&cpu, &[100.0; 8], 8, 1);
    let pred = model.forward(&xt).unwrap();
    let out = Loss::Mse.compute(pred, &yt).unwrap();
    model.backward_params(&xt, &out.grad).unwrap();
    let before: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    let norm = before
        .iter()
        .map(|g| (*g as f64).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(norm > 1.0);
    let mut clipper = nn::GradClipper::new(&cpu, 1.0).unwrap();
    clipper.clip(&mut model).unwrap();
    let measured = clipper.norm().to_scalar().unwrap() as f64;
    assert!((measured - norm).abs() < 1e-4 * norm);
    let after: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    let new_norm = after
        .iter()
        .map(|g| (*g as f64).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!((new_norm - 1.0).abs() < 1e-4, "{new_norm}");
    // Below the limit nothing changes.
    let mut loose = nn::GradClipper::new(&cpu, 10.0).unwrap();
    loose.clip(&mut model).unwrap();
    let same: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    for (a, b) in after.iter().zip(&same) {
        assert!((a - b).abs() <= 1e-7 * (1.0 + a.abs()));
    }
}

#[test]
fn learned_frequencies_of_a_positional_encoding() {
    let cpu = CpuBackend::new();
    for include in [true, false] {
        let mut model = Mlp::builder()
            .input(2)
            .positional_encoding(2, include)
            .learned_frequencies(true)
            .hidden(&[5], Activation::Tanh)
            .output(1, Activation::Identity)
            .build(&cpu, 17)
            .unwrap();
        let (x, y) = data(18, 6, 2, 1);
        let (xt, yt) = (tensor(&cpu, &x, 6, 2), tensor(&cpu, &y, 6, 1));
        let pred = model.forward(&xt).unwrap();
        let out = Loss::Mse.compute(pred, &yt).unwrap();
        model.backward_params(&xt, &out.grad).unwrap();
        let all = params(&model);
        let (name, freqs, grad) = &all[0];
        assert_eq!(name, nn::model::mlp::ENCODING_FREQUENCIES);
        // Central differences of the f64 reference, frequency by frequency.
        let reference = ref_of_mlp(&model);
        let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
        let loss =
            |layers: &[RefLayer]| ref_loss(Loss::Mse, &ref_forward(layers, &x64, 6), &y64, 6, 1);
        let h = 1e-6;
        let mut numeric = Vec::new();
        for k in 0..freqs.len() {
            let at = |delta: f64| {
                let mut layers = reference.clone();
                if let RefLayer::Encoding { freqs, .. } = &mut layers[0] {
                    freqs[k] += delta;
                }
                loss(&layers)
            };
            numeric.push((at(h) - at(-h)) / (2.0 * h));
        }
        // The frequencies that are 0 (a band of another input) are not learned.
        for (k, f) in freqs.iter().enumerate() {
            if *f == 0.0 {
                assert_eq!(grad[k], 0.0, "frequency {k} is not learned");
                numeric[k] = 0.0;
            }
        }
        assert!(grad.iter().any(|g| g.abs() > 1e-3), "{grad:?}");
        assert_close(
            &format!("frequencies, input kept {include}"),
            grad,
            &numeric,
        );
    }
}
