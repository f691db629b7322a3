//! `Tensor`'s checked entry points to the fused operations: results against f64
//! references, and every shape mistake an error that names the operation and both shapes
//! (never a panic, never a backend length error).

use crate::common::cpu;
use std::f64::consts::TAU;
use tensor_core::rand::{Rng, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Activation, AdamStep, Error, LossKind, SgdStep, Tensor};
use tensor_cpu::CpuBackend;

pub(super) type T = Tensor<CpuBackend>;

/// A tensor of `dims` with values uniform in `[lo, hi)`, and the values.
pub(super) fn random(seed: u64, dims: &[usize], lo: f32, hi: f32) -> (T, Vec<f32>) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let n = dims.iter().product();
    let v: Vec<f32> = (0..n).map(|_| r.random_range(lo..hi)).collect();
    (Tensor::from_slice(&cpu(), &v, dims).unwrap(), v)
}

/// Zeros of `dims`.
pub(super) fn zeros(dims: &[usize]) -> T {
    Tensor::zeros(&cpu(), dims).unwrap()
}

/// NaN everywhere (an output must overwrite every element).
pub(super) fn nans(dims: &[usize]) -> T {
    Tensor::full(&cpu(), dims, f32::NAN).unwrap()
}

/// `|got - want| <= tol (1 + |want|)` element by element.
#[track_caller]
pub(super) fn close(got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (*g as f64 - w).abs() <= tol * (1.0 + w.abs()),
            "element {i}: {g} vs {w}"
        );
    }
}

/// A shape mismatch whose message names `op` and both shapes.
#[track_caller]
pub(super) fn mismatch(err: Error, op: &str, a: &str, b: &str) {
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    let msg = err.to_string();
    for part in [op, a, b] {
        assert!(msg.contains(part), "`{msg}` does not mention `{part}`");
    }
}

#[test]
fn bias_act_adds_the_bias_and_activates() {
    let (mut z, zv) = random(1, &[5, 3], -2.0, 2.0);
    let (bias, bv) = random(2, &[3], -1.0, 1.0);
    let mut out = nans(&[5, 3]);
    z.bias_act_into(&bias, Activation::Tanh, &mut out).unwrap();
    let shifted: Vec<f64> = (0..15).map(|i| zv[i] as f64 + bv[i % 3] as f64).collect();
    close(&z.to_vec().unwrap(), &shifted, 1e-6);
    let want: Vec<f64> = shifted.iter().map(|v| v.tanh()).collect();
    close(&out.to_vec().unwrap(), &want, 1e-6);
}

#[test]
fn bias_act_rejects_bad_shapes() {
    let err = zeros(&[2, 3])
        .bias_act_into(&zeros(&[4]), Activation::Relu, &mut zeros(&[2, 3]))
        .unwrap_err();
    mismatch(err, "bias_act (bias)", "[2, 3]", "[4]");
    let err = zeros(&[2, 3])
        .bias_act_into(&zeros(&[3]), Activation::Relu, &mut zeros(&[3, 2]))
        .unwrap_err();
    mismatch(err, "bias_act (output)", "[2, 3]", "[3, 2]");
    let err = zeros(&[6])
        .bias_act_into(&zeros(&[6]), Activation::Relu, &mut zeros(&[6]))
        .unwrap_err();
    assert!(matches!(err, Error::Rank { .. }), "{err}");
}

#[test]
fn act_backward_multiplies_by_the_derivative() {
    let (g, gv) = random(3, &[4, 7], -1.0, 1.0);
    let (z, zv) = random(4, &[4, 7], -2.0, 2.0);
    let mut out = nans(&[4, 7]);
    let w0 = 3.0f32;
    g.act_backward_into(&z, Activation::Sine { w0 }, &mut out)
        .unwrap();
    let want: Vec<f64> = gv
        .iter()
        .zip(&zv)
        .map(|(&g, &z)| g as f64 * w0 as f64 * ((w0 * z) as f64).cos())
        .collect();
    close(&out.to_vec().unwrap(), &want, 1e-5);
}

