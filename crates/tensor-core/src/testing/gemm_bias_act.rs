//! Matrix products with a fused epilogue (`gemm_bias_act`, `gemm_act_grad`): against f64,
//! against their default composition (a product into a buffer, then `bias_act` or
//! `act_backward`), and their refusals.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use super::reference;
use super::unary::ACTIVATIONS;
use crate::params::{GemmActGrad, GemmBiasAct};
use crate::{Activation, Backend, Error, Gemm};
use rand_chacha::ChaCha8Rng;

/// `(m, k, n)`: tiny, odd, blocked, and one long dimension with two short ones (each
/// direction, partial tiles, a long shared dimension).
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (7, 33, 5),
    (300, 100, 200),
    (1000, 64, 64),
    (777, 32, 19),
    (1537, 64, 3),
    (37, 64, 2050),
    (64, 1000, 64),
    (33, 17000, 37),
];

const TRANSPOSES: [(bool, bool); 4] = [(false, true), (true, false), (false, false), (true, true)];

/// Activations with a derivative of magnitude at most 1, so an error of the product
/// carries through with the product's own scale.
const GENTLE: &[Activation] = &[
    Activation::Identity,
    Activation::Relu,
    Activation::Tanh,
    Activation::Sigmoid,
];

fn spec(m: usize, n: usize, k: usize, trans_a: bool, trans_b: bool, alpha: f32) -> Gemm {
    Gemm {
        m,
        n,
        k,
        trans_a,
        trans_b,
        alpha,
        beta: 0.0,
    }
}

/// Inputs of one product: `A`, `B`, a bias of `n` and a matrix of `m x n` (every fifth
/// value of which is 0 or -0, where ReLU's derivative is 0).
fn inputs(r: &mut ChaCha8Rng, (m, k, n): (usize, usize, usize)) -> [Vec<f32>; 4] {
    let mut at = uniform(r, m * n, -2.0, 2.0);
    for (i, v) in at.iter_mut().enumerate().step_by(5) {
        *v = if i % 2 == 0 { 0.0 } else { -0.0 };
    }
    [
        uniform(r, m * k, -1.0, 1.0),
        uniform(r, k * n, -1.0, 1.0),
        uniform(r, n, -1.0, 1.0),
        at,
    ]
}

fn run_bias_act<B: Backend>(b: &B, s: Gemm, x: &[Vec<f32>; 4], act: Activation) -> Vec<f32> {
    let (da, db, dbias) = (up(b, &x[0]), up(b, &x[1]), up(b, &x[2]));
    let mut dc = nan_buffer(b, s.m * s.n);
    let what = format!("{}: gemm_bias_act {s:?} {act:?}", b.name());
    ok(
        &what,
        b.gemm_bias_act(
            GemmBiasAct {
                gemm: s,
                a: &da,
                b: &db,
                bias: &dbias,
                act,
            },
            &mut dc,
        ),
    );
    down(b, &dc)
}

fn run_act_grad<B: Backend>(b: &B, s: Gemm, x: &[Vec<f32>; 4], act: Activation) -> Vec<f32> {
    let (da, db, dat) = (up(b, &x[0]), up(b, &x[1]), up(b, &x[3]));
    let mut dc = nan_buffer(b, s.m * s.n);
    let what = format!("{}: gemm_act_grad {s:?} {act:?}", b.name());
    ok(
        &what,
        b.gemm_act_grad(
            GemmActGrad {
                gemm: s,
                a: &da,
                b: &db,
                at: &dat,
                act,
            },
            &mut dc,
        ),
    );
    down(b, &dc)
}

/// `act` of an f64 value, for the activations of [`GENTLE`].
fn act_f64(act: Activation, z: f64) -> f64 {
    match act {
        Activation::Relu => z.max(0.0),
        Activation::Tanh => z.tanh(),
        Activation::Sigmoid => reference::sigmoid(z),
        _ => z,
    }
}

/// `act(alpha op(A) op(B) + bias)` matches f64 for every shape, transpose and gentle
/// activation, with `alpha` 1 and -0.5.
pub fn bias_act_matches_f64<B: Backend>(b: &B) {
    let mut r = rng("gemm_bias_act");
    for &(m, k, n) in SHAPES {
        for (ta, tb) in TRANSPOSES {
            let x = inputs(&mut r, (m, k, n));
            for (&act, alpha) in GENTLE.iter().zip([1.0, -0.5, 1.0, -0.5]) {
                let s = spec(m, n, k, ta, tb, alpha);
                let want: Vec<Expect> = reference::gemm(s, &x[0], &x[1], &[])
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let bias = f64::from(x[2][i % n]);
                        Expect::new(act_f64(act, e.value + bias), e.scale + bias.abs())
                    })
                    .collect();
                let what = format!("gemm_bias_act {s:?} {act:?}");
                assert_close(&what, &run_bias_act(b, s, &x, act), &want, SUM_TOL);
            }
        }
    }
}

