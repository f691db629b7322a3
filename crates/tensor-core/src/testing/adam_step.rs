//! The fused Adam/AdamW update, against f64 and against its default composition.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use crate::{AdamMoments, AdamStep, Backend};

/// A step `t = 3` with the usual betas and the given weight decay.
pub(crate) fn step(weight_decay: f32, decoupled: bool) -> AdamStep {
    AdamStep {
        lr: 1e-2,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay,
        decoupled,
        bias_correction1: 1.0 - 0.9f32.powi(3),
        bias_correction2: 1.0 - 0.999f32.powi(3),
    }
}

/// Adam without decay, with L2 decay, and AdamW.
const CONFIGS: [(f32, bool); 3] = [(0.0, false), (0.1, false), (0.1, true)];

/// Runs one step and returns the parameters and both moments.
fn run<B: Backend>(
    b: &B,
    s: AdamStep,
    p: &[f32],
    g: &[f32],
    m: &[f32],
    v: &[f32],
) -> [Vec<f32>; 3] {
    let (mut dp, dg, mut dm, mut dv) = (up(b, p), up(b, g), up(b, m), up(b, v));
    ok(
        &format!("{}: adam_step", b.name()),
        b.adam_step(
            s,
            &mut dp,
            &dg,
            AdamMoments {
                m: &mut dm,
                v: &mut dv,
            },
        ),
    );
    [down(b, &dp), down(b, &dm), down(b, &dv)]
}

/// The updated parameters and moments in f64, each with its error scale.
pub(crate) fn reference(
    s: AdamStep,
    p: &[f32],
    g: &[f32],
    m: &[f32],
    v: &[f32],
) -> [Vec<Expect>; 3] {
    let f = f64::from;
    let mut want: [Vec<Expect>; 3] = Default::default();
    for i in 0..p.len() {
        let l2 = if s.decoupled { 0.0 } else { f(s.weight_decay) };
        let gi = f(g[i]) + l2 * f(p[i]);
        let (b1, b2) = (f(s.beta1), f(s.beta2));
        let mi = b1 * f(m[i]) + (1.0 - b1) * gi;
        let vi = b2 * f(v[i]) + (1.0 - b2) * gi * gi;
        let decay = if s.decoupled {
            1.0 - f(s.lr) * f(s.weight_decay)
        } else {
            1.0
        };
        let update =
            f(s.lr) / f(s.bias_correction1) * mi / ((vi / f(s.bias_correction2)).sqrt() + f(s.eps));
        // `m` may cancel, and its error carries into the update: scale by its terms.
        let g_abs = f(g[i]).abs() + l2 * f(p[i]).abs();
        let m_abs = b1 * f(m[i]).abs() + (1.0 - b1) * g_abs;
        let update_abs = update.abs() * m_abs / mi.abs().max(1e-300);
        want[0].push(Expect::new(
            f(p[i]) * decay - update,
            f(p[i]).abs() + update_abs,
        ));
        want[1].push(Expect::new(mi, m_abs));
        want[2].push(Expect::new(vi, b2 * f(v[i]) + (1.0 - b2) * g_abs * g_abs));
    }
    want
}

/// The fused kernel and the default composition both match f64 on every size.
pub fn matches_f64<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("adam");
    for (wd, decoupled) in CONFIGS {
        let s = step(wd, decoupled);
        for n in [0, 1, 7, 1000, 40_000] {
            let p = uniform(&mut r, n, -1.0, 1.0);
            let g = uniform(&mut r, n, -1.0, 1.0);
            let m = uniform(&mut r, n, -0.1, 0.1);
            let v = uniform(&mut r, n, 0.0, 0.01);
            let want = reference(s, &p, &g, &m, &v);
            for (name, got) in [
                ("fused", run(b, s, &p, &g, &m, &v)),
                ("composed", run(&composed, s, &p, &g, &m, &v)),
            ] {
                for (k, part) in ["param", "m", "v"].iter().enumerate() {
                    let what = format!("{name} adam wd={wd} decoupled={decoupled} n={n}: {part}");
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
    let mut r = rng("adam specials");
    let n = 200;
    for (wd, decoupled) in CONFIGS {
        let s = step(wd, decoupled);
        let mut p = uniform(&mut r, n, -1.0, 1.0);
        let mut g = uniform(&mut r, n, -1.0, 1.0);
        sprinkle(&mut g, &[f32::NAN, f32::INFINITY, 1e30, 0.0], 12, &mut r);
        sprinkle(&mut p, &[f32::NAN, -1e30], 4, &mut r);
        let (m, v) = (uniform(&mut r, n, -0.1, 0.1), uniform(&mut r, n, 0.0, 0.01));
        let want = reference(s, &p, &g, &m, &v);
        let (fused, comp) = (run(b, s, &p, &g, &m, &v), run(&composed, s, &p, &g, &m, &v));
        for (k, part) in ["param", "m", "v"].iter().enumerate() {
            let scale: Vec<f64> = want[k].iter().map(|e| e.scale).collect();
            let what = format!("adam wd={wd} decoupled={decoupled} on special values: {part}");
            assert_agree(&what, &fused[k], &comp[k], &scale, ELEMENT_TOL);
        }
    }
}

/// A gradient or moment of another length than the parameters is refused, by the kernel
/// and the composition.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    refuse(b);
    refuse(&Composed(b.clone()));
}

fn refuse<B: Backend>(b: &B) {
    for (lg, lm, lv) in [(5, 6, 6), (7, 6, 6), (6, 5, 6), (6, 6, 7), (6, 6, 0)] {
        let mut p = up(b, &[0.0; 6]);
        let g = up(b, &vec![0.0; lg]);
        let (mut m, mut v) = (up(b, &vec![0.0; lm]), up(b, &vec![0.0; lv]));
        let what = format!(
            "{}: adam on 6 with buffers of {lg}, {lm} and {lv}",
            b.name()
        );
        assert_buffer_error(
            &what,
            "adam_step",
            b.adam_step(
                step(0.0, false),
                &mut p,
                &g,
                AdamMoments {
                    m: &mut m,
                    v: &mut v,
                },
            ),
        );
    }
}
