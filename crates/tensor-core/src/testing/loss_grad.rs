//! The fused losses with their gradients, against f64 and against the default composition,
//! and the loss of an empty batch.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use super::reference::sigmoid;
use crate::params::LossGrad;
use crate::{Backend, LossKind};
use rand_chacha::ChaCha8Rng;

/// Every loss.
pub const KINDS: [LossKind; 3] = [
    LossKind::Mse,
    LossKind::BceWithLogits,
    LossKind::SoftmaxCrossEntropy,
];

/// Runs `loss_grad` and returns the loss and the gradient.
fn run<B: Backend>(
    b: &B,
    kind: LossKind,
    p: &[f32],
    t: &[f32],
    rows: usize,
    cols: usize,
) -> (f32, Vec<f32>) {
    let (dp, dt) = (up(b, p), up(b, t));
    let mut grad = nan_buffer(b, p.len());
    let mut loss = up(b, &[0.0]);
    ok(
        &format!("{}: {kind:?}", b.name()),
        b.loss_grad(
            LossGrad {
                kind,
                pred: &dp,
                target: &dt,
                rows,
                cols,
            },
            &mut grad,
            &mut loss,
        ),
    );
    (down(b, &loss)[0], down(b, &grad))
}

/// Targets suited to `kind`: any values for MSE, 0/1 labels for BCE, one-hot rows (every
/// third row a uniform distribution) for softmax cross-entropy.
fn targets(r: &mut ChaCha8Rng, kind: LossKind, rows: usize, cols: usize) -> Vec<f32> {
    match kind {
        LossKind::Mse => uniform(r, rows * cols, -4.0, 4.0),
        LossKind::BceWithLogits => levels(r, rows * cols, 2),
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
    }
}

/// The loss and its gradient in f64, each with its error scale.
pub fn reference(
    kind: LossKind,
    p: &[f32],
    t: &[f32],
    rows: usize,
    cols: usize,
) -> (Expect, Vec<Expect>) {
    let n = (rows * cols) as f64;
    let f = f64::from;
    match kind {
        LossKind::Mse => {
            let (mut loss, mut grad) = (0.0, Vec::new());
            for (&p, &t) in p.iter().zip(t) {
                let d = f(p) - f(t);
                loss += d * d;
                grad.push(Expect::new(
                    2.0 * d / n,
                    2.0 * (f(p).abs() + f(t).abs()) / n,
                ));
            }
            (Expect::new(loss / n, loss / n), grad)
        }
        LossKind::BceWithLogits => {
            let (mut loss, mut mass, mut grad) = (0.0, 0.0, Vec::new());
            for (&z, &y) in p.iter().zip(t) {
                let (z, y) = (f(z), f(y));
                let sp = z.max(0.0) + (-z.abs()).exp().ln_1p();
                loss += sp - z * y;
                mass += sp + (z * y).abs();
                grad.push(Expect::new((sigmoid(z) - y) / n, 1.0 / n));
            }
            (Expect::new(loss / n, mass / n), grad)
        }
        LossKind::SoftmaxCrossEntropy => {
            let (mut loss, mut mass, mut grad) = (0.0, 0.0, Vec::new());
            let r = rows as f64;
            for (pr, tr) in p.chunks(cols).zip(t.chunks(cols)) {
                let max = pr.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(f(v)));
                let lse = pr.iter().map(|&v| (f(v) - max).exp()).sum::<f64>().ln() + max;
                for (&pv, &tv) in pr.iter().zip(tr) {
                    let logp = f(pv) - lse;
                    loss -= f(tv) * logp;
                    mass += (f(tv) * logp).abs();
                    grad.push(Expect::new((logp.exp() - f(tv)) / r, 1.0 / r));
                }
            }
            (Expect::new(loss / r, mass / r), grad)
        }
    }
}

