//! Area supervision (`TrainerConfig::pool`): targets matched by the mean of groups of
//! prediction rows.

use crate::common::*;
use nn::prelude::*;
use tensor_cpu::CpuBackend;

fn model(cpu: &CpuBackend) -> Mlp<CpuBackend> {
    Mlp::builder()
        .input(2)
        .hidden(&[16, 16], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(cpu, 5)
        .unwrap()
}

fn train(pool: usize, x: &[f32], y: &[f32]) -> Vec<f32> {
    let cpu = CpuBackend::new();
    let mut m = model(&cpu);
    let xt = tensor(&cpu, x, x.len() / 2, 2);
    let yt = tensor(&cpu, y, y.len(), 1);
    let mut adam = Adam::new(AdamConfig::new(0.01)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(30),
        pool,
        ..TrainerConfig::default()
    }))
    .unwrap();
    trainer
        .fit(&mut m, &mut adam, Data::new(&xt, &yt), None)
        .unwrap();
    m.export_state()
        .unwrap()
        .into_iter()
        .flat_map(|a| a.data)
        .collect()
}

#[test]
fn groups_of_identical_rows_train_like_the_rows_themselves() {
    let x: Vec<f32> = (0..20).map(|i| (i as f32 * 0.37).sin()).collect();
    let y: Vec<f32> = (0..10).map(|i| (i as f32 * 0.5).cos()).collect();
    // Each input row repeated 4 times: the group mean equals the row's own prediction and
    // the spread gradient sums back to the row's gradient.
    let repeated: Vec<f32> = x.chunks(2).flat_map(|r| r.repeat(4)).collect();
    let plain = train(1, &x, &y);
    let pooled = train(4, &repeated, &y);
    for (a, b) in plain.iter().zip(&pooled) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }
}

#[test]
fn pooled_loss_is_the_loss_of_group_means() {
    // Two rows per target whose predictions differ: after training, the mean of each pair
    // matches its target although the single rows need not.
    let cpu = CpuBackend::new();
    let mut m = model(&cpu);
    let x: Vec<f32> = vec![
        -0.9, -0.5, -0.7, -0.5, 0.2, 0.4, 0.4, 0.4, 0.8, -0.6, 0.9, -0.4,
    ];
    let y = [0.3f32, -0.2, 0.5];
    let xt = tensor(&cpu, &x, 6, 2);
    let yt = tensor(&cpu, &y, 3, 1);
    let mut adam = Adam::new(AdamConfig::new(0.01)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(800),
        pool: 2,
        ..TrainerConfig::default()
    }))
    .unwrap();
    trainer
        .fit(&mut m, &mut adam, Data::new(&xt, &yt), None)
        .unwrap();
    let p = m.predict(&xt).unwrap().to_vec().unwrap();
    for (g, t) in y.iter().enumerate() {
        let mean = (p[2 * g] + p[2 * g + 1]) / 2.0;
        assert!(
            (mean - t).abs() < 1e-2,
            "group {g}: mean {mean}, target {t}"
        );
    }
}

#[test]
fn pooling_rejects_bad_setups() {
    let cpu = CpuBackend::new();
    let mut m = model(&cpu);
    let x = tensor(&cpu, &[0.0; 10], 5, 2);
    let y = tensor(&cpu, &[0.0; 2], 2, 1);
    let mut adam = Adam::new(AdamConfig::new(0.01)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        pool: 2,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let err = trainer
        .fit(&mut m, &mut adam, Data::new(&x, &y), None)
        .unwrap_err();
    assert!(err.to_string().contains("groups of 2"), "{err}");
    let x = tensor(&cpu, &[0.0; 8], 4, 2);
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        pool: 2,
        batch_size: Some(2),
        ..TrainerConfig::default()
    }))
    .unwrap();
    let err = trainer
        .fit(&mut m, &mut adam, Data::new(&x, &y), None)
        .unwrap_err();
    assert!(err.to_string().contains("full-batch"), "{err}");
}
