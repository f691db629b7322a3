//! Data-parallel training: processes that each compute the gradient of their share of every
//! batch and sum them train the model one process trains on the whole batch, up to the order
//! of summation. The processes here are threads joined by an in-memory sum.

use crate::common::*;
use crate::group::{Group, Member};
use nn::prelude::*;
use nn::{Holding, Replicas, StopReason, TrainReport};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tensor_cpu::CpuBackend;

/// The data: y = sin(3 x0) + x1^2 on 203 rows, 51 more for validation.
fn data(cpu: &CpuBackend) -> (T, T, T, T) {
    let mut r = rng(5);
    let make = |r: &mut _, n: usize| {
        let x = uniform(r, 2 * n, -1.0, 1.0);
        let y: Vec<f32> = x
            .chunks(2)
            .map(|p| (3.0 * p[0]).sin() + p[1] * p[1])
            .collect();
        (tensor(cpu, &x, n, 2), tensor(cpu, &y, n, 1))
    };
    let (x, y) = make(&mut r, 203);
    let (vx, vy) = make(&mut r, 51);
    (x, y, vx, vy)
}

/// Trains the network on `batch` rows a step for 12 epochs, as process `replicas` when
/// given; its parameters and report.
fn train(batch: Option<usize>, replicas: Option<Arc<dyn Replicas>>) -> (Vec<f32>, TrainReport) {
    train_stopping(batch, replicas, false)
}

/// The rows of a set of `rows` a process holds: all, or its part (a range of them).
type Part = Option<std::ops::Range<usize>>;

/// As [`train`], the process's stop flag raised from the start when `stop`.
fn train_stopping(
    batch: Option<usize>,
    replicas: Option<Arc<dyn Replicas>>,
    stop: bool,
) -> (Vec<f32>, TrainReport) {
    train_holding(batch, replicas, stop, (None, None))
}

/// As [`train_stopping`], the process holding only its parts of the training and
/// validation rows where given.
fn train_holding(
    batch: Option<usize>,
    replicas: Option<Arc<dyn Replicas>>,
    stop: bool,
    (train_part, val_part): (Part, Part),
) -> (Vec<f32>, TrainReport) {
    let cpu = CpuBackend::new();
    let (x, y, vx, vy) = data(&cpu);
    let cut = |t: T, part: &Part| match part {
        Some(r) => t.slice_rows(r.start, r.len()).unwrap(),
        None => t,
    };
    let (x, y) = (cut(x, &train_part), cut(y, &train_part));
    let (vx, vy) = (cut(vx, &val_part), cut(vy, &val_part));
    let holding = match train_part {
        Some(_) => Holding::Part,
        None => Holding::Whole,
    };
    let mut model = network(&cpu);
    let mut opt = Adam::new(AdamConfig::adamw(3e-3, 0.01)).unwrap();
    let config = quiet(TrainerConfig {
        length: TrainLength::Epochs(12),
        batch_size: batch,
        seed: 11,
        clip_grad_norm: Some(5.0),
        ..TrainerConfig::default()
    });
    let mut trainer = Trainer::new(config).unwrap();
    if let Some(r) = replicas {
        trainer.set_replicas(r, holding);
    }
    trainer.set_stop_flag(Arc::new(AtomicBool::new(stop)));
    let report = trainer
        .fit(
            &mut model,
            &mut opt,
            Data::new(&x, &y),
            Some(Data::new(&vx, &vy)),
        )
        .unwrap();
    (flat_params(&model), report)
}

/// The same training on `size` threads; each thread's parameters and report.
fn train_on(size: usize, batch: Option<usize>) -> Vec<(Vec<f32>, TrainReport)> {
    train_on_stopping(Group::new(size, false), batch, None)
}

