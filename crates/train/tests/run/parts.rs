//! A run on a part of the rows ([`RunData::Part`]): its summary is the whole set's, so that
//! it resumes on the whole tensors; a process alone that holds only a part is refused.

use nn::{Activation, Data, Loss, Mlp, Tensor, TrainLength};
use serde_json::json;
use tensor_cpu::CpuBackend;
use train::{DataSummary, Error, Run, RunData, Settings, WholeRows};

/// 40 rows of y = x0 - 2 x1 on a grid.
fn rows() -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..80).map(|i| ((i * 7) % 13) as f32 / 6.0 - 1.0).collect();
    let y = x.chunks(2).map(|r| r[0] - 2.0 * r[1]).collect();
    (x, y)
}

/// Rows of two inputs and one target on the CPU.
fn tensors(cpu: &CpuBackend, x: &[f32], y: &[f32]) -> (Tensor<CpuBackend>, Tensor<CpuBackend>) {
    let rows = y.len();
    (
        Tensor::from_slice(cpu, x, [rows, 2]).unwrap(),
        Tensor::from_slice(cpu, y, [rows, 1]).unwrap(),
    )
}

fn config() -> nn::MlpConfig {
    Mlp::<CpuBackend>::builder()
        .input(2)
        .hidden(&[8], Activation::Tanh)
        .output(1, Activation::Identity)
        .config(3)
        .unwrap()
}

fn run(dir: &std::path::Path, steps: u64, resume: bool) -> Run<'static> {
    let settings = Settings {
        length: TrainLength::Steps(steps),
        batch: Some(8),
        checkpoint_every: 0,
        resume,
        ..Settings::default()
    };
    Run::new("fit", dir, config(), Loss::Mse, settings).extra(json!({"target_name": "y"}))
}

#[test]
fn the_summary_of_host_rows_is_the_summary_of_the_same_tensors() {
    let cpu = CpuBackend::new();
    let (x, y) = rows();
    let (xt, yt) = tensors(&cpu, &x, &y);
    let extra = json!({"feature_names": ["a", "b"], "target_name": "y"});
    let of_tensors = RunData::Tensors(Data::new(&xt, &yt)).split(&extra).unwrap();
    let of_rows = DataSummary::of_rows(&x, &y, 40, &extra).unwrap();
    assert_eq!(of_rows, of_tensors.summary);
    assert_eq!(of_rows.fingerprint.shape, [40, 2, 1]);
    assert_eq!(of_rows.fingerprint.names, ["a", "b", "y"]);
    // Another value, another fingerprint.
    let mut changed = y.clone();
    changed[39] += 1.0;
    let other = DataSummary::of_rows(&x, &changed, 40, &extra).unwrap();
    assert_ne!(other.fingerprint, of_rows.fingerprint);
    // Values that are not whole rows are refused.
    assert!(DataSummary::of_rows(&x[1..], &y, 40, &extra).is_err());
    assert!(DataSummary::of_rows(&x, &y, 0, &extra).is_err());
}

#[test]
fn a_run_on_the_whole_as_a_part_trains_as_on_tensors_and_resumes_on_them() {
    let cpu = CpuBackend::new();
    let (x, y) = rows();
    let (xt, yt) = tensors(&cpu, &x, &y);
    let extra = json!({"target_name": "y"});
    let summary = DataSummary::of_rows(&x, &y, 40, &extra).unwrap();
    let whole = WholeRows {
        train: 40,
        validation: 0,
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let as_part = run(a.path(), 20, false)
        .train::<CpuBackend, Mlp<CpuBackend>>(
            &cpu,
            RunData::Part(Data::new(&xt, &yt), summary, whole),
            None,
        )
        .unwrap();
    let as_tensors = run(b.path(), 20, false)
        .train_mlp(&cpu, Data::new(&xt, &yt), None)
        .unwrap();
    assert_eq!(
        as_part.report.final_train_loss,
        as_tensors.report.final_train_loss
    );
    // The checkpoint's fingerprint is the tensors': the run resumes on them.
    let resumed = run(a.path(), 30, true)
        .train_mlp(&cpu, Data::new(&xt, &yt), None)
        .unwrap();
    assert_eq!(resumed.report.steps, 30);
    assert_eq!(resumed.first_step, 20);
}

#[test]
fn a_process_alone_holding_a_part_is_refused_before_its_folder_is_made() {
    let cpu = CpuBackend::new();
    let (x, y) = rows();
    let (xt, yt) = tensors(&cpu, &x[..40], &y[..20]);
    let summary = DataSummary::of_rows(&x, &y, 40, &json!({})).unwrap();
    let whole = WholeRows {
        train: 40,
        validation: 0,
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let err = run(&out, 20, false)
        .train::<CpuBackend, Mlp<CpuBackend>>(
            &cpu,
            RunData::Part(Data::new(&xt, &yt), summary, whole),
            None,
        )
        .err()
        .expect("a part trained alone");
    assert!(matches!(err, Error::Refused(_)), "{err}");
    assert!(
        err.to_string().contains("holds 20 of the 40 training rows"),
        "{err}"
    );
    assert!(!out.exists(), "the run folder was made");
}
