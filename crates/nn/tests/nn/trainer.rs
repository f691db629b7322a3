//! Trainer behaviour: early stopping, the NaN guard, validation, callbacks, errors.

use crate::common::*;
use nn::Error;
use nn::prelude::*;
use tensor_cpu::CpuBackend;

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

/// A run that stopped early, resumed from its state, takes no step: it stays stopped.
#[test]
fn a_resumed_run_that_stopped_early_takes_no_step() {
    let cpu = CpuBackend::new();
    let (x, y) = sine_data(&cpu, 64);
    let config = || {
        quiet(TrainerConfig {
            length: TrainLength::Epochs(1000),
            batch_size: Some(16),
            early_stopping: Some(EarlyStopping::new(3, 1e-6)),
            ..TrainerConfig::default()
        })
    };
    let mut model = small(&cpu, 1);
    let mut sgd = Sgd::new(SgdConfig::new(0.0)).unwrap();
    let mut first = Trainer::new(config()).unwrap();
    let data = || (Data::new(&x, &y), Some(Data::new(&x, &y)));
    let (train, val) = data();
    let stopped = first.fit(&mut model, &mut sgd, train, val).unwrap();
    assert_eq!(stopped.stop_reason, StopReason::EarlyStopping);
    let mut resumed = Trainer::new(config()).unwrap();
    resumed.import_state(first.state().clone());
    let before = model.export_state().unwrap();
    let (train, val) = data();
    let report = resumed.fit(&mut model, &mut sgd, train, val).unwrap();
    assert_eq!(report.stop_reason, StopReason::EarlyStopping);
    assert_eq!(resumed.state().step, stopped.steps);
    assert_eq!(model.export_state().unwrap(), before);
    // Without early stopping, the same state trains on.
    let mut on = Trainer::new(TrainerConfig {
        early_stopping: None,
        ..config()
    })
    .unwrap();
    on.import_state(first.state().clone());
    let (train, val) = data();
    let report = on.fit(&mut model, &mut sgd, train, val).unwrap();
    assert_eq!(report.stop_reason, StopReason::Completed);
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

/// The small model trained on 64 sine rows for `steps`, evaluated every `eval_every` epochs
/// on `val_rows` more: the model, its report and the validation tensors.
fn fit_with_validation(
    cpu: &CpuBackend,
    val_rows: usize,
    steps: u64,
    eval_every: u64,
) -> (Mlp<CpuBackend>, nn::TrainReport, (T, T)) {
    let (x, y) = sine_data(cpu, 64);
    let (vx, vy) = sine_data(cpu, val_rows);
    let mut model = small(cpu, 4);
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(steps),
        eval_every,
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
    (model, report, (vx, vy))
}

#[test]
fn validation_loss_is_reported() {
    let cpu = CpuBackend::new();
    let (model, report, (vx, vy)) = fit_with_validation(&cpu, 17, 300, 100);
    assert_eq!(report.history.len(), 3);
    let val = report.final_val_loss.unwrap();
    let direct = Loss::Mse.value(&model.predict(&vx).unwrap(), &vy).unwrap();
    assert!((val - direct).abs() < 1e-7, "{val} vs {direct}");
    assert!(val < 0.05);
}

/// A validation set of more than `EVAL_ROWS` rows is evaluated in chunks: its loss is the
/// mean over every row all the same (checked in f64 against the model's predictions).
#[test]
fn a_large_validation_set_is_evaluated_in_chunks() {
    let cpu = CpuBackend::new();
    let rows = 2 * nn::EVAL_ROWS + 123;
    let eval_every = TrainerConfig::default().eval_every;
    let (model, report, (vx, vy)) = fit_with_validation(&cpu, rows, 50, eval_every);
    let val = f64::from(report.final_val_loss.unwrap());
    let pred = model.predict(&vx).unwrap().to_vec().unwrap();
    let truth = vy.to_vec().unwrap();
    let reference = pred
        .iter()
        .zip(&truth)
        .map(|(&p, &t)| (f64::from(p) - f64::from(t)).powi(2))
        .sum::<f64>()
        / rows as f64;
    assert!(
        (val - reference).abs() <= 1e-5 * reference,
        "{val} vs {reference}"
    );
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
