//! Fused operations of `CpuBackend` (its single-pass overrides) and of `tensor-core`'s
//! default compositions (through the `Defaults` wrapper), each against an f64 reference.
//! Tolerances: element-wise `ELEMENT_TOL`, scaled by the operands' magnitudes; losses
//! `SUM_TOL` (see `common/mod.rs`).

mod common;

use common::defaults::Defaults;
use common::*;
use std::f64::consts::TAU;
use tensor_core::{Activation, AdamStep, Backend, LossKind, SgdStep};

const ACTIVATIONS: &[Activation] = &[
    Activation::Identity,
    Activation::Sigmoid,
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu { alpha: 0.01 },
    Activation::Sine { w0: 30.0 },
    Activation::Sine { w0: 1.0 },
];

/// (rows, cols): XOR-sized and awkward ones, and one above the parallel threshold.
const MATRICES: &[(usize, usize)] = &[(1, 1), (4, 2), (1, 33), (33, 1), (7, 33), (300, 130)];

fn sigmoid64(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// An activation in f64 at an f32 pre-activation (SIREN's `w0 x` rounded to f32 first, as
/// the operation defines it), with the magnitude its error is relative to.
fn forward(a: Activation, z: f32) -> (f64, f64) {
    let v = z as f64;
    match a {
        Activation::Identity => (v, v.abs()),
        Activation::Sigmoid => (sigmoid64(v), sigmoid64(v)),
        Activation::Tanh => (v.tanh(), v.tanh().abs()),
        Activation::Relu => (v.max(0.0), v.abs()),
        Activation::LeakyRelu { alpha } => (if v > 0.0 { v } else { alpha as f64 * v }, v.abs()),
        Activation::Sine { w0 } => (((w0 * z) as f64).sin(), 1.0),
    }
}

/// The derivative in f64, with the magnitude its error is relative to.
fn derivative(a: Activation, z: f32) -> (f64, f64) {
    let v = z as f64;
    match a {
        Activation::Identity => (1.0, 1.0),
        Activation::Sigmoid => (sigmoid64(v) * (1.0 - sigmoid64(v)), 0.25),
        Activation::Tanh => (1.0 - v.tanh().powi(2), 1.0),
        Activation::Relu => ((v > 0.0) as u8 as f64, 1.0),
        Activation::LeakyRelu { alpha } => (if v > 0.0 { 1.0 } else { alpha as f64 }, 1.0),
        Activation::Sine { w0 } => (w0 as f64 * ((w0 * z) as f64).cos(), w0 as f64),
    }
}

fn check_bias_act<B: Backend<Storage = Vec<f32>>>(b: &B) {
    let mut r = rng(50);
    for &act in ACTIVATIONS {
        for &(rows, cols) in MATRICES {
            let z0 = uniform(&mut r, rows * cols, -3.0, 3.0);
            let bias = uniform(&mut r, cols, -1.0, 1.0);
            let mut z = z0.clone();
            let mut out = vec![f32::NAN; rows * cols];
            b.bias_act(&mut z, &bias, rows, cols, act, &mut out)
                .unwrap();
            let what = format!("{}: bias_act {act:?} {rows}x{cols}", b.name());
            let shifted: Vec<f32> = z0
                .iter()
                .enumerate()
                .map(|(i, &v)| v + bias[i % cols])
                .collect();
            assert_bits_eq(&z, &shifted, &what);
            let (want, scale): (Vec<f64>, Vec<f64>) =
                shifted.iter().map(|&v| forward(act, v)).unzip();
            assert_close_scaled(&out, &want, &scale, ELEMENT_TOL, &what);
        }
    }
}

fn check_act_backward<B: Backend<Storage = Vec<f32>>>(b: &B) {
    let mut r = rng(51);
    for &act in ACTIVATIONS {
        for n in [1, 8, 231, 40_000] {
            let g = uniform(&mut r, n, -2.0, 2.0);
            let z = uniform(&mut r, n, -3.0, 3.0);
            let mut gz = vec![f32::NAN; n];
            b.act_backward(&g, &z, act, &mut gz).unwrap();
            let (want, scale): (Vec<f64>, Vec<f64>) = g
                .iter()
                .zip(&z)
                .map(|(&g, &z)| {
                    let (d, s) = derivative(act, z);
                    (g as f64 * d, g.abs() as f64 * s)
                })
                .unzip();
            let what = format!("{}: act_backward {act:?} n={n}", b.name());
            assert_close_scaled(&gz, &want, &scale, ELEMENT_TOL, &what);
        }
    }
}

/// Loss and gradient in f64, with the error scale of each gradient element and of the loss.
fn loss_reference(
    kind: LossKind,
    p: &[f32],
    t: &[f32],
    rows: usize,
    cols: usize,
) -> (f64, f64, Vec<f64>, Vec<f64>) {
    let n = (rows * cols) as f64;
    match kind {
        LossKind::Mse => {
            let d: Vec<f64> = p
                .iter()
                .zip(t)
                .map(|(&p, &t)| p as f64 - t as f64)
                .collect();
            let loss = d.iter().map(|d| d * d).sum::<f64>() / n;
            let grad = d.iter().map(|d| 2.0 * d / n).collect();
            let scale = p
                .iter()
                .zip(t)
                .map(|(&p, &t)| 2.0 * (p.abs() + t.abs()) as f64 / n)
                .collect();
            (loss, loss, grad, scale)
        }
        LossKind::BceWithLogits => {
            let mut loss = 0.0;
            let mut abs = 0.0;
            let mut grad = Vec::new();
            for (&z, &y) in p.iter().zip(t) {
                let (z, y) = (z as f64, y as f64);
                let sp = z.max(0.0) + (-z.abs()).exp().ln_1p();
                loss += sp - z * y;
                abs += sp + (z * y).abs();
                grad.push((sigmoid64(z) - y) / n);
            }
            (loss / n, abs / n, grad, vec![1.0 / n; p.len()])
        }
        LossKind::SoftmaxCrossEntropy => {
            let mut loss = 0.0;
            let mut abs = 0.0;
            let mut grad = Vec::new();
            for (pr, tr) in p.chunks(cols).zip(t.chunks(cols)) {
                let max = pr.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
                let lse = pr.iter().map(|&v| (v as f64 - max).exp()).sum::<f64>().ln() + max;
                for (&pv, &tv) in pr.iter().zip(tr) {
                    let logp = pv as f64 - lse;
                    loss -= tv as f64 * logp;
                    abs += (tv as f64 * logp).abs();
                    grad.push((logp.exp() - tv as f64) / rows as f64);
                }
            }
            (
                loss / rows as f64,
                abs / rows as f64,
                grad,
                vec![1.0 / rows as f64; p.len()],
            )
        }
    }
}

fn check_loss_grad<B: Backend<Storage = Vec<f32>>>(b: &B) {
    let mut r = rng(52);
    for kind in [
        LossKind::Mse,
        LossKind::BceWithLogits,
        LossKind::SoftmaxCrossEntropy,
    ] {
        for &(rows, cols) in &[(1, 1), (4, 1), (4, 2), (7, 33), (300, 130), (2000, 10)] {
            let p = uniform(&mut r, rows * cols, -4.0, 4.0);
            let t: Vec<f32> = match kind {
                LossKind::Mse => uniform(&mut r, rows * cols, -4.0, 4.0),
                LossKind::BceWithLogits => uniform(&mut r, rows * cols, 0.0, 1.0)
                    .iter()
                    .map(|v| v.round())
                    .collect(),
                // One-hot rows, except every third row holds probabilities.
                LossKind::SoftmaxCrossEntropy => (0..rows)
                    .flat_map(|i| {
                        let mut row = vec![0.0f32; cols];
                        if i % 3 == 2 {
                            row.iter_mut().for_each(|v| *v = 1.0 / cols as f32);
                        } else {
                            row[(i * 7) % cols] = 1.0;
                        }
                        row
                    })
                    .collect(),
            };
            let mut grad = vec![f32::NAN; rows * cols];
            let mut loss = vec![f32::NAN];
            b.loss_grad(kind, &p, &t, rows, cols, &mut grad, &mut loss)
                .unwrap();
            let (want, loss_scale, want_grad, grad_scale) =
                loss_reference(kind, &p, &t, rows, cols);
            let what = format!("{}: {kind:?} {rows}x{cols}", b.name());
            assert_close_scaled(
                &loss,
                &[want],
                &[loss_scale],
                SUM_TOL,
                &format!("{what} loss"),
            );
            assert_close_scaled(
                &grad,
                &want_grad,
                &grad_scale,
                ELEMENT_TOL,
                &format!("{what} grad"),
            );
        }
    }
}

fn check_adam<B: Backend<Storage = Vec<f32>>>(b: &B) {
    let mut r = rng(53);
    for (weight_decay, decoupled) in [(0.0, false), (0.1, false), (0.1, true)] {
        for n in [1, 7, 1000, 40_000] {
            let t = 3;
            let s = AdamStep {
                lr: 1e-2,
                beta1: 0.9,
                beta2: 0.999,
                eps: 1e-8,
                weight_decay,
                decoupled,
                bias_correction1: 1.0 - 0.9f32.powi(t),
                bias_correction2: 1.0 - 0.999f32.powi(t),
            };
            let p0 = uniform(&mut r, n, -1.0, 1.0);
            let g = uniform(&mut r, n, -1.0, 1.0);
            let m0 = uniform(&mut r, n, -0.1, 0.1);
            let v0 = uniform(&mut r, n, 0.0, 0.01);
            let (mut p, mut m, mut v) = (p0.clone(), m0.clone(), v0.clone());
            b.adam_step(s, &mut p, &g, &mut m, &mut v).unwrap();
            let mut want = (Vec::new(), Vec::new(), Vec::new());
            let mut scale = (Vec::new(), Vec::new(), Vec::new());
            for i in 0..n {
                let f = |x: f32| x as f64;
                let l2 = if decoupled { 0.0 } else { f(weight_decay) };
                let gi = f(g[i]) + l2 * f(p0[i]);
                let b1 = f(s.beta1);
                let b2 = f(s.beta2);
                let mi = b1 * f(m0[i]) + (1.0 - b1) * gi;
                let vi = b2 * f(v0[i]) + (1.0 - b2) * gi * gi;
                let decay = if decoupled {
                    1.0 - f(s.lr) * f(weight_decay)
                } else {
                    1.0
                };
                let update = f(s.lr) / f(s.bias_correction1) * mi
                    / ((vi / f(s.bias_correction2)).sqrt() + f(s.eps));
                // `m` may cancel, and its error carries into the update: scale by its terms.
                let g_abs = f(g[i]).abs() + l2 * f(p0[i]).abs();
                let m_abs = b1 * f(m0[i]).abs() + (1.0 - b1) * g_abs;
                let update_abs = update.abs() * m_abs / mi.abs().max(1e-300);
                want.0.push(f(p0[i]) * decay - update);
                want.1.push(mi);
                want.2.push(vi);
                scale.0.push(f(p0[i]).abs() + update_abs);
                scale.1.push(m_abs);
                scale.2.push(b2 * f(v0[i]) + (1.0 - b2) * g_abs * g_abs);
            }
            let what = format!(
                "{}: adam wd={weight_decay} decoupled={decoupled} n={n}",
                b.name()
            );
            assert_close_scaled(&p, &want.0, &scale.0, ELEMENT_TOL, &format!("{what} param"));
            assert_close_scaled(&m, &want.1, &scale.1, ELEMENT_TOL, &format!("{what} m"));
            assert_close_scaled(&v, &want.2, &scale.2, ELEMENT_TOL, &format!("{what} v"));
        }
    }
}

fn check_sgd<B: Backend<Storage = Vec<f32>>>(b: &B) {
    let mut r = rng(54);
    let configs = [
        (0.0, false, 0.0, false),
        (0.0, false, 0.05, false),
        (0.9, false, 0.0, true),
        (0.9, true, 0.0, true),
        (0.9, true, 0.05, true),
        (0.9, false, 0.05, false), // momentum without a buffer: plain SGD
        (0.0, false, 0.0, true),   // a buffer without momentum: left alone
    ];
    for (momentum, nesterov, weight_decay, with_buffer) in configs {
        for n in [1, 33, 40_000] {
            let s = SgdStep {
                lr: 0.1,
                momentum,
                nesterov,
                weight_decay,
            };
            let p0 = uniform(&mut r, n, -1.0, 1.0);
            let g = uniform(&mut r, n, -1.0, 1.0);
            let vel0 = uniform(&mut r, n, -0.5, 0.5);
            let mut p = p0.clone();
            let mut vel = vel0.clone();
            b.sgd_step(s, &mut p, &g, with_buffer.then_some(&mut vel))
                .unwrap();
            let (mut want_p, mut want_v, mut scale_p, mut scale_v) =
                (vec![], vec![], vec![], vec![]);
            for i in 0..n {
                let f = |x: f32| x as f64;
                let gi = f(g[i]) + f(weight_decay) * f(p0[i]);
                let (update, vi) = if with_buffer && momentum != 0.0 {
                    let vi = f(momentum) * f(vel0[i]) + gi;
                    (if nesterov { gi + f(momentum) * vi } else { vi }, vi)
                } else {
                    (gi, f(vel0[i]))
                };
                want_p.push(f(p0[i]) - f(s.lr) * update);
                scale_p.push(
                    f(p0[i]).abs() + 3.0 * f(s.lr) * (f(g[i]).abs() + f(vel0[i]).abs() + 1.0),
                );
                want_v.push(vi);
                scale_v.push(f(vel0[i]).abs() + gi.abs());
            }
            let what = format!("{}: sgd {s:?} buffer={with_buffer} n={n}", b.name());
            assert_close_scaled(&p, &want_p, &scale_p, ELEMENT_TOL, &format!("{what} param"));
            assert_close_scaled(
                &vel,
                &want_v,
                &scale_v,
                ELEMENT_TOL,
                &format!("{what} velocity"),
            );
        }
    }
}

fn check_fourier<B: Backend<Storage = Vec<f32>>>(b: &B) {
    let mut r = rng(55);
    for &(rows, d, m) in &[
        (1, 1, 1),
        (3, 0, 2),
        (0, 2, 3),
        (4, 2, 3),
        (7, 2, 33),
        (1000, 2, 64),
        (300, 3, 128),
    ] {
        let x = uniform(&mut r, rows * d, -1.0, 1.0);
        let freqs = uniform(&mut r, d * m, -10.0, 10.0);
        let mut out = vec![f32::NAN; rows * 2 * m];
        b.fourier_features(&x, &freqs, rows, d, m, &mut out)
            .unwrap();
        let (mut want, mut scale) = (Vec::new(), Vec::new());
        for i in 0..rows {
            let (mut proj, mut abs) = (vec![0.0; m], vec![0.0; m]);
            for j in 0..m {
                for k in 0..d {
                    let t = TAU * x[i * d + k] as f64 * freqs[k * m + j] as f64;
                    proj[j] += t;
                    abs[j] += t.abs();
                }
            }
            // The f32 projection is off by up to (d + 2) ulps of the sum of its absolute
            // terms; sine and cosine carry that error over unchanged.
            let tol = |a: f64| 1.0 + (d + 2) as f64 * f32::EPSILON as f64 * a / ELEMENT_TOL;
            want.extend(proj.iter().map(|p| p.sin()));
            scale.extend(abs.iter().map(|&a| tol(a)));
            want.extend(proj.iter().map(|p| p.cos()));
            scale.extend(abs.iter().map(|&a| tol(a)));
        }
        let what = format!("{}: fourier_features {rows}x{d} -> {m}", b.name());
        assert_close_scaled(&out, &want, &scale, ELEMENT_TOL, &what);
    }
}

#[test]
fn bias_act_matches_f64() {
    check_bias_act(&cpu());
    check_bias_act(&Defaults(cpu()));
}

#[test]
fn act_backward_matches_f64() {
    check_act_backward(&cpu());
    check_act_backward(&Defaults(cpu()));
}

#[test]
fn loss_grad_matches_f64() {
    check_loss_grad(&cpu());
    check_loss_grad(&Defaults(cpu()));
}

#[test]
fn adam_step_matches_f64() {
    check_adam(&cpu());
    check_adam(&Defaults(cpu()));
}

#[test]
fn sgd_step_matches_f64() {
    check_sgd(&cpu());
    check_sgd(&Defaults(cpu()));
}

#[test]
fn fourier_features_match_f64() {
    check_fourier(&cpu());
    check_fourier(&Defaults(cpu()));
}

#[test]
fn fused_overrides_agree_with_the_defaults() {
    // The two implementations side by side on one input (each already checked against f64
    // above; this catches a shared misreading of the definition only in combination).
    let (cpu, def) = (cpu(), Defaults(cpu()));
    let mut r = rng(56);
    let (rows, cols) = (37, 21);
    let z0 = uniform(&mut r, rows * cols, -2.0, 2.0);
    let bias = uniform(&mut r, cols, -1.0, 1.0);
    for &act in ACTIVATIONS {
        let (mut z1, mut z2) = (z0.clone(), z0.clone());
        let (mut o1, mut o2) = (vec![0.0; rows * cols], vec![0.0; rows * cols]);
        cpu.bias_act(&mut z1, &bias, rows, cols, act, &mut o1)
            .unwrap();
        def.bias_act(&mut z2, &bias, rows, cols, act, &mut o2)
            .unwrap();
        let o2: Vec<f64> = o2.iter().map(|&v| v as f64).collect();
        assert_close_scaled(&o1, &o2, &[], ELEMENT_TOL, &format!("bias_act {act:?}"));
    }
}
