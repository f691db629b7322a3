//! Train, save, load, predict: raw rows in, answers in user units out.
//! Run: `cargo run --release -p examples --example fitted_model`
use io::{FittedModel, ModelInfo, Standardizer as Scaler};
use nn::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cpu = tensor_cpu::CpuBackend::new();
    // y = 3 a - b / 10 on rows of a in [0, 10) and b in [0, 2000).
    let row = |r: usize| [r as f32 / 20.0, (r * 37 % 200) as f32 * 10.0];
    let raw: Vec<f32> = (0..200).flat_map(row).collect();
    let y: Vec<f32> = raw.chunks(2).map(|r| 3.0 * r[0] - r[1] / 10.0).collect();
    let (sx, sy) = (Scaler::fit(&raw, 2)?, Scaler::fit(&y, 1)?);
    let x = Tensor::from_slice(&cpu, &sx.transform(&raw)?, [200, 2])?;
    let t = Tensor::from_slice(&cpu, &sy.transform(&y)?, [200, 1])?;
    let net = Mlp::builder().input(2).hidden(&[16], Activation::Tanh);
    let mut net = net.output(1, Activation::Identity).build(&cpu, 0)?;
    let length = TrainLength::Steps(2000);
    let config = TrainerConfig {
        length,
        ..TrainerConfig::default()
    };
    let mut adam = Adam::new(AdamConfig::new(0.01))?;
    Trainer::new(config)?.fit(&mut net, &mut adam, Data::new(&x, &t), None)?;
    let info = ModelInfo::regression(&["a", "b"], &["y"]);
    let info = info.with_features(sx).with_targets(sy);
    let path = std::env::temp_dir().join("iron-learn-fitted-model.safetensors");
    FittedModel::new(net, info)?.save(&path)?;
    let model = FittedModel::load(&path, &cpu)?;
    let p = model.predict(&[2.0, 500.0, 8.0, 1500.0])?.values; // two raw rows (a, b)
    println!("y(2, 500), y(8, 1500) = {p:.2?} (exact: [-44, -126])");
    Ok(())
}
