//! A model type defined outside the library (the affine map of the model-file tests: an
//! `nn::Layer` and an `nn::Model`, nothing more) trains in a `Run`, and resumes from its
//! checkpoint through the model registry, which `Run` registers it with itself.

#[path = "../../../io/tests/io/affine.rs"]
mod affine;

use affine::{Affine, AffineConfig, affine};
use nn::{Data, Loss, Model, StopReason, TrainLength};
use tensor_core::Tensor;
use tensor_cpu::CpuBackend;
use train::{Run, Settings};

#[test]
fn a_model_type_of_its_own_resumes_to_the_weights_of_a_straight_run() {
    let cpu = CpuBackend::new();
    let xs: Vec<f32> = (0..16).map(|i| i as f32 / 8.0 - 1.0).collect();
    let ys: Vec<f32> = xs.iter().map(|x| 2.0 * x + 1.0).collect();
    let x = Tensor::from_slice(&cpu, &xs, [16, 1]).unwrap();
    let y = Tensor::from_slice(&cpu, &ys, [16, 1]).unwrap();
    let config = AffineConfig {
        inputs: 1,
        outputs: 1,
    };
    let run = |dir: &std::path::Path, resume: bool, stop_at: Option<u64>| {
        let settings = Settings::new(0.05, TrainLength::Steps(300)).resume(resume);
        Run::new("affine", dir, config.clone(), Loss::Mse, settings)
            .stop_at_step(stop_at)
            .train::<CpuBackend, Affine<CpuBackend>>(&cpu, Data::new(&x, &y), None)
            .unwrap()
    };
    let weights = |m: &Affine<CpuBackend>| -> Vec<f32> {
        let state = m.export_state().unwrap();
        state.into_iter().flat_map(|a| a.data).collect()
    };
    let straight_dir = tempfile::tempdir().unwrap();
    let straight = run(straight_dir.path(), false, None);
    assert_eq!(straight.report.stop_reason, StopReason::Completed);
    // It learned y = 2x + 1.
    let fitted = weights(&straight.model);
    let exact = weights(&affine(&cpu, 1, &[2.0], &[1.0]));
    for (a, b) in fitted.iter().zip(&exact) {
        assert!((a - b).abs() < 0.05, "{fitted:?} vs {exact:?}");
    }

    let dir = tempfile::tempdir().unwrap();
    let first = run(dir.path(), false, Some(100));
    assert_eq!(first.report.stop_reason, StopReason::Interrupted);
    let resumed = run(dir.path(), true, None);
    assert_eq!(resumed.first_step, first.report.steps);
    assert!(resumed.first_step >= 100 && resumed.first_step < 300);
    assert_eq!(weights(&resumed.model), fitted);
    assert!(io::fitted::known_kinds::<CpuBackend>().contains(&"test_affine"));
}