/// The fused kernel and the default composition both match f64, loss and gradient, for
/// every loss on batches from one element to 2000 rows.
pub fn matches_f64<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("loss_grad");
    for kind in KINDS {
        for &(rows, cols) in &[
            (1, 1),
            (4, 1),
            (4, 2),
            (7, 33),
            (300, 130),
            (2000, 10),
            (1, 50_003),
        ] {
            let p = uniform(&mut r, rows * cols, -4.0, 4.0);
            let t = targets(&mut r, kind, rows, cols);
            let (want_loss, want_grad) = reference(kind, &p, &t, rows, cols);
            for (name, (loss, grad)) in [
                ("fused", run(b, kind, &p, &t, rows, cols)),
                ("composed", run(&composed, kind, &p, &t, rows, cols)),
            ] {
                let what = format!("{name} {kind:?} {rows}x{cols}");
                assert_close(&format!("{what}: loss"), &[loss], &[want_loss], SUM_TOL);
                assert_close(&format!("{what}: gradient"), &grad, &want_grad, ELEMENT_TOL);
            }
        }
    }
}

/// The loss of an empty batch (no rows, or rows of nothing) is NaN, the mean over zero
/// elements, on the fused path and the composed one alike.
pub fn empty_batch_loss_is_nan<B: Backend>(b: &B) {
    for kind in KINDS {
        for (rows, cols) in [(0, 1), (0, 10), (3, 0), (0, 0)] {
            for (name, loss) in [
                ("fused", run(b, kind, &[], &[], rows, cols).0),
                (
                    "composed",
                    run(&Composed(b.clone()), kind, &[], &[], rows, cols).0,
                ),
            ] {
                assert!(
                    loss.is_nan(),
                    "{name} {kind:?} of a {rows}x{cols} batch: {loss}, expected NaN"
                );
            }
        }
    }
}

/// With NaN and large logits among the predictions, the fused kernel agrees with the
/// default composition: the same NaNs in the gradient, a NaN loss.
pub fn agrees_with_composition<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("loss specials");
    let (rows, cols) = (40, 5);
    for kind in KINDS {
        let mut p = uniform(&mut r, rows * cols, -4.0, 4.0);
        sprinkle(&mut p, &[100.0, -100.0, 88.0, -88.0, 1e30], 12, &mut r);
        let t = targets(&mut r, kind, rows, cols);
        let (want_loss, want) = reference(kind, &p, &t, rows, cols);
        let scale: Vec<f64> = want.iter().map(|e| e.scale).collect();
        let (fl, fg) = run(b, kind, &p, &t, rows, cols);
        let (cl, cg) = run(&composed, kind, &p, &t, rows, cols);
        assert_agree(
            &format!("{kind:?} with large logits: gradient"),
            &fg,
            &cg,
            &scale,
            ELEMENT_TOL,
        );
        assert_agree(
            &format!("{kind:?} with large logits: loss"),
            &[fl],
            &[cl],
            &[want_loss.scale],
            SUM_TOL,
        );
        p[17] = f32::NAN;
        let (fl, fg) = run(b, kind, &p, &t, rows, cols);
        let (cl, cg) = run(&composed, kind, &p, &t, rows, cols);
        assert!(
            fl.is_nan() && cl.is_nan(),
            "{kind:?} with a NaN prediction: loss {fl} and {cl}"
        );
        assert_agree(
            &format!("{kind:?} with a NaN prediction: gradient"),
            &fg,
            &cg,
            &scale,
            ELEMENT_TOL,
        );
    }
}

/// Buffers of the wrong length (a loss of other than one element included) are refused,
/// by the kernel and the composition.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    refuse(b);
    refuse(&Composed(b.clone()));
}

fn refuse<B: Backend>(b: &B) {
    for (lp, lt, lg, ll) in [
        (5, 6, 6, 1),
        (6, 7, 6, 1),
        (6, 6, 5, 1),
        (6, 6, 6, 0),
        (6, 6, 6, 2),
        (0, 0, 0, 0),
    ] {
        let (p, t) = (up(b, &vec![0.0; lp]), up(b, &vec![0.0; lt]));
        let (mut g, mut l) = (up(b, &vec![0.0; lg]), up(b, &vec![0.0; ll]));
        let (rows, cols) = if lp == 0 { (0, 3) } else { (2, 3) };
        let what = format!(
            "{}: loss of {rows}x{cols} with buffers of {lp}, {lt}, {lg} and {ll}",
            b.name()
        );
        for kind in KINDS {
            assert_buffer_error(
                &what,
                "loss_grad",
                b.loss_grad(
                    LossGrad {
                        kind,
                        pred: &p,
                        target: &t,
                        rows,
                        cols,
                    },
                    &mut g,
                    &mut l,
                ),
            );
        }
    }
}
