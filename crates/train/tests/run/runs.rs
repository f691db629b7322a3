//! A run stopped by its flag and resumed equals a run trained straight; early stopping keeps
//! the best weights; a run whose loss explodes stops naming the step; the record is typed.

use nn::{Activation, Data, EarlyStopping, Loss, Mlp, StopReason, Tensor, TrainLength};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tensor_cpu::CpuBackend;
use train::record::RunRecord;
use train::{Error, Reading, Reporter, Run, Settings};

/// 64 rows of y = sin(3 x0) + x1, inputs on a grid in [-1, 1].
fn data(cpu: &CpuBackend) -> (Tensor<CpuBackend>, Tensor<CpuBackend>) {
    let mut x = Vec::new();
    let mut y = Vec::new();
    for i in 0..64 {
        let (a, b) = ((i % 8) as f32 / 3.5 - 1.0, (i / 8) as f32 / 3.5 - 1.0);
        x.extend([a, b]);
        y.push((3.0 * a).sin() + b);
    }
    let x = Tensor::from_slice(cpu, &x, [64, 2]).unwrap();
    (x, Tensor::from_slice(cpu, &y, [64, 1]).unwrap())
}

fn config() -> nn::MlpConfig {
    Mlp::<CpuBackend>::builder()
        .input(2)
        .hidden(&[16], Activation::Tanh)
        .output(1, Activation::Identity)
        .config(7)
        .unwrap()
}

fn settings(steps: u64, resume: bool) -> Settings {
    Settings {
        lr: 1e-2,
        length: TrainLength::Steps(steps),
        batch: Some(16),
        checkpoint_every: 0,
        resume,
        ..Settings::default()
    }
}

fn weights(model: &Mlp<CpuBackend>) -> Vec<u32> {
    let state = model.export_state().unwrap();
    state
        .iter()
        .flat_map(|a| a.data.iter().map(|v| v.to_bits()))
        .collect()
}

/// Raises a stop flag once the run reaches `at` steps.
struct StopAt(Arc<AtomicBool>, u64);

impl Reporter for StopAt {
    fn progress(&mut self, r: &Reading) {
        if r.step >= self.1 {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn a_stopped_and_resumed_run_equals_a_straight_one() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu);
    let straight_dir = tempfile::tempdir().unwrap();
    let straight = Run::new(
        "fit",
        straight_dir.path(),
        config(),
        Loss::Mse,
        settings(60, false),
    )
    .train_mlp(&cpu, Data::new(&x, &y), None)
    .unwrap();
    assert_eq!(straight.report.steps, 60);

    let dir = tempfile::tempdir().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let first = Run::new("fit", dir.path(), config(), Loss::Mse, settings(60, false))
        .stop_flag(Arc::clone(&stop))
        .reporter(StopAt(Arc::clone(&stop), 20))
        .train_mlp(&cpu, Data::new(&x, &y), None)
        .unwrap();
    assert_eq!(first.report.stop_reason, StopReason::Interrupted);
    assert!(first.report.steps < 60, "stopped at {}", first.report.steps);
    let resumed = Run::new("fit", dir.path(), config(), Loss::Mse, settings(60, true))
        .train_mlp(&cpu, Data::new(&x, &y), None)
        .unwrap();
    assert_eq!(resumed.first_step, first.report.steps);
    assert_eq!(resumed.report.steps, 60);
    assert_eq!(weights(&resumed.model), weights(&straight.model));

    let text = std::fs::read_to_string(dir.path().join("config.json")).unwrap();
    let record: RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(record.job, "fit");
    assert_eq!(record.training.batch, Some(16));
    assert_eq!(record.resumes.len(), 1);
    assert_eq!(record.resumes[0].step, first.report.steps);
}

#[test]
fn resuming_with_another_batch_or_job_is_refused() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu);
    let dir = tempfile::tempdir().unwrap();
    Run::new("fit", dir.path(), config(), Loss::Mse, settings(10, false))
        .train_mlp(&cpu, Data::new(&x, &y), None)
        .unwrap();
    let other_batch = Settings {
        batch: Some(8),
        ..settings(20, true)
    };
    let e = Run::new("fit", dir.path(), config(), Loss::Mse, other_batch)
        .train_mlp(&cpu, Data::new(&x, &y), None)
        .err()
        .unwrap();
    assert!(
        matches!(
            e,
            Error::ResumeRefused {
                advice: train::ResumeAdvice::Batch(Some(16)),
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("batches of 16 rows"), "{e}");
    assert!(
        !e.to_string().contains("--"),
        "the library names no flag: {e}"
    );
    let e = Run::new("other", dir.path(), config(), Loss::Mse, settings(20, true))
        .train_mlp(&cpu, Data::new(&x, &y), None)
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("written by `fit`, not `other`"),
        "{e}"
    );
}

