//! Element-wise operations of one operand, activations and their derivatives included.

use super::compare::*;
use super::data::*;
use super::reference;
use crate::{Activation, Backend, UnaryOp};

/// Every activation, with SIREN's frequency both large and 1.
pub const ACTIVATIONS: &[Activation] = &[
    Activation::Identity,
    Activation::Sigmoid,
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu { alpha: 0.1 },
    Activation::Sine { w0: 30.0 },
    Activation::Sine { w0: 1.0 },
];

/// Every unary operation with the input range it is checked on.
pub fn ops() -> Vec<(UnaryOp, f32, f32)> {
    let mut ops = vec![
        (UnaryOp::Neg, -5.0, 5.0),
        (UnaryOp::Exp, -20.0, 20.0),
        (UnaryOp::Ln, 1e-3, 50.0),
        (UnaryOp::Sqrt, 0.0, 50.0),
        (UnaryOp::Abs, -5.0, 5.0),
        (UnaryOp::Sin, -100.0, 100.0),
        (UnaryOp::Cos, -100.0, 100.0),
        (UnaryOp::Powf(2.5), 0.01, 5.0),
        (UnaryOp::Powf(-1.5), 0.1, 5.0),
        (UnaryOp::Square, -5.0, 5.0),
        (UnaryOp::Recip, 0.1, 5.0),
        (
            UnaryOp::Clamp {
                min: -1.0,
                max: 2.0,
            },
            -5.0,
            5.0,
        ),
        (
            UnaryOp::Affine {
                scale: -1.7,
                shift: 0.3,
            },
            -5.0,
            5.0,
        ),
        (UnaryOp::Softplus, -30.0, 30.0),
        (UnaryOp::Step, -5.0, 5.0),
    ];
    for &a in ACTIVATIONS {
        ops.push((UnaryOp::Act(a), -6.0, 6.0));
        ops.push((UnaryOp::ActGrad(a), -6.0, 6.0));
    }
    ops
}

/// Runs `op` out of place on `x`.
fn run<B: Backend>(b: &B, op: UnaryOp, x: &[f32]) -> Vec<f32> {
    let xs = up(b, x);
    let mut out = nan_buffer(b, x.len());
    ok(&format!("unary {op:?}"), b.unary(op, &xs, &mut out));
    down(b, &out)
}

/// Every operation matches its f64 definition on every size.
pub fn every_op_matches_f64<B: Backend>(b: &B) {
    let mut r = rng("unary");
    for (op, lo, hi) in ops() {
        for &n in SIZES {
            let x = uniform(&mut r, n, lo, hi);
            let want: Vec<_> = x.iter().map(|&v| reference::unary(op, v)).collect();
            assert_close(
                &format!("{op:?} of {n}"),
                &run(b, op, &x),
                &want,
                ELEMENT_TOL,
            );
        }
    }
}

/// `unary_assign` gives the same bits as `unary`.
pub fn in_place_matches_out_of_place<B: Backend>(b: &B) {
    let mut r = rng("unary in place");
    for (op, lo, hi) in ops() {
        for &n in &SIZES[..7] {
            let x = uniform(&mut r, n, lo, hi);
            let out = run(b, op, &x);
            let mut xs = up(b, &x);
            ok("unary_assign", b.unary_assign(op, &mut xs));
            assert_same_bits(&format!("{op:?} of {n} in place"), &down(b, &xs), &out);
        }
    }
}

/// Signed zeros, tiny and huge values, infinities and NaN follow the definitions: NaN in,
/// NaN out (ReLU and clamp included), except where a comparison decides (`Step`, the
/// derivatives of ReLU and leaky ReLU).
pub fn special_values_follow_the_definitions<B: Backend>(b: &B) {
    let mut ops = ops();
    ops.push((UnaryOp::Powf(2.0), 0.0, 0.0));
    ops.push((UnaryOp::Powf(0.0), 0.0, 0.0));
    for (op, _, _) in ops {
        let want: Vec<_> = SPECIALS.iter().map(|&v| reference::unary(op, v)).collect();
        let got = run(b, op, SPECIALS);
        assert_close(&format!("{op:?} of {SPECIALS:?}"), &got, &want, ELEMENT_TOL);
    }
}

/// Sine and cosine (and SIREN's activation and derivative) stay exact when huge and
/// non-finite arguments are scattered through a large buffer of ordinary ones.
pub fn trig_of_scattered_huge_arguments<B: Backend>(b: &B) {
    let mut r = rng("trig");
    let mut x = uniform(&mut r, 50_003, -50.0, 50.0);
    let huge = [
        1e5,
        -3e7,
        1e30,
        f32::MAX,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    sprinkle(&mut x, &huge, 40, &mut r);
    let sine = Activation::Sine { w0: 30.0 };
    for op in [
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Act(sine),
        UnaryOp::ActGrad(sine),
    ] {
        let want: Vec<_> = x.iter().map(|&v| reference::unary(op, v)).collect();
        assert_close(&format!("{op:?}"), &run(b, op, &x), &want, ELEMENT_TOL);
    }
}

/// An output of the wrong length is refused.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    let x = up(b, &[1.0; 6]);
    for n in [0, 5, 7] {
        let mut out = up(b, &vec![0.0; n]);
        let r = b.unary(UnaryOp::Exp, &x, &mut out);
        assert_buffer_error(&format!("unary of 6 into {n}"), "unary", r);
    }
}
