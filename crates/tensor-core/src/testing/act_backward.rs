//! The fused activation backward pass, against f64 and against its default composition.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use super::reference;
use super::unary::ACTIVATIONS;
use crate::{Activation, Backend};

/// Runs `act_backward` and returns `grad_z`.
fn run<B: Backend>(b: &B, g: &[f32], z: &[f32], act: Activation) -> Vec<f32> {
    let (dg, dz) = (up(b, g), up(b, z));
    let mut out = nan_buffer(b, z.len());
    ok(
        &format!("{}: act_backward", b.name()),
        b.act_backward(&dg, &dz, act, &mut out),
    );
    down(b, &out)
}

/// `grad_out * act'(z)` for f64: the value and its error scale.
fn reference(g: f32, z: f32, act: Activation) -> Expect {
    let d = reference::activation_grad(act, z);
    let g = f64::from(g);
    Expect::new(g * d.value, g.abs() * d.scale.max(d.value.abs()))
}

/// The fused kernel and the default composition both match f64 on every size.
pub fn matches_f64<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("act_backward");
    for &act in ACTIVATIONS {
        for n in [0, 1, 8, 231, 40_000] {
            let g = uniform(&mut r, n, -2.0, 2.0);
            let z = uniform(&mut r, n, -3.0, 3.0);
            let want: Vec<_> = g
                .iter()
                .zip(&z)
                .map(|(&g, &z)| reference(g, z, act))
                .collect();
            assert_close(
                &format!("fused act_backward {act:?} n={n}"),
                &run(b, &g, &z, act),
                &want,
                ELEMENT_TOL,
            );
            assert_close(
                &format!("composed act_backward {act:?} n={n}"),
                &run(&composed, &g, &z, act),
                &want,
                ELEMENT_TOL,
            );
        }
    }
}

/// With special values in both `grad_out` and `z`, the fused kernel agrees with the
/// default composition (NaN where it has NaN).
pub fn agrees_with_composition<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let n = SPECIALS.len();
    let g: Vec<f32> = (0..n * n).map(|i| SPECIALS[i / n]).collect();
    let z: Vec<f32> = (0..n * n).map(|i| SPECIALS[i % n]).collect();
    for &act in ACTIVATIONS {
        let scale: Vec<f64> = g
            .iter()
            .zip(&z)
            .map(|(&g, &z)| reference(g, z, act).scale)
            .collect();
        let what = format!("act_backward {act:?} on special values");
        assert_agree(
            &what,
            &run(b, &g, &z, act),
            &run(&composed, &g, &z, act),
            &scale,
            ELEMENT_TOL,
        );
    }
}

/// `grad_out` or `grad_z` of another length than `z` is refused, by the kernel and the
/// composition.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    refuse(b);
    refuse(&Composed(b.clone()));
}

fn refuse<B: Backend>(b: &B) {
    let z = up(b, &[0.0; 6]);
    for (lg, lo) in [(5, 6), (7, 6), (6, 5), (6, 7)] {
        let (g, mut out) = (up(b, &vec![0.0; lg]), up(b, &vec![0.0; lo]));
        let what = format!(
            "{}: act_backward of 6 with buffers of {lg} and {lo}",
            b.name()
        );
        assert_buffer_error(
            &what,
            "act_backward",
            b.act_backward(&g, &z, Activation::Tanh, &mut out),
        );
    }
}
