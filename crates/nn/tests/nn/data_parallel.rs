//! Data-parallel training: processes that each compute the gradient of their share of every
//! batch and sum them train the model one process trains on the whole batch, up to the order
//! of summation. The processes here are threads joined by an in-memory sum.

use crate::common::*;
use nn::prelude::*;
use nn::{Replicas, StopReason, TrainReport};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Barrier, Mutex};
use tensor_cpu::CpuBackend;

/// The group the threads of one test form: a sum through shared memory, of host values or,
/// `on_device`, of the trainer's tensors (as NCCL sums GPU buffers).
#[derive(Debug)]
struct Group {
    size: usize,
    total: Mutex<Vec<f64>>,
    barrier: Barrier,
    on_device: bool,
}

impl Group {
    fn new(size: usize, on_device: bool) -> Arc<Group> {
        Arc::new(Group {
            size,
            total: Mutex::new(Vec::new()),
            barrier: Barrier::new(size),
            on_device,
        })
    }
}

/// One thread's membership of a [`Group`].
#[derive(Debug)]
struct Member {
    rank: usize,
    group: Arc<Group>,
}

impl Replicas for Member {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.group.size
    }
    fn sum(&self, values: &mut [f32]) -> Result<(), String> {
        {
            let mut total = self.group.total.lock().unwrap();
            total.resize(values.len(), 0.0);
            for (t, v) in total.iter_mut().zip(values.iter()) {
                *t += f64::from(*v);
            }
        }
        self.group.barrier.wait();
        {
            let total = self.group.total.lock().unwrap();
            for (v, t) in values.iter_mut().zip(total.iter()) {
                *v = *t as f32;
            }
        }
        if self.group.barrier.wait().is_leader() {
            self.group.total.lock().unwrap().clear();
        }
        self.group.barrier.wait();
        Ok(())
    }
    fn sums_on_device(&self) -> bool {
        self.group.on_device
    }
    fn sum_on_device(&self, values: &mut dyn std::any::Any) -> Result<(), String> {
        let t = values.downcast_mut::<T>().ok_or("not a CPU tensor")?;
        let mut host = t.to_vec().map_err(|e| e.to_string())?;
        self.sum(&mut host)?;
        t.upload(&host).map_err(|e| e.to_string())
    }
}

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

/// As [`train`], the process's stop flag raised from the start when `stop`.
fn train_stopping(
    batch: Option<usize>,
    replicas: Option<Arc<dyn Replicas>>,
    stop: bool,
) -> (Vec<f32>, TrainReport) {
    let cpu = CpuBackend::new();
    let (x, y, vx, vy) = data(&cpu);
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
        trainer.set_replicas(r);
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
        let (one, one_report) = train(batch, None);
        let runs = train_on(size, batch);
        let val = one_report.final_val_loss.unwrap();
        for (rank, (params, report)) in runs.iter().enumerate() {
            let what = format!("{size} processes, batch {batch:?}, rank {rank}");
            assert_same(&what, &one, params);
            let v = report.final_val_loss.unwrap();
            assert!(
                ((v - val) / val).abs() < 1e-5,
                "{what}: validation loss {v} against {val}"
            );
            assert_eq!(report.steps, one_report.steps, "{what}");
        }
        // Training moved the model: the comparison is not between two untrained copies.
        let untrained = flat_params(&network(&CpuBackend::new()));
        assert!(
            one.iter()
                .zip(&untrained)
                .any(|(a, b)| (a - b).abs() > 1e-3)
        );
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
    trainer.set_replicas(member);
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
