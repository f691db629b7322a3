//! The fused SGD update (plain, momentum, Nesterov, weight decay), against f64 and against
//! its default composition.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use crate::{Backend, SgdStep};

/// (momentum, nesterov, weight decay, whether a velocity buffer is given).
const CONFIGS: [(f32, bool, f32, bool); 7] = [
    (0.0, false, 0.0, false),
    (0.0, false, 0.05, false),
    (0.9, false, 0.0, true),
    (0.9, true, 0.0, true),
    (0.9, true, 0.05, true),
    (0.9, false, 0.05, false), // momentum without a buffer: plain SGD
    (0.0, false, 0.0, true),   // a buffer without momentum: left alone
];

fn step(momentum: f32, nesterov: bool, weight_decay: f32) -> SgdStep {
    SgdStep {
        lr: 0.1,
        momentum,
        nesterov,
        weight_decay,
    }
}

/// Runs one step and returns the parameters and the velocity (as given when none is).
fn run<B: Backend>(
    b: &B,
    s: SgdStep,
    p: &[f32],
    g: &[f32],
    vel: &[f32],
    with_buffer: bool,
) -> [Vec<f32>; 2] {
    let (mut dp, dg, mut dv) = (up(b, p), up(b, g), up(b, vel));
    ok(
        &format!("{}: sgd_step", b.name()),
        b.sgd_step(s, &mut dp, &dg, with_buffer.then_some(&mut dv)),
    );
    [down(b, &dp), down(b, &dv)]
}

/// The updated parameters and velocity in f64, with error scales.
fn reference(s: SgdStep, p: &[f32], g: &[f32], vel: &[f32], with_buffer: bool) -> [Vec<Expect>; 2] {
    let f = f64::from;
    let mut want: [Vec<Expect>; 2] = Default::default();
    for i in 0..p.len() {
        let gi = f(g[i]) + f(s.weight_decay) * f(p[i]);
        let (update, vi) = if with_buffer && s.momentum != 0.0 {
            let vi = f(s.momentum) * f(vel[i]) + gi;
            (
                if s.nesterov {
                    gi + f(s.momentum) * vi
                } else {
                    vi
                },
                vi,
            )
        } else {
            (gi, f(vel[i]))
        };
        let g_abs = f(g[i]).abs() + (f(s.weight_decay) * f(p[i])).abs();
        let v_abs = f(s.momentum) * f(vel[i]).abs() + g_abs;
        want[0].push(Expect::new(
            f(p[i]) - f(s.lr) * update,
            f(p[i]).abs() + 3.0 * f(s.lr) * (g_abs + v_abs),
        ));
        want[1].push(Expect::new(vi, v_abs));
    }
    want
}

/// The fused kernel and the default composition both match f64 for every configuration.
pub fn matches_f64<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("sgd");
    for (momentum, nesterov, wd, with_buffer) in CONFIGS {
        let s = step(momentum, nesterov, wd);
        for n in [0, 1, 33, 40_000] {
            let p = uniform(&mut r, n, -1.0, 1.0);
            let g = uniform(&mut r, n, -1.0, 1.0);
            let vel = uniform(&mut r, n, -0.5, 0.5);
            let want = reference(s, &p, &g, &vel, with_buffer);
            for (name, got) in [
                ("fused", run(b, s, &p, &g, &vel, with_buffer)),
                ("composed", run(&composed, s, &p, &g, &vel, with_buffer)),
            ] {
                for (k, part) in ["param", "velocity"].iter().enumerate() {
                    let what = format!("{name} sgd {s:?} buffer={with_buffer} n={n}: {part}");
                    assert_close(&what, &got[k], &want[k], ELEMENT_TOL);
                }
            }
        }
    }
}

/// NaN and infinite gradients and parameters reach the same elements on the fused and the
/// composed path.
pub fn agrees_with_composition<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("sgd specials");
    let n = 200;
    for (momentum, nesterov, wd, with_buffer) in CONFIGS {
        let s = step(momentum, nesterov, wd);
        let mut p = uniform(&mut r, n, -1.0, 1.0);
        let mut g = uniform(&mut r, n, -1.0, 1.0);
        sprinkle(&mut g, &[f32::NAN, f32::INFINITY, 1e30], 9, &mut r);
        sprinkle(&mut p, &[f32::NAN, -1e30], 4, &mut r);
        let vel = uniform(&mut r, n, -0.5, 0.5);
        let want = reference(s, &p, &g, &vel, with_buffer);
        let (fused, comp) = (
            run(b, s, &p, &g, &vel, with_buffer),
            run(&composed, s, &p, &g, &vel, with_buffer),
        );
        for (k, part) in ["param", "velocity"].iter().enumerate() {
            let scale: Vec<f64> = want[k].iter().map(|e| e.scale).collect();
            let what = format!("sgd {s:?} buffer={with_buffer} on special values: {part}");
            assert_agree(&what, &fused[k], &comp[k], &scale, ELEMENT_TOL);
        }
    }
}

/// A gradient, or a velocity buffer whenever one is given, of another length than the
/// parameters is refused, by the kernel and the composition.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    refuse(b);
    refuse(&Composed(b.clone()));
}

fn refuse<B: Backend>(b: &B) {
    for (lg, lv, momentum) in [
        (5, 6, 0.9),
        (7, 6, 0.9),
        (6, 5, 0.9),
        (6, 7, 0.9),
        (6, 2, 0.0),
    ] {
        let (mut p, g, mut v) = (
            up(b, &[0.0; 6]),
            up(b, &vec![0.0; lg]),
            up(b, &vec![0.0; lv]),
        );
        let what = format!(
            "{}: sgd on 6 (momentum {momentum}) with buffers of {lg} and {lv}",
            b.name()
        );
        assert_buffer_error(
            &what,
            "sgd_step",
            b.sgd_step(step(momentum, false, 0.0), &mut p, &g, Some(&mut v)),
        );
    }
    let (mut p, g) = (up(b, &[0.0; 6]), up(b, &[0.0; 5]));
    assert_buffer_error(
        "sgd without a buffer",
        "sgd_step",
        b.sgd_step(step(0.0, false, 0.0), &mut p, &g, None),
    );
}