/// `(alpha op(A) op(B)) * act'(at)` matches f64 for every shape, transpose and
/// activation.
pub fn act_grad_matches_f64<B: Backend>(b: &B) {
    let mut r = rng("gemm_act_grad");
    for &(m, k, n) in SHAPES {
        for (ta, tb) in TRANSPOSES {
            let x = inputs(&mut r, (m, k, n));
            for &act in ACTIVATIONS {
                let s = spec(m, n, k, ta, tb, 1.0);
                let want: Vec<Expect> = reference::gemm(s, &x[0], &x[1], &[])
                    .into_iter()
                    .zip(&x[3])
                    .map(|(e, &at)| {
                        let d = reference::activation_grad(act, at);
                        let scale = e.scale * d.value.abs() + e.value.abs() * d.scale;
                        Expect::new(e.value * d.value, scale)
                    })
                    .collect();
                let what = format!("gemm_act_grad {s:?} {act:?}");
                assert_close(&what, &run_act_grad(b, s, &x, act), &want, SUM_TOL);
            }
        }
    }
}

/// Both fused products give what their default composition gives, for every activation,
/// with NaN and infinities among the inputs.
pub fn agree_with_composition<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("gemm fused composition");
    for &(m, k, n) in &[(7, 33, 5), (1000, 64, 64), (1537, 64, 3), (64, 1000, 64)] {
        let mut x = inputs(&mut r, (m, k, n));
        sprinkle(&mut x[0], &[f32::NAN, f32::INFINITY], 2, &mut r);
        sprinkle(&mut x[3], &[f32::NAN, 0.0, -0.0], 3, &mut r);
        for &act in ACTIVATIONS {
            let s = spec(m, n, k, false, true, 1.0);
            let scale: Vec<f64> = reference::gemm(s, &x[0], &x[1], &[])
                .iter()
                .map(|e| e.scale + 1.0)
                .collect();
            let w0 = match act {
                Activation::Sine { w0 } => f64::from(w0),
                _ => 1.0,
            };
            let wide: Vec<f64> = scale.iter().map(|s| s * w0).collect();
            let what = format!("gemm_bias_act {s:?} {act:?} against its composition");
            let (got, want) = (
                run_bias_act(b, s, &x, act),
                run_bias_act(&composed, s, &x, act),
            );
            assert_agree(&what, &got, &want, &wide, SUM_TOL);
            let what = format!("gemm_act_grad {s:?} {act:?} against its composition");
            let (got, want) = (
                run_act_grad(b, s, &x, act),
                run_act_grad(&composed, s, &x, act),
            );
            assert_agree(&what, &got, &want, &scale, SUM_TOL);
        }
    }
}

/// A `beta` other than 0 is an invalid argument; buffers of the wrong length are buffer
/// errors; nothing is computed either way.
pub fn refuse_bad_calls<B: Backend>(b: &B) {
    let (m, k, n) = (4, 3, 5);
    let (a, bm) = (up(b, &[1.0; 12]), up(b, &[1.0; 15]));
    let mut c = up(b, &[0.0; 20]);
    let relu = Activation::Relu;
    let mut s = spec(m, n, k, false, false, 1.0);
    s.beta = 1.0;
    let invalid = |e: &Error| matches!(e, Error::InvalidArgument { .. });
    let bias = up(b, &[0.0; 5]);
    let at = up(b, &[0.0; 20]);
    assert_error(
        "gemm_bias_act with beta 1",
        b.gemm_bias_act(
            GemmBiasAct {
                gemm: s,
                a: &a,
                b: &bm,
                bias: &bias,
                act: relu,
            },
            &mut c,
        ),
        invalid,
    );
    assert_error(
        "gemm_act_grad with beta 1",
        b.gemm_act_grad(
            GemmActGrad {
                gemm: s,
                a: &a,
                b: &bm,
                at: &at,
                act: relu,
            },
            &mut c,
        ),
        invalid,
    );
    s.beta = 0.0;
    let short_bias = up(b, &[0.0; 4]);
    let short_at = up(b, &[0.0; 19]);
    let what = "gemm_bias_act with a bias of 4 for 5 columns";
    let got = b.gemm_bias_act(
        GemmBiasAct {
            gemm: s,
            a: &a,
            b: &bm,
            bias: &short_bias,
            act: relu,
        },
        &mut c,
    );
    assert_buffer_error(what, "gemm_bias_act", got);
    let what = "gemm_act_grad with 19 values at 20 elements";
    let got = b.gemm_act_grad(
        GemmActGrad {
            gemm: s,
            a: &a,
            b: &bm,
            at: &short_at,
            act: relu,
        },
        &mut c,
    );
    assert_buffer_error(what, "gemm_act_grad", got);
    let mut short_c = up(b, &[0.0; 19]);
    let what = "gemm_bias_act into 19 values";
    let got = b.gemm_bias_act(
        GemmBiasAct {
            gemm: s,
            a: &a,
            b: &bm,
            bias: &bias,
            act: relu,
        },
        &mut short_c,
    );
    assert_buffer_error(what, "gemm_bias_act", got);
}