#[test]
fn early_stopping_keeps_the_best_weights_and_needs_validation() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu);
    let (xv, yv) = data(&cpu);
    let dir = tempfile::tempdir().unwrap();
    let no_val = Run::new("fit", dir.path(), config(), Loss::Mse, settings(50, false))
        .early_stopping(Some(EarlyStopping::new(3, 0.0)))
        .train_mlp(&cpu, Data::new(&x, &y), None);
    assert!(matches!(no_val, Err(Error::NeedsValidationRows)));

    // A learning rate high enough to overshoot: the last weights are not the best.
    let settings = Settings {
        lr: 0.3,
        schedule: train::Schedule::Constant,
        ..settings(400, false)
    };
    let out = Run::new("fit", dir.path(), config(), Loss::Mse, settings)
        .early_stopping(Some(EarlyStopping::new(2, 0.0)))
        .train_mlp(&cpu, Data::new(&x, &y), Some(Data::new(&xv, &yv)))
        .unwrap();
    let best = out
        .history
        .iter()
        .filter_map(|r| r.val_loss.map(|v| (r.step, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    let mse = |m: &Mlp<CpuBackend>| {
        let p = m.predict(&xv).unwrap().to_vec().unwrap();
        let t = yv.to_vec().unwrap();
        p.iter()
            .zip(&t)
            .map(|(a, b)| f64::from(a - b).powi(2))
            .sum::<f64>()
            / t.len() as f64
    };
    let (step, loss) = out.restored.expect("the best weights were not the last");
    assert_eq!(step, best.0);
    assert!((loss - best.1).abs() <= 1e-6 * best.1);
    // The model handed back scores the best validation loss of the history.
    assert!(
        (mse(&out.model) - best.1).abs() <= 1e-4 * best.1.max(1e-6),
        "{} vs {best:?}",
        mse(&out.model)
    );
}

#[test]
fn an_exploding_loss_stops_the_run_naming_the_step() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu);
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings {
        lr: 1e4,
        schedule: train::Schedule::Constant,
        ..settings(200, false)
    };
    let e = Run::new("fit", dir.path(), config(), Loss::Mse, settings)
        .train_mlp(&cpu, Data::new(&x, &y), None)
        .err()
        .unwrap();
    let text = e.to_string();
    assert!(
        matches!(
            e,
            Error::Diverged(_) | Error::Nn(nn::Error::NonFiniteLoss { .. })
        ),
        "{text}"
    );
    assert!(text.contains("step"), "{text}");
    // Nothing diverged was saved.
    assert!(!dir.path().join("model.safetensors").exists());
}

#[test]
fn a_run_stopped_at_a_step_resumes_to_the_weights_of_a_straight_one() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu);
    let straight_dir = tempfile::tempdir().unwrap();
    let run = |dir: &std::path::Path, resume: bool, stop_at: Option<u64>| {
        Run::new("fit", dir, config(), Loss::Mse, settings(60, resume))
            .stop_at_step(stop_at)
            .train_mlp(&cpu, Data::new(&x, &y), None)
            .unwrap()
    };
    let straight = run(straight_dir.path(), false, None);
    assert_eq!(straight.report.stop_reason, StopReason::Completed);
    let dir = tempfile::tempdir().unwrap();
    let first = run(dir.path(), false, Some(20));
    assert_eq!(first.report.stop_reason, StopReason::Interrupted);
    assert!(
        (20..60).contains(&first.report.steps),
        "stopped at {}",
        first.report.steps
    );
    let resumed = run(dir.path(), true, None);
    assert_eq!(resumed.first_step, first.report.steps);
    assert_eq!(weights(&resumed.model), weights(&straight.model));
}
