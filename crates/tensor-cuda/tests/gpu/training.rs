//! Whole networks trained on the GPU: the same seeded SIREN trained on the CPU and the GPU
//! ends with the same loss, and a steady-state trainer step moves no data and allocates
//! nothing.

use crate::common::{cpu, gpu};
use nn::prelude::*;
use tensor_core::{Backend, Primitives};

/// A 64x64 grid of coordinates in [-1, 1] and a target with rings and a diagonal stroke.
fn image_data() -> (Vec<f32>, Vec<f32>) {
    let n = 64;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for r in 0..n {
        for c in 0..n {
            let (u, v) = (-1.0 + 2.0 * c as f32 / 63.0, -1.0 + 2.0 * r as f32 / 63.0);
            x.extend([u, v]);
            let ring = ((u * u + v * v).sqrt() * 8.0).sin() > 0.6;
            let stroke = (u - v).abs() < 0.05;
            y.push(if ring || stroke { -0.5 } else { 0.5 });
        }
    }
    (x, y)
}

fn train<B: Backend>(backend: &B, steps: u64) -> (Vec<f32>, f32) {
    let (xs, ys) = image_data();
    let x = Tensor::from_slice(backend, &xs, [ys.len(), 2]).unwrap();
    let y = Tensor::from_slice(backend, &ys, [ys.len(), 1]).unwrap();
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[64, 64, 64], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(backend, 11)
        .unwrap();
    let mut adam = Adam::new(AdamConfig::new(1e-4)).unwrap();
    let mut trainer = Trainer::new(TrainerConfig {
        length: TrainLength::Steps(steps),
        ..TrainerConfig::default()
    })
    .unwrap();
    let report = trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    let loss = Loss::Mse.value(&model.predict(&x).unwrap(), &y).unwrap();
    assert_eq!(report.steps, steps);
    let params = model
        .export_state()
        .unwrap()
        .into_iter()
        .flat_map(|a| a.data)
        .collect();
    (params, loss)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn siren_trained_on_cpu_and_gpu_ends_with_the_same_loss() {
    let (_, cpu_loss) = train(&cpu(), 100);
    let (_, gpu_loss) = train(&gpu(), 100);
    let rel = ((cpu_loss - gpu_loss) / cpu_loss).abs();
    assert!(
        rel < 1e-3,
        "losses after 100 steps differ: cpu {cpu_loss}, gpu {gpu_loss} (relative {rel})"
    );
    let (_, start) = train(&cpu(), 1);
    assert!(
        cpu_loss < 0.5 * start,
        "training did not progress: {start} -> {cpu_loss}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn steady_state_trainer_steps_upload_nothing_and_allocate_nothing() {
    let gpu = gpu();
    let (xs, ys) = image_data();
    let x = Tensor::from_slice(&gpu, &xs, [ys.len(), 2]).unwrap();
    let y = Tensor::from_slice(&gpu, &ys, [ys.len(), 1]).unwrap();
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[64, 64], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(&gpu, 3)
        .unwrap();
    let mut adam = Adam::new(AdamConfig::new(1e-4)).unwrap();
    let config = |steps| TrainerConfig {
        length: TrainLength::Steps(steps),
        log_every: 1000,
        eval_every: 1000,
        ..TrainerConfig::default()
    };
    // Warm-up: buffers, optimizer moments and the pool are set up here.
    let mut trainer = Trainer::new(config(5)).unwrap();
    trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    let state = trainer.export_state();
    let mut trainer = Trainer::new(config(45)).unwrap();
    trainer.import_state(state);
    gpu.synchronize().unwrap();
    let before = gpu.counters();
    trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    gpu.synchronize().unwrap();
    let after = gpu.counters();
    // 40 steps; the trainer uploads its running loss sum once when a fit starts (4 bytes)
    // and at the end reads back the logged loss and the last epoch's loss (8 bytes).
    let uploaded = after.bytes_uploaded - before.bytes_uploaded;
    let downloaded = after.bytes_downloaded - before.bytes_downloaded;
    assert!(uploaded <= 4, "uploaded {uploaded} bytes");
    assert!(downloaded <= 8, "downloaded {downloaded} bytes");
    // A fit three times as long moves and allocates exactly as much: steps move nothing.
    let per_fit = after.allocations - before.allocations;
    let mut trainer2 = Trainer::new(config(165)).unwrap();
    trainer2.import_state(trainer.export_state());
    let before = gpu.counters();
    trainer2
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    gpu.synchronize().unwrap();
    let after = gpu.counters();
    assert_eq!(after.bytes_uploaded - before.bytes_uploaded, uploaded);
    assert_eq!(after.bytes_downloaded - before.bytes_downloaded, downloaded);
    assert_eq!(
        after.allocations - before.allocations,
        per_fit,
        "a fit of 120 steps allocated more than a fit of 40 steps: steps allocate"
    );
}
