//! A model type other than `Mlp`, defined here ([`encoded_net`]), trains, checkpoints and
//! resumes bit for bit through the trainer, with the cached encoding and area supervision,
//! using nothing but the `Model` trait.

mod encoded_net;

use crate::common::*;
use encoded_net::{EncodedNet, EncodedNetConfig};
use nn::OptimizerState;
use nn::prelude::*;
use std::sync::atomic::Ordering;
use tensor_cpu::CpuBackend;

fn net_config() -> EncodedNetConfig {
    EncodedNetConfig {
        input: 2,
        bands: 3,
        hidden: 24,
        output: 1,
    }
}

fn data(cpu: &CpuBackend, n: usize) -> (T, T) {
    let g = grid(n);
    let y: Vec<f32> = g
        .chunks(2)
        .map(|p| 0.5 * (std::f32::consts::PI * p[0]).sin() * (std::f32::consts::PI * p[1]).cos())
        .collect();
    (tensor(cpu, &g, n * n, 2), tensor(cpu, &y, n * n, 1))
}

fn trainer_config(batch_size: Option<usize>, total: u64) -> TrainerConfig {
    quiet(TrainerConfig {
        schedule: Some(LrSchedule::cosine(1e-2, 1e-4, total).with_warmup(3, 1e-3)),
        length: TrainLength::Steps(total),
        batch_size,
        seed: 21,
        clip_grad_norm: Some(5.0),
        log_every: 5,
        callback_every: 1,
        ..TrainerConfig::default()
    })
}

/// What a checkpoint holds, in the form it travels in: JSON metadata and host arrays.
struct Saved {
    config: String,
    model: Vec<NamedArray>,
    optimizer: String,
    trainer: String,
}

/// Captures a checkpoint of any model.
fn save<M: Model<CpuBackend>>(
    m: &M,
    o: &dyn Optimizer<CpuBackend>,
    st: &TrainerState,
) -> nn::Result<Saved> {
    let json = |e: serde_json::Error| nn::Error::Config(e.to_string());
    Ok(Saved {
        config: serde_json::to_string(m.config()).map_err(json)?,
        model: m.export_state()?,
        optimizer: serde_json::to_string(&o.export_state()?).map_err(json)?,
        trainer: serde_json::to_string(st).map_err(json)?,
    })
}

/// Rebuilds any model from a checkpoint (with an unrelated seed: the state overwrites it),
/// and restores the optimizer and the trainer.
fn restore<M: Model<CpuBackend>>(
    cpu: &CpuBackend,
    saved: &Saved,
    optimizer: &mut dyn Optimizer<CpuBackend>,
    trainer: &mut Trainer,
) -> M {
    let config: M::Config = serde_json::from_str(&saved.config).unwrap();
    let mut model = M::from_config(cpu, &config, 987_654).unwrap();
    model.import_state(&saved.model).unwrap();
    let ostate: OptimizerState = serde_json::from_str(&saved.optimizer).unwrap();
    optimizer.import_state(&model, &ostate).unwrap();
    trainer.import_state(serde_json::from_str(&saved.trainer).unwrap());
    model
}

/// The parameters after `total` steps straight, and after stopping at `split`, saving,
/// restoring into fresh objects and finishing.
fn straight_and_resumed<M: Model<CpuBackend>>(
    config: &M::Config,
    batch: Option<usize>,
    total: u64,
    split: u64,
) -> (Vec<f32>, Vec<f32>) {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu, 12);
    let adam = || Adam::new(AdamConfig::adamw(1e-2, 0.01)).unwrap();
    let mut m = M::from_config(&cpu, config, 5).unwrap();
    let mut t = Trainer::new(trainer_config(batch, total)).unwrap();
    t.fit(&mut m, &mut adam(), Data::new(&x, &y), None).unwrap();
    let straight = flat_params(&m);
    let initial = flat_params(&M::from_config(&cpu, config, 5).unwrap());
    assert_ne!(straight, initial, "training changed the parameters");

    let mut m = M::from_config(&cpu, config, 5).unwrap();
    let mut t = Trainer::new(trainer_config(batch, total)).unwrap();
    let mut saved = None;
    let report = t
        .fit_with(
            &mut m,
            &mut adam(),
            Data::new(&x, &y),
            None,
            |e, m, o, st| {
                if matches!(e, TrainEvent::Step { step, .. } if *step == split) {
                    saved = Some(save(m, o, st)?);
                    return Ok(Control::Stop);
                }
                Ok(Control::Continue)
            },
        )
        .unwrap();
    assert_eq!(
        (report.steps, report.stop_reason),
        (split, StopReason::Callback)
    );

    let mut opt = adam();
    let mut t = Trainer::new(trainer_config(batch, total)).unwrap();
    let mut m: M = restore(&cpu, &saved.unwrap(), &mut opt, &mut t);
    let report = t.fit(&mut m, &mut opt, Data::new(&x, &y), None).unwrap();
    assert_eq!((report.steps, report.steps_run), (total, total - split));
    (straight, flat_params(&m))
}

#[test]
fn a_new_model_resumes_bit_identically_full_batch() {
    let (straight, resumed) = straight_and_resumed::<EncodedNet<_>>(&net_config(), None, 12, 5);
    assert_eq!(straight, resumed);
}

