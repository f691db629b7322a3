//! Same seed, same bits; and a run resumed from exported state continues bit for bit.

use crate::common::*;
use nn::OptimizerState;
use nn::prelude::*;
use tensor_cpu::CpuBackend;

struct Setup {
    cpu: CpuBackend,
    x: T,
    y: T,
}

fn setup() -> Setup {
    let cpu = CpuBackend::new();
    let n = 16;
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let y = tensor(&cpu, &rings(n), n * n, 1);
    Setup { cpu, x, y }
}

fn model(cpu: &CpuBackend, seed: u64, fourier: bool) -> Mlp<CpuBackend> {
    let b = Mlp::builder().input(2);
    let b = if fourier {
        b.fourier_features(8, 3.0)
    } else {
        b
    };
    b.hidden(&[16, 16], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(cpu, seed)
        .unwrap()
}

fn config(batch_size: Option<usize>, total: u64) -> TrainerConfig {
    quiet(TrainerConfig {
        schedule: Some(LrSchedule::cosine(1e-3, 1e-5, total).with_warmup(3, 1e-4)),
        length: TrainLength::Steps(total),
        batch_size,
        seed: 99,
        clip_grad_norm: Some(10.0),
        log_every: 5,
        callback_every: 1,
        ..TrainerConfig::default()
    })
}

fn train_straight(
    s: &Setup,
    batch: Option<usize>,
    total: u64,
    fourier: bool,
    seed: u64,
) -> Vec<f32> {
    let mut m = model(&s.cpu, seed, fourier);
    let mut opt = Adam::new(AdamConfig::adamw(1e-3, 0.01)).unwrap();
    let mut t = Trainer::new(config(batch, total)).unwrap();
    t.fit(&mut m, &mut opt, Data::new(&s.x, &s.y), None)
        .unwrap();
    flat_params(&m)
}

#[test]
fn same_seed_same_bits() {
    let s = setup();
    for batch in [None, Some(50)] {
        let a = train_straight(&s, batch, 10, false, 3);
        let b = train_straight(&s, batch, 10, false, 3);
        assert_eq!(a, b, "batch {batch:?}");
        let c = train_straight(&s, batch, 10, false, 4);
        assert_ne!(a, c, "a different seed gives a different model");
    }
}

/// Runs `total` steps but stops via the callback after `split` steps, exporting everything a
/// checkpoint holds (through JSON, as metadata would travel); then resumes into fresh
/// objects.
fn train_resumed(
    s: &Setup,
    batch: Option<usize>,
    total: u64,
    split: u64,
    fourier: bool,
) -> Vec<f32> {
    let mut m = model(&s.cpu, 3, fourier);
    let mut opt = Adam::new(AdamConfig::adamw(1e-3, 0.01)).unwrap();
    let mut t = Trainer::new(config(batch, total)).unwrap();
    let mut saved = None;
    let report = t
        .fit_with(
            &mut m,
            &mut opt,
            Data::new(&s.x, &s.y),
            None,
            |e, m, o, st| {
                if let TrainEvent::Step { step, .. } = e
                    && *step == split
                {
                    let trainer_json = serde_json::to_string(st).unwrap();
                    let optim_json = serde_json::to_string(&o.export_state()?).unwrap();
                    let config_json = m.config().to_json()?;
                    saved = Some((m.export_state()?, optim_json, trainer_json, config_json));
                    return Ok(Control::Stop);
                }
                Ok(Control::Continue)
            },
        )
        .unwrap();
    assert_eq!(report.stop_reason, StopReason::Callback);
    assert_eq!(report.steps, split);
    let (params, optim_json, trainer_json, config_json) = saved.unwrap();

    // Fresh objects: a model rebuilt from the saved configuration with another seed (its
    // parameters are overwritten), a fresh optimizer and trainer.
    let cfg = MlpConfig::from_json(&config_json).unwrap();
    let mut m2 = Mlp::from_config(&s.cpu, &cfg, 12345).unwrap();
    m2.import_state(&params).unwrap();
    let mut opt2 = Adam::new(AdamConfig::adamw(1e-3, 0.01)).unwrap();
    let ostate: OptimizerState = serde_json::from_str(&optim_json).unwrap();
    opt2.import_state(&m2, &ostate).unwrap();
    assert_eq!(opt2.steps(), split);
    let mut t2 = Trainer::new(config(batch, total)).unwrap();
    t2.import_state(serde_json::from_str(&trainer_json).unwrap());
    let report = t2
        .fit(&mut m2, &mut opt2, Data::new(&s.x, &s.y), None)
        .unwrap();
    assert_eq!(report.steps, total);
    assert_eq!(report.steps_run, total - split);
    flat_params(&m2)
}

#[test]
fn resume_is_bit_identical_full_batch() {
    let s = setup();
    let straight = train_straight(&s, None, 12, false, 3);
    let resumed = train_resumed(&s, None, 12, 6, false);
    assert_eq!(straight, resumed);
}

#[test]
fn resume_is_bit_identical_with_mini_batches_mid_epoch() {
    let s = setup();
    // 256 rows, batches of 60: 4 steps per epoch; stopping after 6 is mid-epoch.
    let straight = train_straight(&s, Some(60), 14, false, 3);
    let resumed = train_resumed(&s, Some(60), 14, 6, false);
    assert_eq!(straight, resumed);
}

#[test]
fn resume_is_bit_identical_with_fourier_features() {
    let s = setup();
    let straight = train_straight(&s, Some(64), 10, true, 3);
    let resumed = train_resumed(&s, Some(64), 10, 5, true);
    assert_eq!(straight, resumed);
}

#[test]
fn epoch_metrics_survive_a_resume() {
    let s = setup();
    let run = |split: Option<u64>| {
        let mut m = model(&s.cpu, 3, false);
        let mut opt = Adam::new(AdamConfig::new(1e-3)).unwrap();
        let mut t = Trainer::new(config(Some(60), 12)).unwrap();
        if let Some(split) = split {
            t.fit_with(
                &mut m,
                &mut opt,
                Data::new(&s.x, &s.y),
                None,
                |e, _, _, _| {
                    Ok(match e {
                        TrainEvent::Step { step, .. } if *step == split => Control::Stop,
                        _ => Control::Continue,
                    })
                },
            )
            .unwrap();
        }
        t.fit(&mut m, &mut opt, Data::new(&s.x, &s.y), None)
            .unwrap()
            .history
    };
    let straight = run(None);
    let resumed = run(Some(6));
    assert_eq!(straight.len(), 3);
    assert_eq!(straight.len(), 3);
    assert_eq!(straight, resumed);
}
