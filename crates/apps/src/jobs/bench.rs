//! `iron-learn bench train`: the time of one full training step on a device.

use crate::cli::BenchTrainArgs;
use crate::device::Job;
use crate::memory_budget::Estimate;
use anyhow::Result;
use nn::{Activation, Adam, AdamConfig, Init, Layer, Loss, Mlp, Optimizer};
use serde_json::json;
use std::time::Instant;
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, Tensor};

/// Times training steps of SIRENs.
pub struct BenchTrain(pub BenchTrainArgs);

const WARM_UP: usize = 3;

impl Job for BenchTrain {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let n = args.points.max(1);
        for spec in &args.hidden {
            let hidden = crate::hidden::hidden_arg(spec)?;
            let config = Mlp::<B>::builder()
                .input(2)
                .hidden(hidden.widths(), Activation::Sine { w0: 30.0 })
                .output(1, Activation::Identity)
                .config(0)?;
            Estimate::training(&config, n, n, None, 0).check("bench train")?;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let x = Tensor::rand_uniform(backend, [n, 2], -1.0, 1.0, &mut rng)?;
        let y = Tensor::rand_uniform(backend, [n, 1], 0.0, 1.0, &mut rng)?;
        if !args.json {
            println!("device: {}", backend.name());
            println!(
                "{:<10} {:>9} {:>12} {:>12} {:>12}",
                "network", "points", "median ms", "min ms", "parameters"
            );
        }
        for spec in &args.hidden {
            let parsed = crate::hidden::hidden_arg(spec)?;
            let hidden = parsed.widths();
            let mut model = Mlp::builder()
                .input(2)
                .hidden(hidden, Activation::Sine { w0: 30.0 })
                .output(1, Activation::Identity)
                .init(Init::Siren)
                .build(backend, 0)?;
            let mut opt = Adam::<B>::new(AdamConfig::new(1e-4))?;
            let mut grad = Tensor::zeros(backend, [n, 1])?;
            let mut loss = Tensor::zeros(backend, [1])?;
            let mut times = Vec::with_capacity(args.reps);
            for rep in 0..WARM_UP + args.reps.max(1) {
                let started = Instant::now();
                let pred = model.forward(&x)?;
                Loss::Mse.compute_into(pred, &y, &mut grad, &mut loss)?;
                model.backward(&x, &grad)?;
                opt.step(&mut model)?;
                backend.synchronize()?;
                if rep >= WARM_UP {
                    times.push(started.elapsed().as_secs_f64() * 1e3);
                }
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let min = times[0];
            if args.json {
                println!(
                    "{}",
                    json!({"network": spec, "points": n, "device": backend.name(), "median_ms": median, "min_ms": min, "parameters": model.num_params(), "reps": times.len()})
                );
            } else {
                println!(
                    "{spec:<10} {n:>9} {median:>12.2} {min:>12.2} {:>12}",
                    model.num_params()
                );
            }
        }
        Ok(())
    }
}