#[test]
fn a_new_model_resumes_bit_identically_mid_epoch() {
    // 144 rows in batches of 40: 3 steps per epoch; stopping after 7 is mid-epoch.
    let (straight, resumed) = straight_and_resumed::<EncodedNet<_>>(&net_config(), Some(40), 14, 7);
    assert_eq!(straight, resumed);
}

#[test]
fn the_hash_grid_model_resumes_bit_identically() {
    let config = nn::HashGridMlpConfig {
        levels: 4,
        log2_table_size: 8,
        base_resolution: 2,
        scale: nn::GridScale::Finest(16),
        hidden: vec![16],
        ..nn::HashGridMlpConfig::new(1, 16)
    };
    let (straight, resumed) = straight_and_resumed::<nn::HashGridMlp<_>>(&config, Some(40), 14, 7);
    assert_eq!(straight, resumed);
}

#[test]
fn the_same_checkpoint_code_serves_the_mlp() {
    let config = Mlp::<CpuBackend>::builder()
        .input(2)
        .fourier_features(6, 1.0)
        .hidden(&[16], Activation::Tanh)
        .output(1, Activation::Identity)
        .config(3)
        .unwrap();
    let (straight, resumed) = straight_and_resumed::<Mlp<_>>(&config, Some(40), 10, 4);
    assert_eq!(straight, resumed);
}

#[test]
fn a_new_model_learns() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu, 16);
    let mut m = EncodedNet::from_config(&cpu, &net_config(), 1).unwrap();
    let before = Loss::Mse.value(&m.predict(&x).unwrap(), &y).unwrap();
    let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
    let mut t = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(300),
        ..TrainerConfig::default()
    }))
    .unwrap();
    let report = t.fit(&mut m, &mut adam, Data::new(&x, &y), None).unwrap();
    let after = Loss::Mse.value(&m.predict(&x).unwrap(), &y).unwrap();
    assert!(after < before / 20.0, "mse {before} -> {after}");
    // The report's last training loss is the loss of the parameters one step earlier.
    let last = report.final_train_loss.unwrap();
    assert!(last < before / 10.0, "reported {last}");
}

#[test]
fn the_input_encoding_is_computed_once_when_cached() {
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu, 12);
    let run = |cache: bool| {
        let mut m = EncodedNet::from_config(&cpu, &net_config(), 2).unwrap();
        let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
        let mut t = Trainer::new(quiet(TrainerConfig {
            length: TrainLength::Steps(9),
            batch_size: Some(48),
            cache_encoding: cache,
            ..TrainerConfig::default()
        }))
        .unwrap();
        t.fit(&mut m, &mut adam, Data::new(&x, &y), None).unwrap();
        (m.full_forwards.load(Ordering::Relaxed), flat_params(&m))
    };
    let (cached_forwards, cached) = run(true);
    let (plain_forwards, plain) = run(false);
    // Cached: the trainer only ever runs the part after the encoding.
    assert_eq!((cached_forwards, plain_forwards), (0, 9));
    for (a, b) in cached.iter().zip(&plain) {
        assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{a} vs {b}");
    }
}

#[test]
fn area_supervision_works_for_a_new_model() {
    // Each input row repeated 3 times under pool 3 trains like the rows themselves.
    let cpu = CpuBackend::new();
    let (x, y) = data(&cpu, 6);
    let xv = x.to_vec().unwrap();
    let repeated: Vec<f32> = xv.chunks(2).flat_map(|r| r.repeat(3)).collect();
    let xr = tensor(&cpu, &repeated, 3 * 36, 2);
    let run = |x: &T, pool: usize| {
        let mut m = EncodedNet::from_config(&cpu, &net_config(), 4).unwrap();
        let mut adam = Adam::new(AdamConfig::new(1e-2)).unwrap();
        let mut t = Trainer::new(quiet(TrainerConfig {
            length: TrainLength::Steps(20),
            pool,
            ..TrainerConfig::default()
        }))
        .unwrap();
        t.fit(&mut m, &mut adam, Data::new(x, &y), None).unwrap();
        flat_params(&m)
    };
    let plain = run(&x, 1);
    let pooled = run(&xr, 3);
    for (a, b) in plain.iter().zip(&pooled) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }
}

#[test]
fn the_default_state_import_names_what_is_wrong() {
    let cpu = CpuBackend::new();
    let m = EncodedNet::from_config(&cpu, &net_config(), 1).unwrap();
    let state = m.export_state().unwrap();
    let names: Vec<&str> = state.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "layers.0.weight",
            "layers.0.bias",
            "layers.2.weight",
            "layers.2.bias"
        ]
    );
    let mut other = EncodedNet::from_config(&cpu, &net_config(), 2).unwrap();
    let before = flat_params(&other);
    let missing: Vec<NamedArray> = state[1..].to_vec();
    let err = other.import_state(&missing).unwrap_err();
    assert!(matches!(err, nn::Error::StateMismatch(_)), "{err}");
    assert!(err.to_string().contains("layers.0.weight"), "{err}");
    let mut wrong = state.clone();
    wrong[3] = NamedArray::new("layers.2.bias", vec![2], vec![0.0; 2]).unwrap();
    let err = other.import_state(&wrong).unwrap_err();
    assert!(
        err.to_string().contains("[2]") && err.to_string().contains("[1]"),
        "{err}"
    );
    assert_eq!(
        flat_params(&other),
        before,
        "a failed import changes nothing"
    );
    other.import_state(&state).unwrap();
    assert_eq!(flat_params(&other), flat_params(&m));
}
