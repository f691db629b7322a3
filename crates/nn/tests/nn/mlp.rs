//! The MLP as a model: state import errors, configuration round trips, initialisation
//! bounds and chunked prediction.

use crate::common::*;
use nn::OptimizerState;
use nn::prelude::*;
use tensor_cpu::CpuBackend;

#[test]
fn state_import_names_what_is_wrong() {
    let cpu = CpuBackend::new();
    let a = small(&cpu, 6);
    let mut b = Mlp::builder()
        .input(1)
        .hidden(&[8], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 6)
        .unwrap();
    let err = b
        .import_state(&a.export_state().unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("layers.0.weight"), "{err}");
    assert!(err.contains("[1, 16]") && err.contains("[1, 8]"), "{err}");
    let mut partial = a.export_state().unwrap();
    partial.retain(|t| t.name != "layers.1.bias");
    let mut c = small(&cpu, 7);
    let before = flat_params(&c);
    let err = c.import_state(&partial).unwrap_err().to_string();
    assert!(
        err.contains("layers.1.bias") && err.contains("missing"),
        "{err}"
    );
    assert_eq!(flat_params(&c), before, "a failed import changes nothing");
    // A correct import copies every parameter.
    c.import_state(&a.export_state().unwrap()).unwrap();
    assert_eq!(flat_params(&c), flat_params(&a));

    // Optimizer state: kind and shapes are checked.
    let mut sgd = Sgd::<CpuBackend>::new(SgdConfig::momentum(0.1, 0.9)).unwrap();
    let wrong_kind = OptimizerState {
        kind: "adam".into(),
        step: 3,
        tensors: vec![],
    };
    assert!(sgd.import_state(&a, &wrong_kind).is_err());
    let mut adam = Adam::<CpuBackend>::new(AdamConfig::new(1e-3)).unwrap();
    let (x, y) = sine_data(&cpu, 8);
    let mut a = a;
    let mut t = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(2),
        ..TrainerConfig::default()
    }))
    .unwrap();
    t.fit(&mut a, &mut adam, Data::new(&x, &y), None).unwrap();
    let saved = adam.export_state().unwrap();
    assert_eq!(saved.step, 2);
    assert_eq!(saved.tensors.len(), 8);
    assert!(
        saved
            .tensors
            .iter()
            .any(|t| t.name == "optimizer.m.layers.0.weight")
    );
    let mut adam2 = Adam::<CpuBackend>::new(AdamConfig::new(1e-3)).unwrap();
    let err = adam2.import_state(&b, &saved).unwrap_err().to_string();
    assert!(err.contains("optimizer.m.layers.0.weight"), "{err}");
}

#[test]
fn config_round_trips_and_rebuilds_the_same_model() {
    let cpu = CpuBackend::new();
    let model = Mlp::builder()
        .input(2)
        .fourier_features(16, 10.0)
        .hidden(&[32, 32], Activation::Sine { w0: 30.0 })
        .output(3, Activation::Sigmoid)
        .init(Init::Siren)
        .build(&cpu, 77)
        .unwrap();
    let json = model.config().to_json().unwrap();
    let cfg = MlpConfig::from_json(&json).unwrap();
    assert_eq!(&cfg, model.config());
    let rebuilt = Mlp::from_config(&cpu, &cfg, 77).unwrap();
    assert_eq!(
        rebuilt.export_state().unwrap(),
        model.export_state().unwrap()
    );
    assert!(MlpConfig::from_json(r#"{"input": 2}"#).is_err());
    assert!(
        MlpConfig::from_json(
            r#"{"input":2,"hidden":[4],"hidden_activation":{"kind":"sine","w0":30.0},
                "output":1,"output_activation":{"kind":"identity"},
                "encoding":{"kind":"fourier","features":0,"sigma":1.0,"seed":1}}"#
        )
        .is_err()
    );
    let t = TrainerConfig {
        schedule: Some(LrSchedule::cosine(1e-3, 0.0, 10)),
        early_stopping: Some(EarlyStopping::new(3, 0.0)),
        ..TrainerConfig::default()
    };
    let back: TrainerConfig = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert_eq!(back, t);
}

#[test]
fn initialisations_have_the_documented_bounds() {
    let cpu = CpuBackend::new();
    let siren = Mlp::builder()
        .input(2)
        .hidden(&[256, 256], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(&cpu, 8)
        .unwrap();
    let max_abs = |name: &str| {
        params(&siren)
            .into_iter()
            .find(|p| p.0 == name)
            .unwrap()
            .1
            .iter()
            .fold(0.0f32, |m, v| m.max(v.abs()))
    };
    let first = max_abs("layers.0.weight");
    assert!(
        first <= 0.5 && first > 0.45,
        "first layer U(-1/2, 1/2): {first}"
    );
    let hidden_bound = (6.0f32 / 256.0).sqrt() / 30.0;
    let hidden = max_abs("layers.1.weight");
    assert!(
        hidden <= hidden_bound && hidden > 0.9 * hidden_bound,
        "{hidden}"
    );
    let bias = max_abs("layers.1.bias");
    assert!(bias <= 1.0 / 16.0 && bias > 0.9 / 16.0, "{bias}");
    let out = max_abs("layers.2.weight");
    assert!(out <= hidden_bound, "{out}");

    let relu = Mlp::builder()
        .input(100)
        .hidden(&[400], Activation::Relu)
        .output(1, Activation::Identity)
        .init(Init::HeNormal)
        .build(&cpu, 9)
        .unwrap();
    let w = &params(&relu)[0].1;
    let var = w.iter().map(|v| (*v as f64).powi(2)).sum::<f64>() / w.len() as f64;
    assert!(
        (var - 2.0 / 100.0).abs() < 0.002,
        "He normal variance {var}"
    );
    assert!(
        params(&relu)[1].1.iter().all(|&b| b == 0.0),
        "He biases are zero"
    );
}

#[test]
fn predict_in_chunks_matches_the_training_forward() {
    let cpu = CpuBackend::new();
    let n = 20;
    let x = tensor(&cpu, &grid(n), n * n, 2);
    for fourier in [false, true] {
        let b = Mlp::builder().input(2);
        let b = if fourier {
            b.fourier_features(8, 2.0)
        } else {
            b
        };
        let mut model = b
            .hidden(&[16, 16], Activation::Sine { w0: 30.0 })
            .output(2, Activation::Identity)
            .build(&cpu, 10)
            .unwrap();
        let trained = model.forward(&x).unwrap().to_vec().unwrap();
        for chunk in [1, 7, 64, 400, 10_000] {
            let p = model.predict_chunked(&x, chunk).unwrap().to_vec().unwrap();
            assert_eq!(p.len(), trained.len());
            for (a, b) in p.iter().zip(&trained) {
                assert!((a - b).abs() < 1e-5, "chunk {chunk}: {a} vs {b}");
            }
        }
        // Prediction leaves the training buffers alone.
        assert_eq!(model.output().unwrap().to_vec().unwrap(), trained);
    }
}
