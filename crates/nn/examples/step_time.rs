//! Times one full-batch training step (forward, loss, backward, Adam) of a SIREN on a
//! 200 x 200 coordinate grid (40,000 rows), and shows where the time goes.
//!
//! `cargo run -p iron-learn-nn --release --example step_time [-- STEPS]`.
//!
//! The breakdown times each phase of the step through the public API, with the backend
//! synchronized after each (a no-op on the CPU, a wait for the stream on a GPU).
//! Reference on the same kind of 2-core machine: PyTorch 2.x (CPU) takes 931 ms per step for
//! 3 x 256 and 279 ms for 3 x 128.

use nn::prelude::*;
use std::time::Instant;
use tensor_cpu::CpuBackend;

/// The phases of a training step, in the order they run.
const PHASES: [&str; 4] = [
    "forward",
    "loss and its gradient",
    "backward",
    "Adam update",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn grid(n: usize) -> Vec<f32> {
    let c = |i: usize| -1.0 + 2.0 * i as f32 / (n - 1) as f32;
    (0..n * n).flat_map(|k| [c(k % n), c(k / n)]).collect()
}

/// Lap times of a step: each [`lap`](Self::lap) waits for the backend and returns the ms
/// since the previous one.
struct Laps<'a, B> {
    backend: &'a B,
    last: Instant,
}

impl<'a, B: Backend> Laps<'a, B> {
    fn start(backend: &'a B) -> Self {
        Laps {
            backend,
            last: Instant::now(),
        }
    }

    fn lap(&mut self) -> nn::Result<f64> {
        self.backend.synchronize()?;
        let now = Instant::now();
        let ms = (now - self.last).as_secs_f64() * 1e3;
        self.last = now;
        Ok(ms)
    }
}

/// The median time in ms of each phase of `steps` full-batch steps, after 2 warm-up steps.
fn phase_times<B: Backend>(backend: &B, width: usize, steps: usize) -> nn::Result<[f64; 4]> {
    let n = 200;
    let rows = n * n;
    let coords = grid(n);
    let x = Tensor::from_slice(backend, &coords, [rows, 2])?;
    let target: Vec<f32> = coords
        .chunks(2)
        .map(|p| ((p[0] * 9.0).sin() * (p[1] * 7.0).cos() > 0.3) as u8 as f32)
        .collect();
    let y = Tensor::from_slice(backend, &target, [rows, 1])?;
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[width; 3], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(backend, 0)?;
    let mut adam = Adam::new(AdamConfig::new(1e-4))?;
    let mut grad = Tensor::uninit(backend, [rows, 1])?;
    let mut loss = Tensor::uninit(backend, [1])?;
    let mut times: [Vec<f64>; 4] = Default::default();
    for i in 0..steps + 2 {
        let mut laps = Laps::start(backend);
        let pred = model.forward(&x)?;
        let forward = laps.lap()?;
        Loss::Mse.compute_into(pred, &y, &mut grad, &mut loss)?;
        let loss_time = laps.lap()?;
        model.backward_params(&x, &grad)?;
        let backward = laps.lap()?;
        adam.step(&mut model)?;
        let step = [forward, loss_time, backward, laps.lap()?];
        if i >= 2 {
            for (all, t) in times.iter_mut().zip(step) {
                all.push(t);
            }
        }
    }
    Ok(times.map(median))
}

fn main() -> nn::Result<()> {
    let steps = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let cpu = CpuBackend::new();
    println!(
        "{}; medians of {steps} full-batch steps after 2 warm-up steps",
        cpu.name()
    );
    for (width, pytorch) in [(128, 279.0), (256, 931.0)] {
        let before = cpu.counters().allocations;
        let phases = phase_times(&cpu, width, steps)?;
        let ms: f64 = phases.iter().sum();
        println!(
            "SIREN 2 -> 3x{width} -> 1 on 40,000 rows: {ms:.1} ms per step (the phases added) \
             (PyTorch: {pytorch} ms, ratio {:.2}); {} buffers allocated in total (setup)",
            pytorch / ms,
            cpu.counters().allocations - before
        );
        println!("  where the time goes (median per phase):");
        for (phase, t) in PHASES.iter().zip(phases) {
            println!("    {phase:<24} {t:>8.1} ms  {:>5.1}%", 100.0 * t / ms);
        }
    }
    Ok(())
}
