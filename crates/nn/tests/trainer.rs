//! Trainer behaviour: early stopping, the NaN guard, validation, callbacks, errors.

mod common;
use common::*;
use nn::prelude::*;
use nn::{Error, OptimizerState};
use tensor_cpu::CpuBackend;

fn sine_data(cpu: &CpuBackend, rows: usize) -> (T, T) {
    let x: Vec<f32> = (0..rows)
        .map(|i| -3.0 + 6.0 * i as f32 / (rows - 1) as f32)
        .collect();
    let y: Vec<f32> = x.iter().map(|v| v.sin()).collect();
    (tensor(cpu, &x, rows, 1), tensor(cpu, &y, rows, 1))
}

fn small(cpu: &CpuBackend, seed: u64) -> Mlp<CpuBackend> {
    Mlp::builder()
        .input(1)
        .hidden(&[16], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(cpu, seed)
        .unwrap()
}

#[test]
fn early_stopping_really_stops() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 64);
    let mut model = small(&cpu, 1);
    // A zero learning rate: the loss never improves, so patience 3 stops after 4 epochs.
    let mut sgd = Sgd::new(SgdConfig::new(0.0)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Epochs(1000),
        batch_size: Some(16),
        early_stopping: Some(EarlyStopping::new(3, 1e-6)),
        ..TrainerConfig::default()
    }))
    .unwrap();
    let mut ended = None;
    let report = trainer
        .fit_with(
            &mut model,
            &mut sgd,
            Data::new(&x, &y),
            Some(Data::new(&x, &y)),
            |e, _, _, _| {
                if let TrainEvent::End { reason, .. } = e {
                    ended = Some(*reason);
                }
                Ok(Control::Continue)
            },
        )
        .unwrap();
    assert!(report.stopped_early);
    assert_eq!(report.stop_reason, StopReason::EarlyStopping);
    assert_eq!(ended, Some(StopReason::EarlyStopping));
    assert_eq!(report.epochs, 4);
    assert_eq!(report.steps, 16);
    assert_eq!(report.history.len(), 4);
    assert!(report.history.iter().all(|m| m.val_loss.is_some()));
    assert_eq!(trainer.state().stale_evals, 3);
}

#[test]
fn early_stopping_waits_while_the_loss_improves() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 64);
    let mut model = small(&cpu, 1);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Epochs(30),
        early_stopping: Some(EarlyStopping::new(5, 0.0)),
        ..TrainerConfig::default()
    }))
    .unwrap();
    let report = trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    assert!(!report.stopped_early);
    assert_eq!(report.epochs, 30);
    let first = report.history[0].train_loss;
    let last = report.history.last().unwrap().train_loss;
    assert!(last < first, "{first} -> {last}");
}

#[test]
fn nan_guard_names_the_step() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 32);
    let mut model = Mlp::builder()
        .input(1)
        .hidden(&[16, 16], Activation::Relu)
        .output(1, Activation::Identity)
        .build(&cpu, 2)
        .unwrap();
    let mut sgd = Sgd::new(SgdConfig::new(1e6)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(1000),
        log_every: 1,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let err = trainer
        .fit(&mut model, &mut sgd, Data::new(&x, &y), None)
        .unwrap_err();
    let Error::NonFiniteLoss {
        step,
        last_finite_step,
        ..
    } = err
    else {
        panic!("expected a non-finite loss error, got {err}");
    };
    assert!(step > 1 && step < 1000, "{step}");
    assert_eq!(last_finite_step, step - 1, "checked every step");
    assert_eq!(trainer.state().step, step);
    let msg = err.to_string();
    assert!(msg.contains(&format!("at step {step}")), "{msg}");
}

