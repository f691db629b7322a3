//! f64 references of the primitive operations, each with the magnitude its `f32` error is
//! measured against. They spell out the contract's special cases (NaN, empty axes, BLAS
//! scalars) independently of the backends.

use super::compare::Expect;
use crate::{Activation, BinaryOp, Gemm, ReduceOp, UnaryOp};

/// The logistic function in f64, stable for any input.
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// An activation at an `f32` input. SIREN's argument `w0 * x` is rounded to `f32` first, as
/// the operation defines it.
pub fn activation(a: Activation, x: f32) -> Expect {
    let v = f64::from(x);
    match a {
        Activation::Identity => Expect::relative(v),
        Activation::Sigmoid => Expect::relative(sigmoid(v)),
        Activation::Tanh => Expect::relative(v.tanh()),
        Activation::Relu => Expect::relative(if v < 0.0 { 0.0 } else { v }),
        Activation::LeakyRelu { alpha } => {
            Expect::relative(if v > 0.0 { v } else { f64::from(alpha) * v })
        }
        Activation::Sine { w0 } => Expect::new(f64::from(w0 * x).sin(), 1.0),
    }
}

/// An activation's derivative at an `f32` pre-activation; the scale is the derivative's
/// largest value, where `1 - s` or `1 - t^2` cancels.
pub fn activation_grad(a: Activation, x: f32) -> Expect {
    let v = f64::from(x);
    match a {
        Activation::Identity => Expect::exact(1.0),
        Activation::Sigmoid => Expect::new(sigmoid(v) * (1.0 - sigmoid(v)), 0.25),
        Activation::Tanh => Expect::new(1.0 - v.tanh().powi(2), 1.0),
        Activation::Relu => Expect::exact(if v > 0.0 { 1.0 } else { 0.0 }),
        Activation::LeakyRelu { alpha } => {
            Expect::exact(if v > 0.0 { 1.0 } else { f64::from(alpha) })
        }
        Activation::Sine { w0 } => {
            let w = f64::from(w0);
            Expect::new(w * f64::from(w0 * x).cos(), w.abs())
        }
    }
}

/// A unary operation at an `f32` input.
pub fn unary(op: UnaryOp, x: f32) -> Expect {
    let v = f64::from(x);
    match op {
        UnaryOp::Neg => Expect::exact(-v),
        UnaryOp::Exp => Expect::relative(v.exp()),
        UnaryOp::Ln => Expect::new(v.ln(), v.ln().abs().max(1.0)),
        UnaryOp::Sqrt => Expect::relative(v.sqrt()),
        UnaryOp::Abs => Expect::exact(v.abs()),
        UnaryOp::Sin => Expect::new(v.sin(), 1.0),
        UnaryOp::Cos => Expect::new(v.cos(), 1.0),
        UnaryOp::Powf(p) => Expect::relative(v.powf(f64::from(p))),
        UnaryOp::Square => Expect::relative(v * v),
        UnaryOp::Recip => Expect::relative(1.0 / v),
        UnaryOp::Clamp { min, max } => Expect::exact(if v.is_nan() {
            v
        } else {
            v.max(f64::from(min)).min(f64::from(max))
        }),
        UnaryOp::Affine { scale, shift } => {
            let p = v * f64::from(scale);
            Expect::new(p + f64::from(shift), p.abs() + f64::from(shift).abs())
        }
        UnaryOp::Softplus => Expect::relative(v.max(0.0) + (-v.abs()).exp().ln_1p()),
        UnaryOp::Step => Expect::exact(if v > 0.0 { 1.0 } else { 0.0 }),
        UnaryOp::Act(a) => activation(a, x),
        UnaryOp::ActGrad(a) => activation_grad(a, x),
    }
}

/// A binary operation at `f32` inputs.
pub fn binary(op: BinaryOp, a: f32, b: f32) -> Expect {
    let (x, y) = (f64::from(a), f64::from(b));
    let mask = |c: bool| Expect::exact(if c { 1.0 } else { 0.0 });
    let nan_or = |v: f64| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else {
            v
        }
    };
    match op {
        BinaryOp::Add => Expect::new(x + y, x.abs() + y.abs()),
        BinaryOp::Sub => Expect::new(x - y, x.abs() + y.abs()),
        BinaryOp::Mul => Expect::relative(x * y),
        BinaryOp::Div => Expect::relative(x / y),
        BinaryOp::Maximum => Expect::exact(nan_or(x.max(y))),
        BinaryOp::Minimum => Expect::exact(nan_or(x.min(y))),
        BinaryOp::Pow => Expect::relative(x.powf(y)),
        BinaryOp::Gt => mask(a > b),
        BinaryOp::Ge => mask(a >= b),
        BinaryOp::Lt => mask(a < b),
        BinaryOp::Le => mask(a <= b),
        BinaryOp::Eq => mask(a == b),
    }
}

