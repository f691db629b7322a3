//! An MLP trained on a CSV file with early stopping, stopped part way (as Ctrl-C would stop
//! it), then resumed from its checkpoint to the end:
//! `cargo run --release -p examples --example resume_mlp`.

use io::Standardizer;
use io::dataset::{LoadOptions, load_dataset};
use nn::{Activation, Data, EarlyStopping, Loss, Mlp, StopReason, Tensor, TrainLength};
use std::sync::atomic::{AtomicBool, Ordering};
use std::{error::Error, sync::Arc};
use tensor_cpu::CpuBackend;
use train::{Reading, Reporter, Run, Settings};

/// Raises the stop flag at step 200, as a signal handler would.
struct StopAt200(Arc<AtomicBool>);

impl Reporter for StopAt200 {
    fn progress(&mut self, r: &Reading) {
        self.0.store(r.step >= 200, Ordering::Relaxed);
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let cpu = CpuBackend::new();
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/regression.csv");
    let options = LoadOptions {
        test_fraction: Some(0.2),
        ..LoadOptions::default()
    };
    let split = load_dataset(csv, &options)?;
    let (fit, val) = (split.train, split.test.ok_or("no validation rows")?);
    let (sx, sy) = (
        Standardizer::fit(&fit.x, fit.n_features)?,
        Standardizer::fit(&fit.y, 1)?,
    );
    let upload = |d: &io::Dataset| -> Result<_, Box<dyn Error>> {
        let x = Tensor::from_slice(&cpu, &sx.transform(&d.x)?, [d.rows, d.n_features])?;
        Ok((
            x,
            Tensor::from_slice(&cpu, &sy.transform(&d.y)?, [d.rows, 1])?,
        ))
    };
    let ((x, y), (xv, yv)) = (upload(&fit)?, upload(&val)?);
    let net = Mlp::<CpuBackend>::builder()
        .input(fit.n_features)
        .hidden(&[32, 32], Activation::Relu);
    let config = net.output(1, Activation::Identity).config(42)?;
    let dir = std::env::temp_dir().join("iron-learn-resume-mlp");
    let stop = Arc::new(AtomicBool::new(false));
    for resume in [false, true] {
        let length = TrainLength::Epochs(400);
        let settings = Settings {
            lr: 3e-3,
            length,
            batch: Some(64),
            resume,
            ..Settings::default()
        };
        let run = Run::new("mlp", &dir, config.clone(), Loss::Mse, settings)
            .early_stopping(Some(EarlyStopping::new(20, 0.0)))
            .stop_flag(Arc::clone(&stop));
        let run = if resume {
            run
        } else {
            run.reporter(StopAt200(Arc::clone(&stop)))
        };
        let out = run.train_mlp(&cpu, Data::new(&x, &y), Some(Data::new(&xv, &yv)))?;
        println!(
            "{}: {}",
            if resume { "resumed" } else { "stopped" },
            out.summary()
        );
        assert_eq!(out.report.stop_reason == StopReason::Interrupted, !resume);
        stop.store(false, Ordering::Relaxed);
    }
    Ok(())
}
