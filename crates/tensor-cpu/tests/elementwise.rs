//! Unary and same-shape binary operations of `Tensor<CpuBackend>` against f64 references,
//! on awkward shapes on both sides of the parallel threshold. Tolerances: see
//! `common/mod.rs`.

mod common;

use common::*;
use tensor_core::{Activation, BinaryOp, Tensor, UnaryOp};

/// Shapes: single element, row, column, odd matrix, 1000+, just below and above the
/// parallel threshold, and empty.
const SHAPES: &[&[usize]] = &[
    &[1, 1],
    &[1, 33],
    &[33, 1],
    &[7, 33],
    &[1201],
    &[181, 181],
    &[41, 1000],
    &[0],
    &[3, 0],
];

const ACTIVATIONS: &[Activation] = &[
    Activation::Identity,
    Activation::Sigmoid,
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu { alpha: 0.1 },
    Activation::Sine { w0: 30.0 },
];

fn sigmoid64(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The f64 value of an activation at an f32 input, and the magnitude its error is
/// relative to. The SIREN argument `w0 * x` is rounded to f32 first, as the operation
/// defines it.
fn act_ref(a: Activation, x: f32) -> (f64, f64) {
    let v = x as f64;
    match a {
        Activation::Identity => (v, v.abs()),
        Activation::Sigmoid => (sigmoid64(v), sigmoid64(v)),
        Activation::Tanh => (v.tanh(), v.tanh().abs()),
        Activation::Relu => (v.max(0.0), v.abs()),
        Activation::LeakyRelu { alpha } => {
            let r = if v > 0.0 { v } else { alpha as f64 * v };
            (r, r.abs())
        }
        Activation::Sine { w0 } => (((w0 * x) as f64).sin(), 1.0),
    }
}

/// The f64 derivative of an activation and the magnitude its error is relative to (the
/// derivative's largest value, where `1 - s` or `1 - t^2` cancels).
fn act_grad_ref(a: Activation, x: f32) -> (f64, f64) {
    let v = x as f64;
    match a {
        Activation::Identity => (1.0, 1.0),
        Activation::Sigmoid => (sigmoid64(v) * (1.0 - sigmoid64(v)), 0.25),
        Activation::Tanh => (1.0 - v.tanh().powi(2), 1.0),
        Activation::Relu => (if v > 0.0 { 1.0 } else { 0.0 }, 1.0),
        Activation::LeakyRelu { alpha } => (if v > 0.0 { 1.0 } else { alpha as f64 }, 1.0),
        Activation::Sine { w0 } => (w0 as f64 * ((w0 * x) as f64).cos(), w0 as f64),
    }
}

/// The f64 value of `op` at `x` and the magnitude its error is relative to.
fn unary_ref(op: UnaryOp, x: f32) -> (f64, f64) {
    let v = x as f64;
    let rel = |r: f64| (r, r.abs());
    match op {
        UnaryOp::Neg => rel(-v),
        UnaryOp::Exp => rel(v.exp()),
        UnaryOp::Ln => (v.ln(), v.ln().abs().max(1.0)),
        UnaryOp::Sqrt => rel(v.sqrt()),
        UnaryOp::Abs => rel(v.abs()),
        UnaryOp::Sin => (v.sin(), 1.0),
        UnaryOp::Cos => (v.cos(), 1.0),
        UnaryOp::Powf(p) => rel(v.powf(p as f64)),
        UnaryOp::Square => rel(v * v),
        UnaryOp::Recip => rel(1.0 / v),
        UnaryOp::Clamp { min, max } => rel(v.max(min as f64).min(max as f64)),
        UnaryOp::Affine { scale, shift } => (
            v * scale as f64 + shift as f64,
            (v * scale as f64).abs() + shift.abs() as f64,
        ),
        UnaryOp::Softplus => rel(v.max(0.0) + (-v.abs()).exp().ln_1p()),
        UnaryOp::Step => (if v > 0.0 { 1.0 } else { 0.0 }, 1.0),
        UnaryOp::Act(a) => act_ref(a, x),
        UnaryOp::ActGrad(a) => act_grad_ref(a, x),
    }
}

/// Every unary operation with the input range it is defined (and tested) on.
fn unary_ops() -> Vec<(UnaryOp, f32, f32)> {
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

#[test]
fn every_unary_op_matches_f64_on_every_shape() {
    let mut r = rng(1);
    for (op, lo, hi) in unary_ops() {
        for dims in SHAPES {
            let x = rand_tensor(&mut r, dims, lo, hi);
            let xs = host(&x);
            let (want, scale): (Vec<f64>, Vec<f64>) = xs.iter().map(|&v| unary_ref(op, v)).unzip();
            let what = format!("{op:?} on {dims:?}");
            let got = host(&x.unary(op).unwrap());
            assert_close_scaled(&got, &want, &scale, ELEMENT_TOL, &what);
            assert_eq!(x.unary(op).unwrap().dims(), *dims);
            // `_into` and in-place variants give the same bits.
            let mut out = Tensor::zeros(&cpu(), *dims).unwrap();
            x.unary_into(op, &mut out).unwrap();
            assert_bits_eq(&host(&out), &got, &what);
            let mut y = x.try_clone().unwrap();
            y.unary_assign(op).unwrap();
            assert_bits_eq(&host(&y), &got, &what);
        }
    }
}

#[test]
fn named_unary_methods_are_their_ops() {
    let mut r = rng(2);
    let x = rand_tensor(&mut r, &[7, 33], 0.1, 3.0);
    let same = |t: Tensor<_>, op: UnaryOp| {
        assert_bits_eq(&host(&t), &host(&x.unary(op).unwrap()), &format!("{op:?}"))
    };
    same(x.neg().unwrap(), UnaryOp::Neg);
    same(x.exp().unwrap(), UnaryOp::Exp);
    same(x.ln().unwrap(), UnaryOp::Ln);
    same(x.sqrt().unwrap(), UnaryOp::Sqrt);
    same(x.abs().unwrap(), UnaryOp::Abs);
    same(x.sin().unwrap(), UnaryOp::Sin);
    same(x.cos().unwrap(), UnaryOp::Cos);
    same(x.square().unwrap(), UnaryOp::Square);
    same(x.recip().unwrap(), UnaryOp::Recip);
    same(x.tanh().unwrap(), UnaryOp::Act(Activation::Tanh));
    same(x.sigmoid().unwrap(), UnaryOp::Act(Activation::Sigmoid));
    same(x.relu().unwrap(), UnaryOp::Act(Activation::Relu));
    same(x.softplus().unwrap(), UnaryOp::Softplus);
    same(
        x.leaky_relu(0.2).unwrap(),
        UnaryOp::Act(Activation::LeakyRelu { alpha: 0.2 }),
    );
    same(
        x.activation(Activation::Sine { w0: 3.0 }).unwrap(),
        UnaryOp::Act(Activation::Sine { w0: 3.0 }),
    );
    same(x.powf(1.5).unwrap(), UnaryOp::Powf(1.5));
    same(
        x.clamp(0.5, 1.0).unwrap(),
        UnaryOp::Clamp { min: 0.5, max: 1.0 },
    );
    same(
        x.affine(2.0, 1.0).unwrap(),
        UnaryOp::Affine {
            scale: 2.0,
            shift: 1.0,
        },
    );
    let mut y = x.try_clone().unwrap();
    y.scale_assign(-3.0).unwrap();
    same(
        y,
        UnaryOp::Affine {
            scale: -3.0,
            shift: 0.0,
        },
    );
}

#[test]
fn sigmoid_tanh_and_softplus_are_stable_at_extremes() {
    let xs = [-1e4f32, -100.0, -88.0, -20.0, 0.0, 20.0, 88.0, 100.0, 1e4];
    let x = Tensor::from_slice(&cpu(), &xs, [xs.len()]).unwrap();
    let s = host(&x.sigmoid().unwrap());
    let t = host(&x.tanh().unwrap());
    let sp = host(&x.softplus().unwrap());
    for (i, &v) in xs.iter().enumerate() {
        assert!(
            !s[i].is_nan() && !t[i].is_nan() && !sp[i].is_nan(),
            "NaN at {v}"
        );
        assert!((0.0..=1.0).contains(&s[i]) && (-1.0..=1.0).contains(&t[i]));
        assert!(
            sp[i] >= 0.0 && sp[i].is_finite(),
            "softplus({v}) = {}",
            sp[i]
        );
    }
    assert_eq!((s[7], s[8], s[4]), (1.0, 1.0, 0.5));
    assert!(s[1] < 1e-40 && s[0] == 0.0);
    assert_eq!((t[0], t[1], t[7], t[8], t[4]), (-1.0, -1.0, 1.0, 1.0, 0.0));
    assert_eq!((sp[7], sp[8]), (100.0, 1e4));
    assert!(sp[1] < 1e-40);
    let g = host(&x.unary(UnaryOp::ActGrad(Activation::Sigmoid)).unwrap());
    assert!(g.iter().all(|v| v.is_finite() && *v >= 0.0));
    assert!(g[1] < 1e-40 && g[7] == 0.0);
}

#[test]
fn sine_handles_huge_and_non_finite_arguments() {
    // Mostly in-range values with a few that take the slow path, in a tensor large enough
    // to run in parallel: every element still matches f64.
    let mut r = rng(3);
    let mut xs = uniform(&mut r, 50_000, -50.0, 50.0);
    for (i, v) in [
        (10, 1e5f32),
        (300, -3e7),
        (40_000, 1e30),
        (49_999, f32::MAX),
    ] {
        xs[i] = v;
    }
    xs[20] = f32::NAN;
    xs[21] = f32::INFINITY;
    xs[22] = f32::NEG_INFINITY;
    let x = Tensor::from_slice(&cpu(), &xs, [xs.len()]).unwrap();
    for (op, f) in [
        (UnaryOp::Sin, f64::sin as fn(f64) -> f64),
        (UnaryOp::Cos, f64::cos),
    ] {
        let got = host(&x.unary(op).unwrap());
        let want: Vec<f64> = xs.iter().map(|&v| f(v as f64)).collect();
        assert_close_scaled(&got, &want, &[], ELEMENT_TOL, &format!("{op:?}"));
    }
    let sine = Activation::Sine { w0: 30.0 };
    let got = host(&x.activation(sine).unwrap());
    for (i, &v) in xs.iter().enumerate() {
        let want = ((30.0 * v) as f64).sin();
        assert!(
            (want.is_nan() && got[i].is_nan()) || (got[i] as f64 - want).abs() <= ELEMENT_TOL,
            "sine({v}) = {}, expected {want}",
            got[i]
        );
    }
}

/// The f64 reference of a binary operation and the magnitude its error is relative to.
fn binary_ref(op: BinaryOp, a: f32, b: f32) -> (f64, f64) {
    let (x, y) = (a as f64, b as f64);
    let mask = |c: bool| (if c { 1.0 } else { 0.0 }, 1.0);
    match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let r = if op == BinaryOp::Add { x + y } else { x - y };
            (r, x.abs() + y.abs())
        }
        BinaryOp::Mul => ((x * y), (x * y).abs()),
        BinaryOp::Div => ((x / y), (x / y).abs()),
        BinaryOp::Maximum => (x.max(y), x.abs().max(y.abs())),
        BinaryOp::Minimum => (x.min(y), x.abs().max(y.abs())),
        BinaryOp::Pow => (x.powf(y), x.powf(y).abs()),
        BinaryOp::Gt => mask(a > b),
        BinaryOp::Ge => mask(a >= b),
        BinaryOp::Lt => mask(a < b),
        BinaryOp::Le => mask(a <= b),
        BinaryOp::Eq => mask(a == b),
    }
}

