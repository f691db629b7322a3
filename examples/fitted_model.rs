//! Train, save, load and predict: a fitted model carries its standardisation and column
//! names, so raw rows go in and answers in user units come out.
//!
//! Run: `cargo run --release -p examples --example fitted_model`
use io::{FittedModel, ModelInfo, Standardizer};
use nn::prelude::*;
use tensor_cpu::CpuBackend;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cpu = CpuBackend::new();
    // y = 3 a - b / 10 on raw rows (a, b) of very different scales.
    let raw: Vec<f32> = (0..200)
        .flat_map(|i| [i as f32 / 20.0, (i * 37 % 200) as f32 * 10.0])
        .collect();
    let y: Vec<f32> = raw.chunks(2).map(|r| 3.0 * r[0] - r[1] / 10.0).collect();
    let (inputs, targets) = (Standardizer::fit(&raw, 2)?, Standardizer::fit(&y, 1)?);
    let x = Tensor::from_slice(&cpu, &inputs.transform(&raw)?, [200, 2])?;
    let t = Tensor::from_slice(&cpu, &targets.transform(&y)?, [200, 1])?;
    let mut net = Mlp::builder()
        .input(2)
        .hidden(&[16], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 0)?;
    let config = TrainerConfig {
        length: TrainLength::Steps(1000),
        progress: false,
        ..TrainerConfig::default()
    };
    Trainer::new(config)?.fit(
        &mut net,
        &mut Adam::new(AdamConfig::new(0.01))?,
        Data::new(&x, &t),
        None,
    )?;
    let info = ModelInfo::regression(&["a", "b"], &["y"])
        .with_features(inputs)
        .with_targets(targets);
    let path = std::env::temp_dir().join("iron-learn-fitted-example.safetensors");
    FittedModel::new(net, info)?.save(&path)?;
    let model = FittedModel::load(&path, &cpu)?;
    let answers = model.predict(&[2.0, 500.0, 8.0, 1500.0])?; // two raw rows (a, b)
    println!(
        "y(2, 500) = {:.2} (exact -44), y(8, 1500) = {:.2} (exact -126)",
        answers.values[0], answers.values[1]
    );
    Ok(())
}
