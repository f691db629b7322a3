//! An MLP trained on a CSV file with early stopping, stopped part way (as Ctrl-C would stop
//! it), then resumed from its checkpoint to the end:
//! `cargo run --release -p examples --example resume_mlp`.

use jobs::table::{TableOptions, prepare};
use nn::{Activation, EarlyStopping, Loss, StopReason, TrainLength};
use tensor_cpu::CpuBackend;
use train::{Run, Settings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cpu = CpuBackend::new();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/regression.csv");
    let table = prepare(&TableOptions::split(data, 0.2, 0.2), Some(false))?;
    let rows = table.tensors(&cpu)?;
    let config = rows.mlp(&[32, 32], Activation::Relu).config(42)?;
    let dir = std::env::temp_dir().join("iron-learn-resume-mlp");
    std::fs::create_dir_all(&dir)?;
    let settings = Settings::new(3e-3, TrainLength::Epochs(400)).batch(64);
    for (resume, stop_at) in [(false, Some(200)), (true, None)] {
        let settings = settings.resume(resume);
        let out = Run::new("mlp", &dir, config.clone(), Loss::Mse, settings)
            .early_stopping(Some(EarlyStopping::new(20, 0.0)))
            .stop_at_step(stop_at)
            .train_mlp(&cpu, rows.train_data(), rows.val_data())?;
        let part = if resume { "resumed" } else { "stopped" };
        println!("{part}: {}", out.summary());
        assert_eq!(out.report.stop_reason == StopReason::Interrupted, !resume);
    }
    Ok(())
}
