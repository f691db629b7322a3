//! `iron-learn bench train`: the time of one full training step (forward, loss, backward,
//! Adam) on a device, of SIRENs or of hash-grid models.

use crate::cli::BenchTrainArgs;
use crate::device::Job;
use crate::memory_budget::Estimate;
use anyhow::Result;
use nn::{
    Activation, Adam, AdamConfig, GridScale, HashGridMlp, HashGridMlpConfig, Init, Loss, Mlp,
    Model, Optimizer,
};
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
        // Hash grids take coordinates in [0, 1] and fit colour; SIRENs [-1, 1] and gray.
        let (lo, outputs) = if args.hashgrid.is_some() {
            (0.0, 3)
        } else {
            (-1.0, 1)
        };
        let x = Tensor::rand_uniform(backend, [n, 2], lo, 1.0, &mut rng)?;
        let y = Tensor::rand_uniform(backend, [n, outputs], 0.0, 1.0, &mut rng)?;
        if !args.json {
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
        }
        for spec in &args.hidden {
            let parsed = crate::hidden::hidden_arg(spec)?;
            let hidden = parsed.widths();
            let t = match args.hashgrid {
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
                    time_steps(backend, model, adam, &x, &y, args.reps, false)?
                }
                None => {
                    let model = Mlp::builder()
                        .input(2)
                        .hidden(hidden, Activation::Sine { w0: 30.0 })
                        .output(1, Activation::Identity)
                        .init(Init::Siren)
                        .build(backend, 0)?;
                    time_steps(
                        backend,
                        model,
                        AdamConfig::new(1e-4),
                        &x,
                        &y,
                        args.reps,
                        true,
                    )?
                }
            };
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

/// What [`time_steps`] measured.
struct StepTimes {
    /// Median milliseconds of a step.
    median: f64,
    /// Fastest step, milliseconds.
    min: f64,
    /// The model's parameter count.
    params: usize,
    /// "device" when the steps were timed on the device's clock (CUDA events), "host" when
    /// on the host's (the CPU).
    clock: &'static str,
    /// Per timed step: kernel launches (and cuBLAS calls), pool allocations, bytes
    /// uploaded and downloaded.
    per_step: [f64; 4],
}

/// Times `reps` training steps of `model` (after warm-up); `input_grad` also computes the
/// gradient of the inputs (what the SIREN timing always did).
fn time_steps<B: Backend, M: Model<B>>(
    backend: &B,
    mut model: M,
    adam: AdamConfig,
    x: &Tensor<B>,
    y: &Tensor<B>,
    reps: usize,
    input_grad: bool,
) -> Result<StepTimes> {
    let mut opt = Adam::<B>::new(adam)?;
    let mut grad = Tensor::zeros(backend, y.shape().clone())?;
    let mut loss = Tensor::zeros(backend, [1])?;
    let mut step = || -> nn::Result<()> {
        if input_grad {
            let pred = model.forward(x)?;
            Loss::Mse.compute_into(pred, y, &mut grad, &mut loss)?;
            model.backward(x, &grad)?;
        } else {
            model.train_pass(x, y, Loss::Mse, &mut grad, &mut loss)?;
        }
        opt.step(&mut model)
    };
    for _ in 0..WARM_UP {
        step()?;
    }
    backend.synchronize()?;
    let reps = reps.max(1);
    let before = backend.counters();
    let mut times = Vec::with_capacity(reps);
    let mut clock = "host";
    for _ in 0..reps {
        let mut failed = None;
        let started = Instant::now();
        let device_ms = backend.device_time_ms(&mut || {
            if let Err(e) = step() {
                failed = Some(e);
            }
            Ok(())
        })?;
        backend.synchronize()?;
        let host_ms = started.elapsed().as_secs_f64() * 1e3;
        if let Some(e) = failed {
            return Err(e.into());
        }
        clock = if device_ms.is_some() {
            "device"
        } else {
            "host"
        };
        times.push(device_ms.unwrap_or(host_ms));
    }
    let after = backend.counters();
    let per = |a: u64, b: u64| (a - b) as f64 / reps as f64;
    times.sort_by(f64::total_cmp);
    Ok(StepTimes {
        median: times[times.len() / 2],
        min: times[0],
        params: model.num_params(),
        clock,
        per_step: [
            per(after.launches, before.launches),
            per(after.allocations, before.allocations),
            per(after.bytes_uploaded, before.bytes_uploaded),
            per(after.bytes_downloaded, before.bytes_downloaded),
        ],
    })
}