#[test]
fn act_backward_rejects_bad_shapes() {
    let err = zeros(&[4, 2])
        .act_backward_into(&zeros(&[2, 4]), Activation::Tanh, &mut zeros(&[4, 2]))
        .unwrap_err();
    mismatch(err, "act_backward (pre-activation)", "[4, 2]", "[2, 4]");
    let err = zeros(&[4, 2])
        .act_backward_into(&zeros(&[4, 2]), Activation::Tanh, &mut zeros(&[8]))
        .unwrap_err();
    mismatch(err, "act_backward (output)", "[4, 2]", "[8]");
}

#[test]
fn loss_grad_gives_the_mean_squared_error_and_its_gradient() {
    let (p, pv) = random(5, &[6, 2], -1.0, 1.0);
    let (t, tv) = random(6, &[6, 2], -1.0, 1.0);
    let mut grad = nans(&[6, 2]);
    let mut loss = nans(&[1]);
    p.loss_grad_into(LossKind::Mse, &t, &mut grad, &mut loss)
        .unwrap();
    let d: Vec<f64> = pv
        .iter()
        .zip(&tv)
        .map(|(&p, &t)| p as f64 - t as f64)
        .collect();
    let mse = d.iter().map(|d| d * d).sum::<f64>() / 12.0;
    close(&loss.to_vec().unwrap(), &[mse], 1e-5);
    let want: Vec<f64> = d.iter().map(|d| 2.0 * d / 12.0).collect();
    close(&grad.to_vec().unwrap(), &want, 1e-6);
}

#[test]
fn loss_grad_rejects_bad_shapes() {
    let mut grad = zeros(&[3, 2]);
    let mut loss = zeros(&[1]);
    let err = zeros(&[3, 2])
        .loss_grad_into(LossKind::Mse, &zeros(&[2, 3]), &mut grad, &mut loss)
        .unwrap_err();
    mismatch(err, "loss_grad (target)", "[3, 2]", "[2, 3]");
    let err = zeros(&[3, 2])
        .loss_grad_into(
            LossKind::Mse,
            &zeros(&[3, 2]),
            &mut zeros(&[3, 1]),
            &mut loss,
        )
        .unwrap_err();
    mismatch(err, "loss_grad (gradient)", "[3, 2]", "[3, 1]");
    let err = zeros(&[3, 2])
        .loss_grad_into(LossKind::Mse, &zeros(&[3, 2]), &mut grad, &mut zeros(&[2]))
        .unwrap_err();
    assert!(matches!(err, Error::ElementCount { .. }), "{err}");
    assert!(err.to_string().contains("loss_grad (loss)"), "{err}");
}

#[test]
fn adam_step_follows_the_update_rule() {
    let (mut p, pv) = random(7, &[3, 4], -1.0, 1.0);
    let (g, gv) = random(8, &[3, 4], -1.0, 1.0);
    let (mut m, mv) = random(9, &[3, 4], -0.1, 0.1);
    let (mut v, vv) = random(10, &[3, 4], 0.0, 0.1);
    let s = AdamStep {
        lr: 0.01,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay: 0.0,
        decoupled: false,
        bias_correction1: 1.0 - 0.9f32.powi(3),
        bias_correction2: 1.0 - 0.999f32.powi(3),
    };
    p.adam_step(s, &g, &mut m, &mut v).unwrap();
    let (mut wp, mut wm, mut wv) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..12 {
        let g = gv[i] as f64;
        let m = 0.9 * mv[i] as f64 + 0.1 * g;
        let v = 0.999 * vv[i] as f64 + 0.001 * g * g;
        let step = 0.01 * (m / s.bias_correction1 as f64)
            / ((v / s.bias_correction2 as f64).sqrt() + 1e-8);
        wp.push(pv[i] as f64 - step);
        wm.push(m);
        wv.push(v);
    }
    close(&p.to_vec().unwrap(), &wp, 1e-5);
    close(&m.to_vec().unwrap(), &wm, 1e-6);
    close(&v.to_vec().unwrap(), &wv, 1e-6);
}

