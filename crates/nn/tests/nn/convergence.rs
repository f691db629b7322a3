//! Convergence on small problems with known answers.

use crate::common::*;
use nn::prelude::*;
use tensor_core::rand::Rng;
use tensor_cpu::CpuBackend;

#[test]
fn xor() {
    let cpu = CpuBackend::new();
    let x = tensor(&cpu, &[0., 0., 0., 1., 1., 0., 1., 1.], 4, 2);
    let y = tensor(&cpu, &[0., 1., 1., 0.], 4, 1);
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[8], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 42)
        .unwrap();
    let mut adam = Adam::new(AdamConfig::new(0.05)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        loss: Loss::BceWithLogits,
        length: TrainLength::Steps(1000),
        ..TrainerConfig::default()
    }))
    .unwrap();
    let report = trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    assert_eq!(report.steps, 1000);
    assert_eq!(report.epochs, 1000, "full batch: one step per epoch");
    let p = model
        .predict(&x)
        .unwrap()
        .sigmoid()
        .unwrap()
        .to_vec()
        .unwrap();
    for (p, t) in p.iter().zip([0., 1., 1., 0.]) {
        assert!((p - t).abs() < 0.1, "XOR output {p} for target {t}");
    }
}

#[test]
fn linear_regression_recovers_the_coefficients() {
    let cpu = CpuBackend::new();
    let (w, b) = ([1.5f32, -2.0, 0.7], 0.3f32);
    let mut r = rng(1);
    let rows = 256;
    let x = uniform(&mut r, rows * 3, -1.0, 1.0);
    let y: Vec<f32> = x
        .chunks(3)
        .map(|v| v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + b)
        .collect();
    let (xt, yt) = (tensor(&cpu, &x, rows, 3), tensor(&cpu, &y, rows, 1));
    let mut model = Mlp::builder()
        .input(3)
        .hidden(&[], Activation::Identity)
        .output(1, Activation::Identity)
        .build(&cpu, 2)
        .unwrap();
    let mut sgd = Sgd::new(SgdConfig::momentum(0.1, 0.9)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(1500),
        ..TrainerConfig::default()
    }))
    .unwrap();
    trainer
        .fit(&mut model, &mut sgd, Data::new(&xt, &yt), None)
        .unwrap();
    let state = model.export_state().unwrap();
    let weight = &state
        .iter()
        .find(|a| a.name == "layers.0.weight")
        .unwrap()
        .data;
    let bias = state
        .iter()
        .find(|a| a.name == "layers.0.bias")
        .unwrap()
        .data[0];
    for (got, want) in weight.iter().zip(w) {
        assert!((got - want).abs() < 1e-3, "weight {got} vs {want}");
    }
    assert!((bias - b).abs() < 1e-3, "bias {bias} vs {b}");
}

#[test]
fn logistic_regression_separates_the_classes() {
    let cpu = CpuBackend::new();
    let mut r = rng(3);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    while y.len() < 200 {
        let p = [r.random_range(-1.0f32..1.0), r.random_range(-1.0f32..1.0)];
        let s = p[0] + 2.0 * p[1] - 0.3;
        if s.abs() < 0.1 {
            continue; // keep a margin: the set is separable
        }
        x.extend(p);
        y.push(if s > 0.0 { 1.0 } else { 0.0 });
    }
    let rows = y.len();
    let (xt, yt) = (tensor(&cpu, &x, rows, 2), tensor(&cpu, &y, rows, 1));
    let mut model = Mlp::builder()
        .input(2)
        .output(1, Activation::Identity)
        .build(&cpu, 4)
        .unwrap();
    let mut adam = Adam::new(AdamConfig::new(0.1)).unwrap();
    // Shuffled mini-batches of 32 (the last 8 rows of each epoch's order are dropped).
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        loss: Loss::BceWithLogits,
        length: TrainLength::Epochs(100),
        batch_size: Some(32),
        ..TrainerConfig::default()
    }))
    .unwrap();
    let report = trainer
        .fit(&mut model, &mut adam, Data::new(&xt, &yt), None)
        .unwrap();
    assert_eq!(report.steps, 100 * (200 / 32));
    let logits = model.predict(&xt).unwrap().to_vec().unwrap();
    let correct = logits
        .iter()
        .zip(&y)
        .filter(|(z, t)| (**z > 0.0) == (**t > 0.5))
        .count();
    assert_eq!(correct, rows, "training accuracy {correct}/{rows}");
}

#[test]
fn mlp_fits_sine() {
    let cpu = CpuBackend::new();
    let rows = 256;
    let pi = std::f32::consts::PI;
    let x: Vec<f32> = (0..rows)
        .map(|i| -pi + 2.0 * pi * i as f32 / (rows - 1) as f32)
        .collect();
    let y: Vec<f32> = x.iter().map(|v| v.sin()).collect();
    let (xt, yt) = (tensor(&cpu, &x, rows, 1), tensor(&cpu, &y, rows, 1));
    let mut model = Mlp::builder()
        .input(1)
        .hidden(&[32, 32], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 5)
        .unwrap();
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let steps = 3000;
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        schedule: Some(LrSchedule::cosine(1e-2, 1e-4, steps)),
        length: TrainLength::Steps(steps),
        eval_every: 100,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let report = trainer
        .fit(&mut model, &mut adam, Data::new(&xt, &yt), None)
        .unwrap();
    let mse = Loss::Mse.value(&model.predict(&xt).unwrap(), &yt).unwrap();
    assert!(
        mse < 1e-4,
        "sin fit MSE {mse} (report {:?})",
        report.final_train_loss
    );
    assert_eq!(report.history.len() as u64, steps / 100);
}