/// The numpy broadcast of two shapes, or `None`.
pub fn broadcast_dims(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let get = |s: &[usize], i: usize| {
        let k = rank - 1 - i;
        if k < s.len() { s[s.len() - 1 - k] } else { 1 }
    };
    (0..rank)
        .map(|i| match (get(a, i), get(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// The flat position in `dims` read for output multi-index `idx` (of a rank at least
/// `dims.len()`), reading size-1 axes at 0.
fn broadcast_offset(idx: &[usize], dims: &[usize]) -> usize {
    let lead = idx.len() - dims.len();
    let mut offset = 0;
    let mut stride = 1;
    for i in (0..dims.len()).rev() {
        if dims[i] != 1 {
            offset += idx[lead + i] * stride;
        }
        stride *= dims[i];
    }
    offset
}

/// `op(a, b)` with numpy broadcasting, element by element from the output's multi-index:
/// the output dimensions and the expected values. Panics when the shapes do not broadcast.
pub fn broadcast(
    op: BinaryOp,
    a: &[f32],
    ad: &[usize],
    b: &[f32],
    bd: &[usize],
) -> (Vec<usize>, Vec<Expect>) {
    let out = broadcast_dims(ad, bd).expect("the shapes broadcast");
    let n: usize = out.iter().product();
    let mut idx = vec![0; out.len()];
    let want = (0..n)
        .map(|flat| {
            let mut rest = flat;
            for i in (0..out.len()).rev() {
                idx[i] = rest % out[i];
                rest /= out[i];
            }
            binary(
                op,
                a[broadcast_offset(&idx, ad)],
                b[broadcast_offset(&idx, bd)],
            )
        })
        .collect();
    (out, want)
}

/// A reduction of `x` (`outer x len x inner`) along its middle axis, with the contract's
/// NaN rules; sums are scaled by the sum of magnitudes. `len` must be positive.
pub fn reduce(op: ReduceOp, x: &[f32], outer: usize, len: usize, inner: usize) -> Vec<Expect> {
    let mut want = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let vals: Vec<f32> = (0..len).map(|l| x[(o * len + l) * inner + i]).collect();
            let sum: f64 = vals.iter().map(|&v| f64::from(v)).sum();
            let mass: f64 = vals.iter().map(|&v| f64::from(v).abs()).sum();
            let first_nan = vals.iter().position(|v| v.is_nan());
            let extreme = |better: fn(f32, f32) -> bool| {
                first_nan.unwrap_or_else(|| {
                    (1..len).fold(0, |at, l| if better(vals[l], vals[at]) { l } else { at })
                })
            };
            want.push(match op {
                ReduceOp::Sum => Expect::new(sum, mass),
                ReduceOp::Mean => Expect::new(sum / len as f64, mass / len as f64),
                ReduceOp::Max => Expect::exact(f64::from(vals[extreme(|a, b| a > b)])),
                ReduceOp::Min => Expect::exact(f64::from(vals[extreme(|a, b| a < b)])),
                ReduceOp::ArgMax => Expect::exact(extreme(|a, b| a > b) as f64),
                ReduceOp::ArgMin => Expect::exact(extreme(|a, b| a < b) as f64),
            });
        }
    }
    want
}

/// `alpha op(A) op(B) + beta C` as BLAS defines it: `A` and `B` are not read when
/// `alpha == 0`, `C` is not read when `beta == 0`.
pub fn gemm(spec: Gemm, a: &[f32], b: &[f32], c: &[f32]) -> Vec<Expect> {
    let Gemm {
        m,
        n,
        k,
        trans_a,
        trans_b,
        alpha,
        beta,
    } = spec;
    let at = |i: usize, p: usize| f64::from(a[if trans_a { p * m + i } else { i * k + p }]);
    let bt = |p: usize, j: usize| f64::from(b[if trans_b { j * k + p } else { p * n + j }]);
    let (alpha, beta) = (f64::from(alpha), f64::from(beta));
    let mut want = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let (mut dot, mut mass) = (0.0, 0.0);
            if alpha != 0.0 {
                for p in 0..k {
                    let t = at(i, p) * bt(p, j);
                    dot += t;
                    mass += t.abs();
                }
            }
            let cij = if beta == 0.0 {
                0.0
            } else {
                beta * f64::from(c[i * n + j])
            };
            want.push(Expect::new(
                alpha * dot + cij,
                alpha.abs() * mass + cij.abs(),
            ));
        }
    }
    want
}