const BINARY_OPS: &[BinaryOp] = &[
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

/// Inputs for binary tests: positive (for `Pow` and `Div`) and quantised to quarters so
/// that comparisons meet ties.
fn binary_inputs(r: &mut tensor_core::rand_chacha::ChaCha8Rng, n: usize) -> Vec<f32> {
    uniform(r, n, 0.25, 3.0)
        .into_iter()
        .map(|v| (v * 4.0).round() / 4.0)
        .collect()
}

#[test]
fn every_binary_op_matches_f64_on_every_shape() {
    let mut r = rng(4);
    for &op in BINARY_OPS {
        for dims in SHAPES {
            let n = dims.iter().product();
            let (av, bv) = (binary_inputs(&mut r, n), binary_inputs(&mut r, n));
            let a = Tensor::from_slice(&cpu(), &av, *dims).unwrap();
            let b = Tensor::from_slice(&cpu(), &bv, *dims).unwrap();
            let (want, scale): (Vec<f64>, Vec<f64>) = av
                .iter()
                .zip(&bv)
                .map(|(&x, &y)| binary_ref(op, x, y))
                .unzip();
            let what = format!("{op:?} on {dims:?}");
            let got = host(&a.binary(op, &b).unwrap());
            assert_close_scaled(&got, &want, &scale, ELEMENT_TOL, &what);
            let mut out = Tensor::zeros(&cpu(), *dims).unwrap();
            a.binary_into(op, &b, &mut out).unwrap();
            assert_bits_eq(&host(&out), &got, &what);
            let mut c = a.try_clone().unwrap();
            c.binary_assign(op, &b).unwrap();
            assert_bits_eq(&host(&c), &got, &what);
        }
    }
}

#[test]
fn comparisons_give_masks_with_ties() {
    let a = Tensor::from_slice(&cpu(), &[1.0, 2.0, 3.0, f32::NAN], [4]).unwrap();
    let b = Tensor::from_slice(&cpu(), &[2.0, 2.0, 2.0, 2.0], [4]).unwrap();
    assert_eq!(host(&a.gt(&b).unwrap()), [0.0, 0.0, 1.0, 0.0]);
    assert_eq!(host(&a.ge(&b).unwrap()), [0.0, 1.0, 1.0, 0.0]);
    assert_eq!(host(&a.lt(&b).unwrap()), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(host(&a.le(&b).unwrap()), [1.0, 1.0, 0.0, 0.0]);
    assert_eq!(host(&a.eq_mask(&b).unwrap()), [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(host(&a.maximum(&b).unwrap())[..3], [2.0, 2.0, 3.0]);
    assert_eq!(host(&a.minimum(&b).unwrap())[..3], [1.0, 2.0, 2.0]);
}

#[test]
fn operators_and_assign_methods() {
    let mut r = rng(5);
    let a = rand_tensor(&mut r, &[7, 33], -3.0, 3.0);
    let b = rand_tensor(&mut r, &[7, 33], 0.5, 3.0);
    let (av, bv) = (host(&a), host(&b));
    let check = |t: tensor_core::Result<Tensor<_>>, f: &dyn Fn(f64, f64) -> f64, what: &str| {
        let want: Vec<f64> = av
            .iter()
            .zip(&bv)
            .map(|(&x, &y)| f(x as f64, y as f64))
            .collect();
        let scale: Vec<f64> = av
            .iter()
            .zip(&bv)
            .map(|(&x, &y)| (x.abs() + y.abs()) as f64 * 4.0)
            .collect();
        assert_close_scaled(&host(&t.unwrap()), &want, &scale, ELEMENT_TOL, what);
    };
    check(&a + &b, &|x, y| x + y, "a + b");
    check(&a - &b, &|x, y| x - y, "a - b");
    check(&a * &b, &|x, y| x * y, "a * b");
    check(&a / &b, &|x, y| x / y, "a / b");
    check(&a + 2.5, &|x, _| x + 2.5, "a + 2.5");
    check(&a - 2.5, &|x, _| x - 2.5, "a - 2.5");
    check(&a * 2.5, &|x, _| x * 2.5, "a * 2.5");
    check(&a / 3.0, &|x, _| x / 3.0, "a / 3");
    let mut c = a.try_clone().unwrap();
    c.add_assign(&b).unwrap();
    check(Ok(c.try_clone().unwrap()), &|x, y| x + y, "add_assign");
    c.sub_assign(&b).unwrap();
    c.mul_assign(&b).unwrap();
    check(Ok(c), &|x, y| (x + y - y) * y, "sub_assign, mul_assign");
}