#[test]
fn adam_step_rejects_bad_shapes() {
    let s = AdamStep {
        lr: 0.1,
        beta1: 0.9,
        beta2: 0.99,
        eps: 1e-8,
        weight_decay: 0.0,
        decoupled: false,
        bias_correction1: 0.1,
        bias_correction2: 0.01,
    };
    let mut p = zeros(&[2, 2]);
    let err = p
        .adam_step(s, &zeros(&[4]), &mut zeros(&[2, 2]), &mut zeros(&[2, 2]))
        .unwrap_err();
    mismatch(err, "adam_step (gradient)", "[2, 2]", "[4]");
    let err = p
        .adam_step(s, &zeros(&[2, 2]), &mut zeros(&[2, 3]), &mut zeros(&[2, 2]))
        .unwrap_err();
    mismatch(err, "adam_step (first moment)", "[2, 2]", "[2, 3]");
    let err = p
        .adam_step(s, &zeros(&[2, 2]), &mut zeros(&[2, 2]), &mut zeros(&[1, 2]))
        .unwrap_err();
    mismatch(err, "adam_step (second moment)", "[2, 2]", "[1, 2]");
}

#[test]
fn sgd_step_with_momentum_follows_the_update_rule() {
    let (mut p, pv) = random(11, &[9], -1.0, 1.0);
    let (g, gv) = random(12, &[9], -1.0, 1.0);
    let (mut vel, velv) = random(13, &[9], -0.5, 0.5);
    let s = SgdStep {
        lr: 0.1,
        momentum: 0.9,
        nesterov: false,
        weight_decay: 0.0,
    };
    p.sgd_step(s, &g, Some(&mut vel)).unwrap();
    let wv: Vec<f64> = (0..9)
        .map(|i| 0.9 * velv[i] as f64 + gv[i] as f64)
        .collect();
    let wp: Vec<f64> = (0..9).map(|i| pv[i] as f64 - 0.1 * wv[i]).collect();
    close(&vel.to_vec().unwrap(), &wv, 1e-6);
    close(&p.to_vec().unwrap(), &wp, 1e-6);
}

#[test]
fn sgd_step_rejects_bad_shapes_and_a_missing_velocity() {
    let plain = SgdStep {
        lr: 0.1,
        momentum: 0.0,
        nesterov: false,
        weight_decay: 0.0,
    };
    let mut p = zeros(&[3]);
    let err = p.sgd_step(plain, &zeros(&[1, 3]), None).unwrap_err();
    mismatch(err, "sgd_step (gradient)", "[3]", "[1, 3]");
    let heavy = SgdStep {
        momentum: 0.5,
        ..plain
    };
    let err = p
        .sgd_step(heavy, &zeros(&[3]), Some(&mut zeros(&[4])))
        .unwrap_err();
    mismatch(err, "sgd_step (velocity)", "[3]", "[4]");
    let err = p.sgd_step(heavy, &zeros(&[3]), None).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert!(err.to_string().contains("velocity"), "{err}");
}

#[test]
fn fourier_features_are_sines_then_cosines_of_the_projection() {
    let (x, xv) = random(14, &[5, 2], -1.0, 1.0);
    let (b, bv) = random(15, &[2, 3], -2.0, 2.0);
    let mut out = nans(&[5, 6]);
    x.fourier_features_into(&b, &mut out).unwrap();
    let mut want = Vec::new();
    for r in 0..5 {
        let proj: Vec<f64> = (0..3)
            .map(|j| {
                TAU * (0..2)
                    .map(|k| xv[r * 2 + k] as f64 * bv[k * 3 + j] as f64)
                    .sum::<f64>()
            })
            .collect();
        want.extend(proj.iter().map(|p| p.sin()));
        want.extend(proj.iter().map(|p| p.cos()));
    }
    close(&out.to_vec().unwrap(), &want, 1e-5);
}

#[test]
fn fourier_features_reject_bad_shapes() {
    let err = zeros(&[5, 2])
        .fourier_features_into(&zeros(&[3, 4]), &mut zeros(&[5, 8]))
        .unwrap_err();
    mismatch(err, "fourier_features (frequencies)", "[5, 2]", "[3, 4]");
    let err = zeros(&[5, 2])
        .fourier_features_into(&zeros(&[2, 4]), &mut zeros(&[5, 4]))
        .unwrap_err();
    mismatch(err, "fourier_features (output)", "[5, 8]", "[5, 4]");
}
