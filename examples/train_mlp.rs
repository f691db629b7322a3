//! Trains a small MLP on sin(x) from Rust code: data on the CPU backend, `Mlp::builder()`,
//! Adam and the `Trainer`, then prints the final loss and a few predictions.
//!
//! Run: `cargo run --release -p examples --example train_mlp`

use nn::prelude::*;
use tensor_cpu::CpuBackend;

fn main() -> Result<(), nn::Error> {
    let cpu = CpuBackend::new();
    // 256 points of y = sin(x) on [-3, 3], as [rows, 1] matrices.
    let xs: Vec<f32> = (0..256).map(|i| -3.0 + 6.0 * i as f32 / 255.0).collect();
    let ys: Vec<f32> = xs.iter().map(|x| x.sin()).collect();
    let x = Tensor::from_slice(&cpu, &xs, [256, 1])?;
    let y = Tensor::from_slice(&cpu, &ys, [256, 1])?;
    let mut model = Mlp::builder()
        .input(1)
        .hidden(&[32, 32], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 42)?;
    let mut adam = Adam::new(AdamConfig::new(0.01))?;
    let mut trainer = Trainer::new(TrainerConfig {
        loss: Loss::Mse,
        length: TrainLength::Steps(2000),
        schedule: Some(LrSchedule::cosine(0.01, 1e-4, 2000)),
        ..TrainerConfig::default()
    })?;
    let report = trainer.fit(&mut model, &mut adam, Data::new(&x, &y), None)?;
    println!(
        "{} steps in {:.2} s, final MSE {:.2e}",
        report.steps,
        report.seconds,
        report.final_train_loss.unwrap_or(f32::NAN)
    );
    let probe = Tensor::from_slice(&cpu, &[-2.0, 0.5, 2.5], [3, 1])?;
    for (x, p) in [-2.0f32, 0.5, 2.5]
        .iter()
        .zip(model.predict(&probe)?.to_vec()?)
    {
        println!("  sin({x:>4}) = {:>7.4}, network {p:>7.4}", x.sin());
    }
    Ok(())
}
