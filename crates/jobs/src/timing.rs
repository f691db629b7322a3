//! The time of a training step, measured on a device: what `iron-learn bench train` and
//! `cargo xtask bench` report.

use crate::Result;
use nn::{Adam, AdamConfig, Loss, Model, Optimizer};
use std::time::Instant;
use tensor_core::{Backend, Tensor};

/// Untimed steps before the timed ones (allocations, caches, clocks).
pub const WARM_UP: usize = 3;

/// What [`time_steps`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepTimes {
    /// Median milliseconds of a step.
    pub median: f64,
    /// Fastest step, milliseconds.
    pub min: f64,
    /// The model's parameter count.
    pub params: usize,
    /// "device" when the steps were timed on the device's clock (CUDA events), "host" when
    /// on the host's (the CPU).
    pub clock: &'static str,
    /// Per timed step: kernel launches (and cuBLAS calls), pool allocations, bytes
    /// uploaded and downloaded.
    pub per_step: [f64; 4],
}

/// Times `reps` training steps (forward, MSE loss, backward, Adam) of `model` on the rows
/// `(x, y)`, after [`WARM_UP`] untimed ones, on the device's clock where it has one;
/// `input_grad` also computes the gradient of the inputs (the full backward pass, where the
/// fused training pass may skip it).
pub fn time_steps<B: Backend, M: Model<B>>(
    backend: &B,
    mut model: M,
    adam: AdamConfig,
    (x, y): (&Tensor<B>, &Tensor<B>),
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

#[cfg(test)]
mod tests {
    use super::*;
    use nn::{Activation, Mlp};
    use tensor_cpu::CpuBackend;

    #[test]
    fn steps_are_timed_and_the_model_counted() {
        let cpu = CpuBackend::new();
        let model = || {
            Mlp::builder()
                .input(2)
                .hidden(&[4], Activation::Tanh)
                .output(1, Activation::Identity)
                .build(&cpu, 1)
                .unwrap()
        };
        let x = Tensor::from_slice(&cpu, &[0.0, 1.0, 1.0, 0.0], [2, 2]).unwrap();
        let y = Tensor::from_slice(&cpu, &[1.0, 0.0], [2, 1]).unwrap();
        for input_grad in [false, true] {
            let t = time_steps(
                &cpu,
                model(),
                AdamConfig::new(1e-2),
                (&x, &y),
                5,
                input_grad,
            );
            let t = t.unwrap();
            assert!(t.min <= t.median && t.min >= 0.0, "{t:?}");
            assert_eq!(t.clock, "host");
            assert_eq!(t.params, 2 * 4 + 4 + 4 + 1);
        }
    }
}
