//! An MLP trained on a CSV file with early stopping, stopped part way (as Ctrl-C would stop
//! it), then resumed from its checkpoint to the end:
//! `cargo run --release -p examples --example resume_mlp`.

use nn::{Activation, EarlyStopping, Loss, Mlp, StopReason, TrainLength};
use tensor_cpu::CpuBackend;
use train::table::{TableOptions, prepare};
use train::{Run, Settings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cpu = CpuBackend::new();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/regression.csv").into();
    let (test_fraction, val_fraction) = (0.2, 0.2);
    let options = TableOptions {
        data,
        test_fraction,
        val_fraction,
        ..Default::default()
    };
    let table = prepare(&options, Some(false))?;
    let rows = table.tensors(&cpu)?;
    let config = Mlp::<CpuBackend>::builder()
        .input(table.train.n_features)
        .hidden(&[32, 32], Activation::Relu)
        .output(1, Activation::Identity)
        .config(42)?;
    let dir = std::env::temp_dir().join("iron-learn-resume-mlp");
    std::fs::create_dir_all(&dir)?;
    for (resume, stop_at) in [(false, Some(200)), (true, None)] {
        let length = TrainLength::Epochs(400);
        let settings = Settings {
            lr: 3e-3,
            length,
            batch: Some(64),
            resume,
            ..Default::default()
        };
        let out = Run::new("mlp", &dir, config.clone(), Loss::Mse, settings)
            .early_stopping(Some(EarlyStopping::new(20, 0.0)))
            .stop_at_step(stop_at)
            .train_mlp(&cpu, rows.train_data(), rows.val_data())?;
        println!(
            "{}: {}",
            if resume { "resumed" } else { "stopped" },
            out.summary()
        );
        assert_eq!(out.report.stop_reason == StopReason::Interrupted, !resume);
    }
    Ok(())
}
