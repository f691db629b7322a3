//! `Tensor`'s checked entry points to the fused operations and block copies: results
//! against f64 references, and every shape mistake an error that names the operation and
//! both shapes (never a panic, never a backend length error).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::TAU;
use tensor_core::{Activation, AdamStep, Error, LossKind, ReduceOp, SgdStep, Tensor};
use tensor_cpu::CpuBackend;

type T = Tensor<CpuBackend>;

fn cpu() -> CpuBackend {
    CpuBackend::new()
}

fn random(seed: u64, dims: &[usize], lo: f32, hi: f32) -> (T, Vec<f32>) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let n = dims.iter().product();
    let v: Vec<f32> = (0..n).map(|_| r.random_range(lo..hi)).collect();
    (Tensor::from_slice(&cpu(), &v, dims).unwrap(), v)
}

fn zeros(dims: &[usize]) -> T {
    Tensor::zeros(&cpu(), dims).unwrap()
}

fn nans(dims: &[usize]) -> T {
    Tensor::full(&cpu(), dims, f32::NAN).unwrap()
}

#[track_caller]
fn close(got: &[f32], want: &[f64], tol: f64) {
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
fn mismatch(err: Error, op: &str, a: &str, b: &str) {
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

#[test]
fn row_and_column_blocks_land_where_asked() {
    let (src, sv) = random(16, &[2, 3], -1.0, 1.0);
    let mut dst = zeros(&[5, 3]);
    dst.copy_rows_from(2, &src).unwrap();
    let d = dst.to_vec().unwrap();
    assert_eq!(&d[6..12], &sv[..]);
    assert!(d[..6].iter().chain(&d[12..]).all(|&v| v == 0.0));

    let mut wide = zeros(&[2, 7]);
    wide.copy_columns_from(4, &src).unwrap();
    let w = wide.to_vec().unwrap();
    for r in 0..2 {
        assert_eq!(&w[r * 7 + 4..r * 7 + 7], &sv[r * 3..r * 3 + 3]);
        assert!(w[r * 7..r * 7 + 4].iter().all(|&v| v == 0.0));
    }
}

#[test]
fn row_and_column_blocks_reject_bad_shapes() {
    let err = zeros(&[5, 3])
        .copy_rows_from(0, &zeros(&[2, 4]))
        .unwrap_err();
    mismatch(err, "copy_rows_from", "[5, 3]", "[2, 4]");
    let err = zeros(&[5, 3])
        .copy_rows_from(4, &zeros(&[2, 3]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 6,
                len: 5,
                ..
            }
        ),
        "{err}"
    );
    let err = zeros(&[2, 7])
        .copy_columns_from(0, &zeros(&[3, 3]))
        .unwrap_err();
    mismatch(err, "copy_columns_from", "[2, 7]", "[3, 3]");
    let err = zeros(&[2, 7])
        .copy_columns_from(5, &zeros(&[2, 3]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 8,
                len: 7,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn row_groups_reduce_and_repeat() {
    let (x, xv) = random(17, &[6, 2], -1.0, 1.0);
    let mut mean = nans(&[2, 2]);
    x.reduce_row_groups_into(ReduceOp::Mean, 3, &mut mean)
        .unwrap();
    let want: Vec<f64> = (0..4)
        .map(|i| {
            let (g, c) = (i / 2, i % 2);
            (0..3).map(|k| xv[(g * 3 + k) * 2 + c] as f64).sum::<f64>() / 3.0
        })
        .collect();
    close(&mean.to_vec().unwrap(), &want, 1e-6);

    let (g, gv) = random(18, &[2, 3], -1.0, 1.0);
    let mut spread = nans(&[8, 3]);
    g.repeat_rows_into(4, &mut spread).unwrap();
    let s = spread.to_vec().unwrap();
    for row in 0..8 {
        assert_eq!(
            &s[row * 3..row * 3 + 3],
            &gv[(row / 4) * 3..(row / 4) * 3 + 3]
        );
    }
}

#[test]
fn row_groups_reject_bad_shapes() {
    let err = zeros(&[7, 2])
        .reduce_row_groups_into(ReduceOp::Mean, 3, &mut zeros(&[2, 2]))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let err = zeros(&[6, 2])
        .reduce_row_groups_into(ReduceOp::Mean, 0, &mut zeros(&[2, 2]))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let err = zeros(&[6, 2])
        .reduce_row_groups_into(ReduceOp::Sum, 3, &mut zeros(&[3, 2]))
        .unwrap_err();
    mismatch(err, "reduce_row_groups", "[6, 2]", "[3, 2]");
    let err = zeros(&[2, 3])
        .repeat_rows_into(4, &mut zeros(&[6, 3]))
        .unwrap_err();
    mismatch(err, "repeat_rows", "[2, 3]", "[6, 3]");
    let err = zeros(&[2, 3])
        .repeat_rows_into(0, &mut zeros(&[0, 3]))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
}

#[test]
fn dot_products_overwrite_or_accumulate() {
    let (a, av) = random(19, &[4, 5], -1.0, 1.0);
    let (b, bv) = random(20, &[20], -1.0, 1.0);
    let dot: f64 = av.iter().zip(&bv).map(|(&a, &b)| a as f64 * b as f64).sum();
    let mut out = nans(&[1]);
    a.dot_into(&b, &mut out, 0.0).unwrap();
    close(&out.to_vec().unwrap(), &[dot], 1e-5);
    a.dot_into(&a, &mut out, 1.0).unwrap();
    let sq: f64 = av.iter().map(|&a| a as f64 * a as f64).sum();
    close(&out.to_vec().unwrap(), &[dot + sq], 1e-5);
}

#[test]
fn dot_products_reject_bad_shapes() {
    let err = zeros(&[4, 5])
        .dot_into(&zeros(&[19]), &mut zeros(&[1]), 0.0)
        .unwrap_err();
    mismatch(err, "dot", "[4, 5]", "[19]");
    let err = zeros(&[3])
        .dot_into(&zeros(&[3]), &mut zeros(&[2]), 0.0)
        .unwrap_err();
    assert!(matches!(err, Error::ElementCount { .. }), "{err}");
}
