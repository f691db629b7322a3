//! Unary and broadcasting binary operations.

use crate::common::*;
use tensor_core::{Activation, Backend, BinaryOp, Error, Shape, UnaryOp};

/// A unary op, the input range it is tested on, and its tolerance.
struct UnaryCase {
    op: UnaryOp,
    lo: f32,
    hi: f32,
    rtol: f64,
    atol: f64,
}

fn case(op: UnaryOp, lo: f32, hi: f32) -> UnaryCase {
    UnaryCase {
        op,
        lo,
        hi,
        rtol: 4e-6,
        atol: 2e-6,
    }
}

const ACTIVATIONS: [Activation; 6] = [
    Activation::Identity,
    Activation::Sigmoid,
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu { alpha: 0.1 },
    Activation::Sine { w0: 30.0 },
];

fn unary_cases() -> Vec<UnaryCase> {
    let mut cases = vec![
        case(UnaryOp::Neg, -5.0, 5.0),
        case(UnaryOp::Exp, -10.0, 10.0),
        case(UnaryOp::Ln, 1e-3, 100.0),
        case(UnaryOp::Sqrt, 0.0, 100.0),
        case(UnaryOp::Abs, -5.0, 5.0),
        case(UnaryOp::Sin, -10.0, 10.0),
        case(UnaryOp::Cos, -10.0, 10.0),
        case(UnaryOp::Powf(2.5), 0.0, 4.0),
        case(UnaryOp::Powf(-1.5), 0.1, 4.0),
        case(UnaryOp::Square, -5.0, 5.0),
        case(UnaryOp::Recip, 0.1, 10.0),
        case(
            UnaryOp::Clamp {
                min: -0.5,
                max: 0.75,
            },
            -2.0,
            2.0,
        ),
        case(
            UnaryOp::Affine {
                scale: 1.5,
                shift: -0.25,
            },
            -5.0,
            5.0,
        ),
        case(UnaryOp::Softplus, -30.0, 30.0),
        case(UnaryOp::Step, -2.0, 2.0),
    ];
    for act in ACTIVATIONS {
        let (lo, hi) = match act {
            Activation::Sine { .. } => (-1.0, 1.0),
            _ => (-8.0, 8.0),
        };
        cases.push(case(UnaryOp::Act(act), lo, hi));
        let mut grad = case(UnaryOp::ActGrad(act), lo, hi);
        // 1 - tanh^2 and s (1 - s) cancel near saturation: an error of 1e-6 in tanh or the
        // sigmoid becomes an absolute error of up to 2e-6 in the derivative.
        grad.atol = 5e-6;
        if let Activation::Sine { w0 } = act {
            // w0 cos(w0 x): the absolute error scales with w0.
            grad.atol *= f64::from(w0);
        }
        cases.push(grad);
    }
    cases
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn unary_ops_match_the_cpu() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("unary");
    for n in SIZES {
        for k in unary_cases() {
            let x = uniform(&mut rng, n, k.lo, k.hi);
            let xs = g.upload(&x).unwrap();
            let mut out = g.alloc(n).unwrap();
            g.unary(k.op, &xs, &mut out).unwrap();
            let got = g.download(&out).unwrap();
            let want = cpu_unary(&c, k.op, &x);
            assert_close(&format!("{:?}, n = {n}", k.op), &got, &want, k.rtol, k.atol);

            let mut inplace = g.upload(&x).unwrap();
            g.unary_assign(k.op, &mut inplace).unwrap();
            assert_eq!(
                g.download(&inplace).unwrap(),
                got,
                "{:?} in place, n = {n}",
                k.op
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn unary_special_values_follow_the_reference() {
    let g = gpu();
    let x = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-30,
        -1e30,
        88.0,
        -88.0,
        100.0,
    ];
    let xs = g.upload(&x).unwrap();
    let mut out = g.alloc(x.len()).unwrap();
    for k in unary_cases() {
        g.unary(k.op, &xs, &mut out).unwrap();
        let got = g.download(&out).unwrap();
        let want: Vec<f32> = x.iter().map(|&v| k.op.apply(v)).collect();
        assert_close(
            &format!("{:?} on special values", k.op),
            &got,
            &want,
            1e-5,
            1e-6,
        );
    }
}

const BINARY_OPS: [BinaryOp; 12] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Pow,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Eq,
];

/// Operand shapes covering every broadcasting path: same shape, scalars on either side,
/// row and column broadcasts, outer products, rank differences, and up to 7 dimensions.
fn shape_pairs() -> Vec<(Shape, Shape)> {
    let pairs: &[(&[usize], &[usize])] = &[
        (&[7], &[7]),
        (&[1], &[33]),
        (&[33], &[1]),
        (&[], &[1000]),
        (&[1000], &[]),
        (&[1000, 33], &[33]),
        (&[33], &[1000, 33]),
        (&[1000, 33], &[1000, 1]),
        (&[1000, 1], &[1000, 33]),
        (&[1000, 1], &[1, 33]),
        (&[4, 1, 3], &[5, 1]),
        (&[2, 3, 4, 5], &[3, 1, 5]),
        (&[1, 1, 7], &[7, 1, 1]),
        (&[2, 1, 3, 1, 2, 1, 2], &[1, 2, 1, 3, 1, 2, 1]),
        (&[(1 << 20) + 3], &[(1 << 20) + 3]),
        (&[4099, 257], &[257]),
        (&[4099, 257], &[4099, 1]),
    ];
    pairs
        .iter()
        .map(|(a, b)| (Shape::new(*a), Shape::new(*b)))
        .collect()
}

/// Operands suited to `op`: positive bases for Pow, divisors away from 0, small integers
/// for comparisons (so that ties occur).
fn operands(
    rng: &mut rand_chacha::ChaCha8Rng,
    op: BinaryOp,
    na: usize,
    nb: usize,
) -> (Vec<f32>, Vec<f32>) {
    match op {
        BinaryOp::Pow => (uniform(rng, na, 0.5, 2.0), uniform(rng, nb, -2.0, 2.0)),
        BinaryOp::Div => (uniform(rng, na, -2.0, 2.0), uniform(rng, nb, 0.5, 2.0)),
        BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Eq => {
            (levels(rng, na, 4), levels(rng, nb, 4))
        }
        _ => (uniform(rng, na, -2.0, 2.0), uniform(rng, nb, -2.0, 2.0)),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn binary_ops_broadcast_like_the_cpu() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("binary");
    for (sa, sb) in shape_pairs() {
        let so = sa.broadcast(&sb, "test").unwrap();
        for op in BINARY_OPS {
            let (a, b) = operands(&mut rng, op, sa.numel(), sb.numel());
            let (ga, gb) = (g.upload(&a).unwrap(), g.upload(&b).unwrap());
            let mut out = g.alloc(so.numel()).unwrap();
            g.binary(op, &ga, &sa, &gb, &sb, &mut out, &so).unwrap();
            let got = g.download(&out).unwrap();
            let want = cpu_binary(&c, op, &a, &sa, &b, &sb);
            let rtol = if op == BinaryOp::Pow { 4e-6 } else { 0.0 };
            assert_close(&format!("{op:?} {sa} with {sb}"), &got, &want, rtol, 0.0);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn binary_assign_broadcasts_into_the_left_operand() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("binary_assign");
    let pairs: &[(&[usize], &[usize])] = &[
        (&[1000, 33], &[33]),
        (&[1000, 33], &[1000, 1]),
        (&[7], &[]),
        (&[7], &[7]),
        (&[2, 3, 4, 5], &[3, 1, 5]),
    ];
    for (sa, sb) in pairs {
        let (sa, sb) = (Shape::new(*sa), Shape::new(*sb));
        for op in [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Maximum,
        ] {
            let (a, b) = operands(&mut rng, op, sa.numel(), sb.numel());
            let mut ga = g.upload(&a).unwrap();
            let gb = g.upload(&b).unwrap();
            g.binary_assign(op, &mut ga, &sa, &gb, &sb).unwrap();
            let want = cpu_binary(&c, op, &a, &sa, &b, &sb);
            assert_close(
                &format!("{op:?}= {sa} with {sb}"),
                &g.download(&ga).unwrap(),
                &want,
                0.0,
                0.0,
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn binary_rejects_bad_shapes_and_lengths() {
    let g = gpu();
    let a = g.upload(&[1.0; 6]).unwrap();
    let b = g.upload(&[1.0; 3]).unwrap();
    let mut out = g.alloc(6).unwrap();
    let (s23, s3) = (Shape::new([2, 3]), Shape::new([3]));
    let err = g.binary(
        BinaryOp::Add,
        &a,
        &s23,
        &b,
        &s3,
        &mut out,
        &Shape::new([3, 2]),
    );
    assert!(matches!(err, Err(Error::ShapeMismatch { .. })), "{err:?}");
    let err = g.binary(
        BinaryOp::Add,
        &a,
        &s23,
        &b,
        &Shape::new([4]),
        &mut out,
        &s23,
    );
    assert!(matches!(err, Err(Error::InvalidArgument { .. })), "{err:?}");
    let mut small = g.upload(&[1.0; 3]).unwrap();
    let err = g.binary_assign(BinaryOp::Add, &mut small, &s3, &a, &s23);
    assert!(matches!(err, Err(Error::Broadcast { .. })), "{err:?}");
    let mut short = g.alloc(5).unwrap();
    let err = g.unary(UnaryOp::Neg, &a, &mut short);
    assert!(matches!(err, Err(Error::InvalidArgument { .. })), "{err:?}");
}
