//! `Tensor`'s element-wise methods and operators: each named method is its operation, and
//! operators compute what they say (the operations' values are the conformance suite's).

use crate::common::*;
use tensor_core::testing::compare::assert_close;
use tensor_core::testing::reference;
use tensor_core::{Activation, BinaryOp, Shape, Tensor, UnaryOp};

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

#[test]
fn operators_broadcast() {
    let mut r = rng(11);
    let m = rand_tensor(&mut r, &[6, 5], -2.0, 2.0);
    let row = rand_tensor(&mut r, &[5], 0.5, 2.0);
    let col = rand_tensor(&mut r, &[6, 1], 0.5, 2.0);
    let (mv, rv, cv) = (host(&m), host(&row), host(&col));
    for (got, op, other, od) in [
        (&m + &row, BinaryOp::Add, &rv, &[5usize][..]),
        (&m - &col, BinaryOp::Sub, &cv, &[6, 1][..]),
        (&m * &row, BinaryOp::Mul, &rv, &[5][..]),
        (&m / &col, BinaryOp::Div, &cv, &[6, 1][..]),
    ] {
        let (_, want) = reference::broadcast(op, &mv, &[6, 5], other, od);
        assert_close(&format!("{op:?}"), &host(&got.unwrap()), &want, ELEMENT_TOL);
    }
    // Broadcasting the other way round: column op matrix.
    let got = host(&(&col - &m).unwrap());
    let (_, want) = reference::broadcast(BinaryOp::Sub, &cv, &[6, 1], &mv, &[6, 5]);
    assert_close("col - m", &got, &want, ELEMENT_TOL);
}

#[test]
fn in_place_updates_accept_broadcast_operands_only() {
    let mut r = rng(12);
    let mut m = rand_tensor(&mut r, &[4, 3], -1.0, 1.0);
    let before = host(&m);
    let bias = rand_tensor(&mut r, &[3], -1.0, 1.0);
    m.add_assign(&bias).unwrap();
    let bv = host(&bias);
    let want: Vec<f64> = before
        .iter()
        .enumerate()
        .map(|(i, &v)| v as f64 + bv[i % 3] as f64)
        .collect();
    assert_elementwise(&host(&m), &want, 1.0, "matrix += row");
    // The result of broadcasting must be the left operand's shape.
    let mut row = bias.try_clone().unwrap();
    let err = row.add_assign(&m).unwrap_err();
    assert!(
        matches!(err, tensor_core::Error::ShapeMismatch { .. }),
        "{err}"
    );
    assert_eq!(row.shape(), &Shape::new([3]));
}
