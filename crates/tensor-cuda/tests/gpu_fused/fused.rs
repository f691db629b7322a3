//! Each fused operation against the default composition in tensor-core.

use crate::common::*;
use tensor_core::{Activation, AdamStep, Backend, LossKind, SgdStep};

const ACTIVATIONS: [Activation; 6] = [
    Activation::Identity,
    Activation::Sigmoid,
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu { alpha: 0.1 },
    Activation::Sine { w0: 30.0 },
];

const MATRICES: [(usize, usize); 5] = [(1, 1), (7, 33), (1000, 3), (33, 1000), (4099, 257)];

/// The absolute tolerance of an activation's values (its derivative for sine scales by w0).
fn act_atol(act: Activation, derivative: bool) -> f64 {
    match act {
        Activation::Sine { w0 } if derivative => 5e-6 * f64::from(w0),
        // 1 - tanh^2 and s (1 - s) cancel near saturation.
        _ if derivative => 5e-6,
        _ => 2e-6,
    }
}

fn inputs(act: Activation) -> (f32, f32) {
    match act {
        Activation::Sine { .. } => (-1.0, 1.0),
        _ => (-6.0, 6.0),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn bias_act_matches_the_composition() {
    let (g, r) = (gpu(), Composed::default());
    let mut rng = rng("bias_act");
    for (rows, cols) in MATRICES {
        for act in ACTIVATIONS {
            let (lo, hi) = inputs(act);
            let z = uniform(&mut rng, rows * cols, lo, hi);
            let bias = uniform(&mut rng, cols, lo / 4.0, hi / 4.0);
            let (mut gz, gb) = (g.upload(&z).unwrap(), g.upload(&bias).unwrap());
            let mut gout = g.alloc(rows * cols).unwrap();
            g.bias_act(&mut gz, &gb, rows, cols, act, &mut gout)
                .unwrap();
            let (mut rz, rb) = (r.upload(&z).unwrap(), r.upload(&bias).unwrap());
            let mut rout = r.alloc(rows * cols).unwrap();
            r.bias_act(&mut rz, &rb, rows, cols, act, &mut rout)
                .unwrap();
            let what = format!("bias_act {act:?} {rows}x{cols}");
            assert_close(
                &format!("{what}: z"),
                &g.download(&gz).unwrap(),
                &r.download(&rz).unwrap(),
                0.0,
                0.0,
            );
            assert_close(
                &what,
                &g.download(&gout).unwrap(),
                &r.download(&rout).unwrap(),
                4e-6,
                act_atol(act, false),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn act_backward_matches_the_composition() {
    let (g, r) = (gpu(), Composed::default());
    let mut rng = rng("act_backward");
    for n in SIZES {
        for act in ACTIVATIONS {
            let (lo, hi) = inputs(act);
            let z = uniform(&mut rng, n, lo, hi);
            let up = uniform(&mut rng, n, -1.0, 1.0);
            let (gz, gu) = (g.upload(&z).unwrap(), g.upload(&up).unwrap());
            let mut gd = g.alloc(n).unwrap();
            g.act_backward(&gu, &gz, act, &mut gd).unwrap();
            let (rz, ru) = (r.upload(&z).unwrap(), r.upload(&up).unwrap());
            let mut rd = r.alloc(n).unwrap();
            r.act_backward(&ru, &rz, act, &mut rd).unwrap();
            assert_close(
                &format!("act_backward {act:?} n = {n}"),
                &g.download(&gd).unwrap(),
                &r.download(&rd).unwrap(),
                4e-6,
                act_atol(act, true),
            );
        }
    }
}

/// Targets suited to a loss: any values (MSE), probabilities (BCE), one-hot rows (CE).
fn targets(
    rng: &mut rand_chacha::ChaCha8Rng,
    kind: LossKind,
    rows: usize,
    cols: usize,
) -> Vec<f32> {
    match kind {
        LossKind::Mse => uniform(rng, rows * cols, -2.0, 2.0),
        LossKind::BceWithLogits => uniform(rng, rows * cols, 0.0, 1.0),
        LossKind::SoftmaxCrossEntropy => {
            let mut t = vec![0.0; rows * cols];
            for r in 0..rows {
                t[r * cols + rand::Rng::random_range(rng, 0..cols)] = 1.0;
            }
            t
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn loss_grad_matches_the_composition() {
    let (g, r) = (gpu(), Composed::default());
    let mut rng = rng("loss_grad");
    for kind in [
        LossKind::Mse,
        LossKind::BceWithLogits,
        LossKind::SoftmaxCrossEntropy,
    ] {
        for (rows, cols) in [
            (1, 1),
            (7, 3),
            (1000, 10),
            (33, 1000),
            (4099, 1),
            (100_000, 4),
        ] {
            let n = rows * cols;
            let pred = uniform(&mut rng, n, -4.0, 4.0);
            let target = targets(&mut rng, kind, rows, cols);
            let (gp, gt) = (g.upload(&pred).unwrap(), g.upload(&target).unwrap());
            let (mut ggrad, mut gloss) = (g.alloc(n).unwrap(), g.alloc(1).unwrap());
            g.loss_grad(kind, &gp, &gt, rows, cols, &mut ggrad, &mut gloss)
                .unwrap();
            let (rp, rt) = (r.upload(&pred).unwrap(), r.upload(&target).unwrap());
            let (mut rgrad, mut rloss) = (r.alloc(n).unwrap(), r.alloc(1).unwrap());
            r.loss_grad(kind, &rp, &rt, rows, cols, &mut rgrad, &mut rloss)
                .unwrap();
            let what = format!("{kind:?} {rows}x{cols}");
            let want_grad = r.download(&rgrad).unwrap();
            let scale = want_grad
                .iter()
                .fold(0.0f64, |m, v| m.max(f64::from(v.abs())));
            assert_close(
                &format!("{what}: grad"),
                &g.download(&ggrad).unwrap(),
                &want_grad,
                4e-6,
                4e-6 * scale,
            );
            assert_close(
                &format!("{what}: loss"),
                &g.download(&gloss).unwrap(),
                &r.download(&rloss).unwrap(),
                1e-4,
                1e-7,
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn adam_steps_match_the_composition() {
    let (g, r) = (gpu(), Composed::default());
    let mut rng = rng("adam");
    let configs = [(0.0, false), (0.01, false), (0.01, true)];
    for n in SIZES {
        for (weight_decay, decoupled) in configs {
            let p0 = uniform(&mut rng, n, -1.0, 1.0);
            let (mut gp, mut gm, mut gv) = (
                g.upload(&p0).unwrap(),
                g.upload(&vec![0.0; n]).unwrap(),
                g.upload(&vec![0.0; n]).unwrap(),
            );
            let (mut rp, mut rm, mut rv) = (
                r.upload(&p0).unwrap(),
                r.upload(&vec![0.0; n]).unwrap(),
                r.upload(&vec![0.0; n]).unwrap(),
            );
            for t in 1..=3 {
                let grad = uniform(&mut rng, n, -1.0, 1.0);
                let (beta1, beta2) = (0.9f32, 0.999f32);
                let step = AdamStep {
                    lr: 1e-2,
                    beta1,
                    beta2,
                    eps: 1e-8,
                    weight_decay,
                    decoupled,
                    bias_correction1: 1.0 - beta1.powi(t),
                    bias_correction2: 1.0 - beta2.powi(t),
                };
                let (gg, rg) = (g.upload(&grad).unwrap(), r.upload(&grad).unwrap());
                g.adam_step(step, &mut gp, &gg, &mut gm, &mut gv).unwrap();
                r.adam_step(step, &mut rp, &rg, &mut rm, &mut rv).unwrap();
            }
            let what = format!("adam n = {n}, wd = {weight_decay}, decoupled = {decoupled}");
            assert_close(
                &format!("{what}: param"),
                &g.download(&gp).unwrap(),
                &r.download(&rp).unwrap(),
                2e-6,
                1e-7,
            );
            assert_close(
                &format!("{what}: m"),
                &g.download(&gm).unwrap(),
                &r.download(&rm).unwrap(),
                2e-6,
                1e-8,
            );
            assert_close(
                &format!("{what}: v"),
                &g.download(&gv).unwrap(),
                &r.download(&rv).unwrap(),
                2e-6,
                1e-10,
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sgd_steps_match_the_composition() {
    let (g, r) = (gpu(), Composed::default());
    let mut rng = rng("sgd");
    let configs = [
        (0.0, false, 0.0),
        (0.9, false, 0.0),
        (0.9, true, 1e-3),
        (0.0, false, 1e-2),
    ];
    for n in SIZES {
        for (momentum, nesterov, weight_decay) in configs {
            let p0 = uniform(&mut rng, n, -1.0, 1.0);
            let (mut gp, mut gvel) = (g.upload(&p0).unwrap(), g.upload(&vec![0.0; n]).unwrap());
            let (mut rp, mut rvel) = (r.upload(&p0).unwrap(), r.upload(&vec![0.0; n]).unwrap());
            let step = SgdStep {
                lr: 0.1,
                momentum,
                nesterov,
                weight_decay,
            };
            for _ in 0..3 {
                let grad = uniform(&mut rng, n, -1.0, 1.0);
                let (gg, rg) = (g.upload(&grad).unwrap(), r.upload(&grad).unwrap());
                g.sgd_step(step, &mut gp, &gg, Some(&mut gvel)).unwrap();
                r.sgd_step(step, &mut rp, &rg, Some(&mut rvel)).unwrap();
            }
            let what = format!(
                "sgd n = {n}, momentum = {momentum}, nesterov = {nesterov}, wd = {weight_decay}"
            );
            assert_close(
                &format!("{what}: param"),
                &g.download(&gp).unwrap(),
                &r.download(&rp).unwrap(),
                2e-6,
                1e-7,
            );
            assert_close(
                &format!("{what}: velocity"),
                &g.download(&gvel).unwrap(),
                &r.download(&rvel).unwrap(),
                2e-6,
                1e-7,
            );
        }
        // Without a velocity buffer.
        let p0 = uniform(&mut rng, n, -1.0, 1.0);
        let grad = uniform(&mut rng, n, -1.0, 1.0);
        let step = SgdStep {
            lr: 0.5,
            momentum: 0.0,
            nesterov: false,
            weight_decay: 0.0,
        };
        let (mut gp, gg) = (g.upload(&p0).unwrap(), g.upload(&grad).unwrap());
        g.sgd_step(step, &mut gp, &gg, None).unwrap();
        let (mut rp, rg) = (r.upload(&p0).unwrap(), r.upload(&grad).unwrap());
        r.sgd_step(step, &mut rp, &rg, None).unwrap();
        assert_close(
            &format!("plain sgd n = {n}"),
            &g.download(&gp).unwrap(),
            &r.download(&rp).unwrap(),
            2e-6,
            1e-7,
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn fourier_features_match_the_composition() {
    let (g, r) = (gpu(), Composed::default());
    let mut rng = rng("fourier");
    for (rows, d, m) in [
        (1, 2, 1),
        (33, 3, 7),
        (1000, 2, 64),
        (4099, 2, 128),
        (5, 1, 1000),
    ] {
        let x = uniform(&mut rng, rows * d, 0.0, 1.0);
        let b = uniform(&mut rng, d * m, -3.0, 3.0);
        let (gx, gb) = (g.upload(&x).unwrap(), g.upload(&b).unwrap());
        let mut gout = g.alloc(rows * 2 * m).unwrap();
        g.fourier_features(&gx, &gb, rows, d, m, &mut gout).unwrap();
        let (rx, rb) = (r.upload(&x).unwrap(), r.upload(&b).unwrap());
        let mut rout = r.alloc(rows * 2 * m).unwrap();
        r.fourier_features(&rx, &rb, rows, d, m, &mut rout).unwrap();
        // The arguments reach 2 pi * 3 * d: their rounding, not the sine, sets the error.
        assert_close(
            &format!("fourier {rows}x{d} -> {m}"),
            &g.download(&gout).unwrap(),
            &r.download(&rout).unwrap(),
            0.0,
            2e-5,
        );
    }
}
