//! `iron-learn bench train`: the time of one full training step (forward, loss, backward,
//! Adam) on a device, of SIRENs or of hash-grid models.

use crate::cli::BenchTrainArgs;
use crate::device::Job;
use crate::memory_budget::Estimate;
use anyhow::Result;
use nn::{Activation, AdamConfig, GridScale, HashGridMlp, HashGridMlpConfig, Mlp, Model};
use serde_json::json;
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, Tensor};
use train::timing::{StepTimes, time_steps};

/// Times training steps of SIRENs.
pub struct BenchTrain(pub BenchTrainArgs);

impl Job for BenchTrain {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let n = args.points.max(1);
        for spec in &args.hidden {
            let hidden = crate::hidden::hidden_arg(spec)?;
            let config = Mlp::<B>::builder()
                .input(2)
                .siren(hidden.widths())
                .output(1, Activation::Identity)
                .config(0)?;
            Estimate::training(&config, n, n, None, 0).check("bench train")?;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        // Hash grids take coordinates in [0, 1] and fit colour; SIRENs [-1, 1] and gray.
        let (lo, outputs) = if args.hashgrid.is_some() {
            (0.0, 3)
        } else {
            (-1.0, 1)
        };
        let x = Tensor::rand_uniform(backend, [n, 2], lo, 1.0, &mut rng)?;
        let y = Tensor::rand_uniform(backend, [n, outputs], 0.0, 1.0, &mut rng)?;
        if !args.json {
            print_header(backend)?;
        }
        for spec in &args.hidden {
            let hidden = crate::hidden::hidden_arg(spec)?;
            let t = time_network(backend, args, hidden.widths(), (&x, &y))?;
            let [launches, allocs, up, down] = t.per_step;
            if args.json {
                println!(
                    "{}",
                    json!({"network": spec, "points": n, "device": backend.name(), "median_ms": t.median, "min_ms": t.min, "parameters": t.params, "reps": args.reps.max(1), "hashgrid_log2_table": args.hashgrid, "clock": t.clock, "launches_per_step": launches, "allocations_per_step": allocs, "bytes_up_per_step": up, "bytes_down_per_step": down})
                );
            } else {
                println!(
                    "{spec:<10} {n:>9} {:>12.3} {:>12.3} {:>12} {launches:>9.1} {allocs:>7.1} {up:>6.0} {down:>6.0}",
                    t.median, t.min, t.params
                );
            }
        }
        Ok(())
    }
}

/// The device, the clock and the columns of the table of timings.
fn print_header<B: Backend>(backend: &B) -> Result<()> {
    println!("device: {}", backend.name());
    println!(
        "(per step: milliseconds on the {} clock; kernel launches, pool allocations and bytes moved)",
        if backend.device_time_ms(&mut || Ok(()))?.is_some() {
            "device's (CUDA events)"
        } else {
            "host's"
        }
    );
    println!(
        "{:<10} {:>9} {:>12} {:>12} {:>12} {:>9} {:>7} {:>6} {:>6}",
        "network",
        "points",
        "median ms",
        "min ms",
        "parameters",
        "launches",
        "allocs",
        "up B",
        "down B"
    );
    Ok(())
}

/// Times the training steps of the network of `hidden` layers the options ask for: a
/// hash-grid model (`--hashgrid`) or a SIREN.
fn time_network<B: Backend>(
    backend: &B,
    args: &BenchTrainArgs,
    hidden: &[usize],
    (x, y): (&Tensor<B>, &Tensor<B>),
) -> Result<StepTimes> {
    Ok(match args.hashgrid {
        Some(log2) => {
            let config = HashGridMlpConfig {
                log2_table_size: log2,
                scale: GridScale::Finest(512),
                hidden: hidden.to_vec(),
                input_range: [0.0, 1.0],
                ..HashGridMlpConfig::new(y.dims()[1], 512)
            };
            let model = HashGridMlp::from_config(backend, &config, 0)?;
            let adam = AdamConfig::hash_grid(1e-2);
            time_steps(backend, model, adam, (x, y), args.reps, false)?
        }
        None => {
            let model = Mlp::builder()
                .input(2)
                .siren(hidden)
                .output(1, Activation::Identity)
                .build(backend, 0)?;
            let adam = AdamConfig::new(1e-4);
            time_steps(backend, model, adam, (x, y), args.reps, true)?
        }
    })
}