#[test]
fn nan_guard_reports_the_window_when_checking_less_often() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 32);
    let mut model = small(&cpu, 2);
    let mut sgd = Sgd::new(SgdConfig::new(1e8)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(1000),
        log_every: 50,
        eval_every: 1000,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let err = trainer
        .fit(&mut model, &mut sgd, Data::new(&x, &y), None)
        .unwrap_err();
    match err {
        Error::NonFiniteLoss {
            step,
            last_finite_step,
            ..
        } => {
            assert_eq!(step % 50, 0);
            assert_eq!(last_finite_step, step - 50);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn callbacks_see_steps_epochs_and_the_end() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 40);
    let mut model = small(&cpu, 3);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Epochs(3),
        batch_size: Some(10),
        callback_every: 5,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let mut events = Vec::new();
    trainer
        .fit_with(
            &mut model,
            &mut adam,
            Data::new(&x, &y),
            None,
            |e, _, o, st| {
                match e {
                    TrainEvent::Step { step, loss, .. } => {
                        assert!(loss.is_finite());
                        assert_eq!(st.step, *step);
                        assert_eq!(o.steps(), *step);
                        events.push(format!("step {step}"));
                    }
                    TrainEvent::Epoch(m) => events.push(format!("epoch {}", m.epoch)),
                    TrainEvent::End { step, reason } => {
                        events.push(format!("end {step} {reason:?}"))
                    }
                }
                Ok(Control::Continue)
            },
        )
        .unwrap();
    assert_eq!(
        events,
        [
            "epoch 1",
            "step 5",
            "epoch 2",
            "step 10",
            "epoch 3",
            "end 12 Completed"
        ]
    );
}

#[test]
fn callback_errors_propagate() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 8);
    let mut model = small(&cpu, 3);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(10),
        callback_every: 2,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let err = trainer
        .fit_with(
            &mut model,
            &mut adam,
            Data::new(&x, &y),
            None,
            |_, _, _, _| Err(Error::Callback("disk full".into())),
        )
        .unwrap_err();
    assert!(err.to_string().contains("disk full"));
}

#[test]
fn validation_loss_is_reported() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 64);
    let (vx, vy) = sine_data(&cpu, 17);
    let mut model = small(&cpu, 4);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(300),
        eval_every: 100,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let report = trainer
        .fit(
            &mut model,
            &mut adam,
            Data::new(&x, &y),
            Some(Data::new(&vx, &vy)),
        )
        .unwrap();
    assert_eq!(report.history.len(), 3);
    let val = report.final_val_loss.unwrap();
    let direct = Loss::Mse.value(&model.predict(&vx).unwrap(), &vy).unwrap();
    assert!((val - direct).abs() < 1e-7, "{val} vs {direct}");
    assert!(val < 0.05);
}

#[test]
fn bad_data_is_an_error_not_a_panic() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 8);
    let wrong_y = tensor(&cpu, &[0.0; 7], 7, 1);
    let wide_x = tensor(&cpu, &[0.0; 16], 8, 2);
    let mut model = small(&cpu, 5);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig::default())).unwrap();
    assert!(matches!(
        trainer.fit(&mut model, &mut adam, Data::new(&x, &wrong_y), None),
        Err(Error::Config(_))
    ));
    assert!(
        trainer
            .fit(&mut model, &mut adam, Data::new(&wide_x, &y), None)
            .is_err()
    );
    assert!(model.predict(&wide_x).is_err());
    assert!(model.forward(&wide_x).is_err());
    assert!(
        Trainer::new(TrainerConfig {
            log_every: 0,
            ..TrainerConfig::default()
        })
        .is_err()
    );
    assert!(Adam::<CpuBackend>::new(AdamConfig::new(f32::NAN)).is_err());
    assert!(
        Sgd::<CpuBackend>::new(SgdConfig {
            nesterov: true,
            ..SgdConfig::new(0.1)
        })
        .is_err()
    );
    let bad = Mlp::builder()
        .input(2)
        .hidden(&[0], Activation::Relu)
        .output(1, Activation::Identity)
        .build(&cpu, 0);
    assert!(matches!(bad, Err(Error::Config(_))));
    let no_output = Mlp::<CpuBackend>::builder().input(2).build(&cpu, 0);
    assert!(no_output.is_err());
    let zero_w0 = Mlp::builder()
        .input(2)
        .hidden(&[4], Activation::Sine { w0: 0.0 })
        .output(1, Activation::Identity)
        .build(&cpu, 0);
    assert!(zero_w0.is_err());
}

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

#[test]
fn a_raised_stop_flag_interrupts_cleanly() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 16);
    let mut model = small(&cpu, 3);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(100),
        callback_every: 7,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    trainer.set_stop_flag(flag.clone());
    let report = trainer
        .fit_with(
            &mut model,
            &mut adam,
            Data::new(&x, &y),
            None,
            |e, _, _, _| {
                if let TrainEvent::Step { step: 14, .. } = e {
                    flag.store(true, Ordering::Relaxed); // as a Ctrl-C handler would
                }
                Ok(Control::Continue)
            },
        )
        .unwrap();
    assert_eq!(report.stop_reason, StopReason::Interrupted);
    assert_eq!(report.steps, 14);
    assert!(!report.stopped_early);
}