/// As [`train_on`] in `group`, the stop flag of process `stopped` raised from the start.
fn train_on_stopping(
    group: Arc<Group>,
    batch: Option<usize>,
    stopped: Option<usize>,
) -> Vec<(Vec<f32>, TrainReport)> {
    let size = group.size;
    let threads: Vec<_> = (0..size)
        .map(|rank| {
            let member: Arc<dyn Replicas> = Arc::new(Member {
                rank,
                group: group.clone(),
            });
            let stop = stopped == Some(rank);
            std::thread::spawn(move || train_stopping(batch, Some(member), stop))
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

fn assert_same(what: &str, a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    let worst = a
        .iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs() / p.abs().max(1e-2))
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1e-4,
        "{what}: parameters differ by {worst} (relative)"
    );
}

/// A process's run ends where the process alone ends: its parameters, validation loss and
/// steps.
fn assert_same_run(what: &str, alone: &(Vec<f32>, TrainReport), run: &(Vec<f32>, TrainReport)) {
    assert_same(what, &alone.0, &run.0);
    let (v, val) = (
        run.1.final_val_loss.unwrap(),
        alone.1.final_val_loss.unwrap(),
    );
    assert!(
        ((v - val) / val).abs() < 1e-5,
        "{what}: validation loss {v} against {val}"
    );
    assert_eq!(run.1.steps, alone.1.steps, "{what}");
}

#[test]
fn processes_sharing_batches_train_the_one_process_model() {
    // Mini-batches of 32 (two even halves), 17 (9 + 8 rows) and the full batch (203 rows:
    // 102 + 101, or 68 + 68 + 67).
    for (size, batch) in [
        (2, Some(32)),
        (2, Some(17)),
        (3, Some(17)),
        (2, None),
        (3, None),
    ] {
        let alone = train(batch, None);
        for (rank, run) in train_on(size, batch).iter().enumerate() {
            let what = format!("{size} processes, batch {batch:?}, rank {rank}");
            assert_same_run(&what, &alone, run);
        }
        let one = alone.0;
        // Training moved the model: the comparison is not between two untrained copies.
        let untrained = flat_params(&network(&CpuBackend::new()));
        assert!(
            one.iter()
                .zip(&untrained)
                .any(|(a, b)| (a - b).abs() > 1e-3)
        );
    }
}

/// The same training on threads that each hold only their part of the rows: `cuts` are
/// where the training set's parts end (the last part ends at its end), the validation set
/// cut evenly.
fn train_on_parts(cuts: &[usize], batch: Option<usize>) -> Vec<(Vec<f32>, TrainReport)> {
    let size = cuts.len() + 1;
    let group = Group::new(size, false);
    let threads: Vec<_> = (0..size)
        .map(|rank| {
            let member: Arc<dyn Replicas> = Arc::new(Member {
                rank,
                group: group.clone(),
            });
            let start = if rank == 0 { 0 } else { cuts[rank - 1] };
            let end = cuts.get(rank).copied().unwrap_or(203);
            let parts = (Some(start..end), Some(nn::share(51, rank, size)));
            std::thread::spawn(move || train_holding(batch, Some(member), false, parts))
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn processes_holding_their_parts_train_the_one_process_model() {
    // Even parts; a part of 5 rows that most batches of 4 miss (its process then adds
    // nothing); three parts, with full batches.
    for (cuts, batch) in [
        (&[102][..], Some(17)),
        (&[5][..], Some(4)),
        (&[60, 61][..], Some(32)),
        (&[100][..], None),
        (&[70, 150][..], None),
    ] {
        let alone = train(batch, None);
        for (rank, run) in train_on_parts(cuts, batch).iter().enumerate() {
            let what = format!("parts ending at {cuts:?}, batch {batch:?}, rank {rank}");
            assert_same_run(&what, &alone, run);
            let (a, b) = (run.1.history.last(), alone.1.history.last());
            let (a, b) = (a.unwrap().train_loss, b.unwrap().train_loss);
            assert!(
                ((a - b) / b).abs() < 1e-5,
                "{what}: training loss {a} against {b}"
            );
        }
    }
}

/// The network every test trains, as built.
fn network(cpu: &CpuBackend) -> Mlp<CpuBackend> {
    Mlp::builder()
        .input(2)
        .hidden(&[32, 32], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(cpu, 3)
        .unwrap()
}

#[test]
fn a_batch_smaller_than_the_group_is_refused() {
    let group = Group::new(4, false);
    let member: Arc<dyn Replicas> = Arc::new(Member { rank: 0, group });
    let cpu = CpuBackend::new();
    let (x, y, _, _) = data(&cpu);
    let mut model = network(&cpu);
    let mut opt = Adam::new(AdamConfig::adamw(1e-3, 0.0)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        batch_size: Some(3),
        ..TrainerConfig::default()
    }))
    .unwrap();
    trainer.set_replicas(member, Holding::Whole);
    let e = trainer
        .fit(&mut model, &mut opt, Data::new(&x, &y), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("a batch of 3 rows cannot be shared by 4 processes"),
        "{e}"
    );
}

#[test]
fn a_stop_asked_of_one_process_stops_every_process_after_the_same_step() {
    for on_device in [false, true] {
        let runs = train_on_stopping(Group::new(3, on_device), Some(16), Some(2));
        for (rank, (_, report)) in runs.iter().enumerate() {
            let what = format!("rank {rank}, summed on the device: {on_device}");
            assert_eq!(report.stop_reason, StopReason::Interrupted, "{what}");
            assert_eq!(
                report.steps, 1,
                "{what}: every process stops after the first step"
            );
        }
    }
}

#[test]
fn a_group_summing_on_the_device_trains_what_the_host_sum_trains() {
    // The gradients laid end to end in one device buffer, weighted there and summed in
    // place: the same values as summed through the host, to the bit.
    for (size, batch) in [(2, Some(17)), (3, None)] {
        let host = train_on_stopping(Group::new(size, false), batch, None);
        let device = train_on_stopping(Group::new(size, true), batch, None);
        for (rank, (h, d)) in host.iter().zip(&device).enumerate() {
            assert_eq!(h.0, d.0, "{size} processes, batch {batch:?}, rank {rank}");
            assert_eq!(h.1.final_val_loss, d.1.final_val_loss);
        }
        let (one, _) = train(batch, None);
        assert_same("summed on the device", &one, &device[0].0);
    }
}
