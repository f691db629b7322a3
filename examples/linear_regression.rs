//! Linear regression on the bundled `data/regression.csv` (y = 3 x1 - 2 x2 + 0.5 x3 + 4 +
//! noise; x4 is irrelevant): a single linear layer trained with Adam on the raw features,
//! whose weights and bias are the recovered coefficients.
//!
//! Run: `cargo run --release -p examples --example linear_regression [CSV]`

use io::dataset::{LoadOptions, load_dataset};
use nn::prelude::*;
use tensor_cpu::CpuBackend;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../data/regression.csv").to_string()
    });
    // Every row for training; the last column (`y`) is the target.
    let data = load_dataset(&path, &LoadOptions::default())?.train;
    let cpu = CpuBackend::new();
    let x = Tensor::from_slice(&cpu, &data.x, [data.rows, data.n_features])?;
    let y = Tensor::from_slice(&cpu, &data.y, [data.rows, 1])?;
    // No hidden layer: y = x W^T + b.
    let mut model = Mlp::builder()
        .input(data.n_features)
        .output(1, Activation::Identity)
        .build(&cpu, 0)?;
    let mut adam = Adam::new(AdamConfig::new(0.05))?;
    let mut trainer = Trainer::new(TrainerConfig {
        loss: Loss::Mse,
        length: TrainLength::Steps(2000),
        schedule: Some(LrSchedule::cosine(0.05, 0.0005, 2000)),
        ..TrainerConfig::default()
    })?;
    let report = trainer.fit(&mut model, &mut adam, Data::new(&x, &y), None)?;
    println!(
        "{} rows of {}, training MSE {:.4} (the noise variance is 0.01)",
        data.rows,
        path,
        report.final_train_loss.unwrap_or(f32::NAN)
    );
    // The exported state holds the weight matrix [1, features] and the bias [1].
    for p in model.export_state()? {
        let names = if p.name.ends_with("bias") {
            vec!["intercept".to_string()]
        } else {
            data.feature_names.clone()
        };
        for (name, v) in names.iter().zip(&p.data) {
            println!("  {name:<10} {v:>8.4}");
        }
    }
    println!("  (generated with x1 3, x2 -2, x3 0.5, x4 0, intercept 4)");
    Ok(())
}
