//! A steady-state training step allocates no tensor buffers.

use crate::common::*;
use nn::prelude::*;
use tensor_cpu::CpuBackend;

fn siren(cpu: &CpuBackend) -> Mlp<CpuBackend> {
    siren_with(cpu, false)
}

fn siren_with(cpu: &CpuBackend, fourier: bool) -> Mlp<CpuBackend> {
    let b = Mlp::builder().input(2);
    let b = if fourier {
        b.fourier_features(16, 4.0)
    } else {
        b
    };
    b.hidden(&[32, 32], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(cpu, 1)
        .unwrap()
}

#[test]
fn manual_steps_allocate_nothing_after_warm_up() {
    let cpu = CpuBackend::new();
    let n = 16;
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let y = tensor(&cpu, &rings(n), n * n, 1);
    let mut model = siren(&cpu);
    let mut adam = Adam::new(AdamConfig::new(1e-3)).unwrap();
    let mut clipper = nn::GradClipper::new(&cpu, 1.0).unwrap();
    let mut grad = Tensor::uninit(&cpu, [n * n, 1]).unwrap();
    let mut loss = Tensor::uninit(&cpu, [1]).unwrap();
    let mut step = |model: &mut Mlp<CpuBackend>, adam: &mut Adam<CpuBackend>| {
        let pred = model.forward(&x).unwrap();
        Loss::Mse
            .compute_into(pred, &y, &mut grad, &mut loss)
            .unwrap();
        model.backward_params(&x, &grad).unwrap();
        clipper.clip(model).unwrap();
        adam.step(model).unwrap();
    };
    step(&mut model, &mut adam); // warm-up: buffers and moments are created
    let before = cpu.counters();
    for _ in 0..5 {
        step(&mut model, &mut adam);
    }
    let after = cpu.counters();
    assert_eq!(
        after.allocations, before.allocations,
        "allocations in 5 steps"
    );
    assert_eq!(
        after.bytes_downloaded, before.bytes_downloaded,
        "read-backs"
    );
    assert_eq!(after.bytes_uploaded, before.bytes_uploaded, "uploads");
}

/// Allocation counts seen by a callback called after every step.
fn allocations_per_step(batch_size: Option<usize>, steps: u64) -> Vec<u64> {
    allocations_per_step_with(batch_size, steps, false)
}

fn allocations_per_step_with(batch_size: Option<usize>, steps: u64, fourier: bool) -> Vec<u64> {
    let cpu = CpuBackend::new();
    let n = 16;
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let y = tensor(&cpu, &rings(n), n * n, 1);
    let mut model = siren_with(&cpu, fourier);
    let mut adam = Adam::new(AdamConfig::new(1e-3)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(steps),
        batch_size,
        callback_every: 1,
        log_every: 1000,
        eval_every: 1000,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let mut seen = Vec::new();
    trainer
        .fit_with(
            &mut model,
            &mut adam,
            Data::new(&x, &y),
            None,
            |e, m, _, _| {
                if let TrainEvent::Step { .. } = e {
                    seen.push(m.backend().counters().allocations);
                }
                Ok(Control::Continue)
            },
        )
        .unwrap();
    seen
}

#[test]
fn full_batch_trainer_steps_allocate_nothing() {
    let seen = allocations_per_step(None, 8);
    assert!(seen[1..].iter().all(|&a| a == seen[1]), "{seen:?}");
}

#[test]
fn mini_batch_trainer_steps_allocate_only_the_epoch_index() {
    // 256 rows in batches of 60: 4 steps per epoch (16 rows dropped each epoch).
    let seen = allocations_per_step(Some(60), 12);
    // Within an epoch: nothing. At each epoch start: one index buffer for the permutation.
    for epoch in 0..3 {
        let e = &seen[epoch * 4..epoch * 4 + 4];
        assert!(e.iter().all(|&a| a == e[0]), "epoch {epoch}: {seen:?}");
    }
    assert_eq!(seen[4] - seen[3], 1, "{seen:?}");
    assert_eq!(seen[8] - seen[7], 1, "{seen:?}");
}

#[test]
fn trainer_steps_with_cached_fourier_features_allocate_nothing() {
    // The encoding has no parameters: the trainer encodes the inputs once, so the steps
    // never call the backend's `fourier_features`.
    let seen = allocations_per_step_with(None, 6, true);
    assert!(seen[1..].iter().all(|&a| a == seen[1]), "{seen:?}");
    let seen = allocations_per_step_with(Some(64), 8, true);
    assert!(seen[1..4].iter().all(|&a| a == seen[1]), "{seen:?}");
}

/// Bytes the trainer reads back over a fit of `steps` full-batch steps (one per epoch)
/// that logs and evaluates only at its end.
fn downloads_of_a_fit(steps: u64) -> u64 {
    let cpu = CpuBackend::new();
    let n = 16;
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let y = tensor(&cpu, &rings(n), n * n, 1);
    let mut model = siren(&cpu);
    let mut adam = Adam::new(AdamConfig::new(1e-3)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(steps),
        log_every: 1_000_000,
        eval_every: 1_000_000,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let before = cpu.counters().bytes_downloaded;
    trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    cpu.counters().bytes_downloaded - before
}

#[test]
fn a_fit_reads_back_two_scalars_whatever_its_length() {
    // The logged loss and the last epoch's loss at the end; an epoch that has just ended
    // has a known zero running sum, which is not read back.
    assert_eq!(downloads_of_a_fit(10), 8);
    assert_eq!(downloads_of_a_fit(40), 8);
}
