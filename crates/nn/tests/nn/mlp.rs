//! The MLP as a model: state import errors, configuration round trips, initialisation
//! bounds and chunked prediction.

use crate::common::*;
use nn::prelude::*;
use nn::{DenseLayer, OptimizerState};
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

/// A network with learned input factors of `factors`, of the encoding `encoding`.
fn scaled(cpu: &CpuBackend, encoding: u8, factors: &[f32]) -> Mlp<CpuBackend> {
    let b = Mlp::builder().input(factors.len()).input_scale(true);
    let b = match encoding {
        0 => b,
        1 => b.positional_encoding(2, true),
        _ => b.fourier_features(5, 1.0),
    };
    let mut model = b
        .hidden(&[8], Activation::Tanh)
        .output(2, Activation::Identity)
        .build(cpu, 21)
        .unwrap();
    set_input_factors(&mut model, factors);
    model
}

#[test]
fn folding_the_input_scale_keeps_the_function() {
    let cpu = CpuBackend::new();
    let factors = [0.25f32, -2.0, 1.5];
    let mut r = rng(22);
    let x = tensor(&cpu, &uniform(&mut r, 30 * 3, -2.0, 2.0), 30, 3);
    for encoding in 0..3 {
        let model = scaled(&cpu, encoding, &factors);
        let folded = model.fold_input_scale().unwrap();
        assert!(!folded.config().input_scale, "encoding {encoding}");
        assert!(folded.input_scale().is_none());
        assert_eq!(folded.num_params() + factors.len(), model.num_params());
        let (want, got) = (model.predict(&x).unwrap(), folded.predict(&x).unwrap());
        let (want, got) = (want.to_vec().unwrap(), got.to_vec().unwrap());
        for (a, b) in want.iter().zip(&got) {
            assert!((a - b).abs() < 1e-4, "encoding {encoding}: {a} vs {b}");
        }
        // The factors changed the function, so the comparison above could fail.
        let unscaled = {
            let mut state = model.export_state().unwrap();
            state.retain(|a| a.name != nn::model::mlp::INPUT_SCALE);
            let mut config = model.config().clone();
            config.input_scale = false;
            let mut m = Mlp::from_config(&cpu, &config, 0).unwrap();
            m.import_state(&state).unwrap();
            m.predict(&x).unwrap().to_vec().unwrap()
        };
        assert!(
            want.iter()
                .zip(&unscaled)
                .any(|(a, b)| (a - b).abs() > 1e-2)
        );
    }
}

#[test]
fn the_input_scale_moves_faster_and_is_not_decayed() {
    let cpu = CpuBackend::new();
    let mut model = scaled(&cpu, 0, &[1.0, 1.0, 1.0]);
    let before = model.export_state().unwrap();
    let x = tensor(&cpu, &[1.0, 2.0, -1.0, 0.5, -0.5, 1.0], 2, 3);
    let y = tensor(&cpu, &[1.0, 0.0, 0.0, 1.0], 2, 2);
    let pred = model.forward(&x).unwrap();
    let out = Loss::Mse.compute(pred, &y).unwrap();
    model.backward_params(&x, &out.grad).unwrap();
    let (lr, decay) = (1e-3, 0.5);
    let mut adam = Adam::new(AdamConfig::adamw(lr, decay)).unwrap();
    adam.step(&mut model).unwrap();
    let after = model.export_state().unwrap();
    let get = |s: &[nn::NamedArray], n: &str| s.iter().find(|a| a.name == n).unwrap().data.clone();
    // Adam's first step moves every parameter by its learning rate (times the sign of its
    // gradient); the factors move SCALE_LR_FACTOR times as far, with no decay.
    let scale = nn::model::mlp::INPUT_SCALE;
    for (a, b) in get(&before, scale).iter().zip(get(&after, scale)) {
        let moved = (a - b).abs();
        assert!(
            (moved - lr * nn::SCALE_LR_FACTOR).abs() < 1e-6,
            "factor moved {moved}"
        );
    }
    for (a, b) in get(&before, "layers.0.weight")
        .iter()
        .zip(get(&after, "layers.0.weight"))
    {
        // Decoupled decay shrinks the weight by lr * decay * w before the step of lr.
        let moved = (a * (1.0 - lr * decay) - b).abs();
        assert!(
            (moved - lr).abs() < 1e-5,
            "weight moved {moved} beside its decay"
        );
    }
}

#[test]
fn a_state_without_the_input_factors_changes_nothing() {
    let cpu = CpuBackend::new();
    let mut model = scaled(&cpu, 1, &[0.5, 2.0, -1.0]);
    let before = model.export_state().unwrap();
    let mut other = scaled(&cpu, 1, &[3.0, 3.0, 3.0]).export_state().unwrap();
    other.retain(|a| a.name != nn::model::mlp::INPUT_SCALE);
    other
        .iter_mut()
        .for_each(|a| a.data.iter_mut().for_each(|v| *v += 1.0));
    let err = model.import_state(&other).unwrap_err().to_string();
    assert!(
        err.contains("input.scale") && err.contains("missing"),
        "{err}"
    );
    let after = model.export_state().unwrap();
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(
            (&a.name, &a.data),
            (&b.name, &b.data),
            "a failed import changes nothing"
        );
    }
}

