//! The time of a training step, measured on a device: what `iron-learn bench train` and
//! `cargo xtask bench` report.

use crate::Result;
use nn::{Adam, AdamConfig, Loss, Model, Optimizer};
use std::time::Instant;
use tensor_core::{Backend, Tensor};

/// Untimed steps before the timed ones (allocations, caches, clocks).
pub const WARM_UP: usize = 3;

/// The times of a model's training steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepTimes {
    /// Median milliseconds of a step.
    pub median_ms: f64,
    /// Fastest milliseconds of a step.
    pub min_ms: f64,
    /// Trainable parameters of the model.
    pub parameters: usize,
}

/// Times `reps` training steps (forward, MSE loss, backward, Adam) of `model` on the rows
/// `(x, y)`, after [`WARM_UP`] untimed ones; `input_grad` also computes the gradient of the
/// inputs (the full backward pass, where the fused training pass may skip it).
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
    let mut times = Vec::with_capacity(reps);
    for rep in 0..WARM_UP + reps.max(1) {
        let started = Instant::now();
        if input_grad {
            let pred = model.forward(x)?;
            Loss::Mse.compute_into(pred, y, &mut grad, &mut loss)?;
            model.backward(x, &grad)?;
        } else {
            model.train_pass(x, y, Loss::Mse, &mut grad, &mut loss)?;
        }
        opt.step(&mut model)?;
        backend.synchronize()?;
        if rep >= WARM_UP {
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(StepTimes {
        median_ms: times[times.len() / 2],
        min_ms: times[0],
        parameters: model.num_params(),
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
            assert!(t.min_ms <= t.median_ms && t.min_ms >= 0.0, "{t:?}");
            assert_eq!(t.parameters, 2 * 4 + 4 + 4 + 1);
        }
    }
}