#[test]
fn a_network_without_some_inputs_ignores_them() {
    let cpu = CpuBackend::new();
    let model = Mlp::builder()
        .input(4)
        .hidden(&[8, 8], Activation::Relu)
        .output(2, Activation::Identity)
        .build(&cpu, 31)
        .unwrap();
    let mut r = rng(32);
    let x = uniform(&mut r, 20 * 4, -2.0, 2.0);
    let mut zeroed = x.clone();
    for row in zeroed.chunks_exact_mut(4) {
        (row[1], row[3]) = (0.0, 0.0);
    }
    let masked = model.without_inputs(&[1, 3]).unwrap();
    let run = |m: &Mlp<CpuBackend>, x: &[f32]| {
        m.predict(&tensor(&cpu, x, 20, 4))
            .unwrap()
            .to_vec()
            .unwrap()
    };
    // On any rows it computes what the network computes with those inputs at zero.
    let (want, got) = (run(&model, &zeroed), run(&masked, &x));
    for (a, b) in want.iter().zip(&got) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
    // Those inputs mattered to the network, so the comparison above could fail.
    let before = run(&model, &x);
    assert!(before.iter().zip(&got).any(|(a, b)| (a - b).abs() > 1e-2));
    // The other inputs still count.
    let mut moved = x.clone();
    moved[0] += 1.0;
    assert_ne!(run(&masked, &moved), got);

    let err = model.without_inputs(&[4]).unwrap_err().to_string();
    assert!(err.contains("input 4") && err.contains("4 inputs"), "{err}");
    let scaled = scaled(&cpu, 0, &[1.0, 2.0, 3.0]);
    let err = scaled.without_inputs(&[0]).unwrap_err().to_string();
    assert!(err.contains("input factors"), "{err}");
    assert!(
        scaled
            .fold_input_scale()
            .unwrap()
            .without_inputs(&[0])
            .is_ok()
    );
}

#[test]
fn dense_layers_read_and_write_the_network() {
    let cpu = CpuBackend::new();
    let model = Mlp::builder()
        .input(3)
        .hidden(&[5], Activation::Tanh)
        .output(2, Activation::Identity)
        .build(&cpu, 41)
        .unwrap();
    let layers = model.dense_layers().unwrap();
    let shapes: Vec<(usize, usize)> = layers.iter().map(|l| (l.inputs, l.outputs)).collect();
    assert_eq!(shapes, [(3, 5), (5, 2)]);
    let state = model.export_state().unwrap();
    assert_eq!(layers[0].weight, state[0].data);
    assert_eq!(layers[1].bias, state[3].data);
    // Written back changed, the network computes with the new values: x W1 + b1 through
    // tanh, then W2 + b2, checked in f64.
    let mut changed = layers.clone();
    changed[1].bias = vec![1.0, -1.0];
    changed[0].row_mut(2).fill(0.5);
    let mut other = Mlp::from_config(&cpu, model.config(), 0).unwrap();
    other.set_dense_layers(&changed).unwrap();
    let x = [0.3f32, -0.7, 1.1];
    let got = other
        .predict(&tensor(&cpu, &x, 1, 3))
        .unwrap()
        .to_vec()
        .unwrap();
    let hidden: Vec<f64> = (0..5)
        .map(|j| {
            let s: f64 = (0..3)
                .map(|i| f64::from(x[i]) * f64::from(changed[0].row(i)[j]))
                .sum();
            (s + f64::from(changed[0].bias[j])).tanh()
        })
        .collect();
    for (k, g) in got.iter().enumerate() {
        let want: f64 = hidden
            .iter()
            .enumerate()
            .map(|(j, h)| h * f64::from(changed[1].row(j)[k]))
            .sum::<f64>()
            + f64::from(changed[1].bias[k]);
        assert!((f64::from(*g) - want).abs() < 1e-5, "{g} vs {want}");
    }
    // Layers that do not fit are refused, naming what is wrong, and change nothing.
    let before = other.export_state().unwrap();
    let e = other
        .set_dense_layers(&changed[..1])
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 dense layers, not 1"), "{e}");
    let mut short = changed.clone();
    short[1].bias.pop();
    let e = other.set_dense_layers(&short).unwrap_err().to_string();
    assert!(
        e.contains("layers.1.weight") && e.contains("1 biases"),
        "{e}"
    );
    let mut wide = changed.clone();
    wide[0] = DenseLayer::zeros(4, 5);
    let e = other.set_dense_layers(&wide).unwrap_err().to_string();
    assert!(e.contains("layers.0.weight"), "{e}");
    assert_eq!(other.export_state().unwrap(), before);
}
