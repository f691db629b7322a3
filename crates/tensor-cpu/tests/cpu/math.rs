//! Accuracy of the fast functions in `tensor_cpu::math` against `f64`, over dense sweeps.
//!
//! Bounds: sine and cosine to 3e-7 absolute for |x| <= 16384 (measured: 9.3e-8; an f32
//! near 1 is only resolved to 6e-8); exp, sigmoid and tanh to 1e-6 relative (measured:
//! 2.1e-7), the element-wise tolerance the other tests use.

use tensor_cpu::math;

/// Every `step`-th f32 bit pattern between `lo` and `hi` (both >= 0), and their negations.
fn sweep(lo: f32, hi: f32, count: u32) -> impl Iterator<Item = f32> {
    let (a, b) = (lo.to_bits(), hi.to_bits());
    let step = ((b - a) / count).max(1);
    (a..=b)
        .step_by(step as usize)
        .flat_map(|bits| [f32::from_bits(bits), -f32::from_bits(bits)])
}

/// A uniform sweep of `count` values over `[-hi, hi]`.
fn linear(hi: f64, count: u32) -> impl Iterator<Item = f32> {
    (0..=count).map(move |i| (-hi + 2.0 * hi * i as f64 / count as f64) as f32)
}

fn max_abs_err(f: fn(f32) -> f32, g: fn(f64) -> f64, xs: impl Iterator<Item = f32>) -> (f64, f32) {
    xs.map(|x| ((f(x) as f64 - g(x as f64)).abs(), x))
        .fold((0.0, 0.0), |m, e| if e.0 > m.0 { e } else { m })
}

fn max_rel_err(f: fn(f32) -> f32, g: fn(f64) -> f64, xs: impl Iterator<Item = f32>) -> (f64, f32) {
    xs.map(|x| {
        let want = g(x as f64);
        let err = (f(x) as f64 - want).abs() / want.abs().max(f32::MIN_POSITIVE as f64);
        (err, x)
    })
    .fold((0.0, 0.0), |m, e| if e.0 > m.0 { e } else { m })
}

#[test]
fn sin_and_cos_are_accurate_in_range() {
    for (name, f, g) in [
        (
            "sin",
            math::sin as fn(f32) -> f32,
            f64::sin as fn(f64) -> f64,
        ),
        ("cos", math::cos, f64::cos),
    ] {
        let near = max_abs_err(f, g, linear(10.0, 2_000_000));
        let far = max_abs_err(f, g, linear(16384.0, 4_000_000));
        let bits = max_abs_err(f, g, sweep(1e-30, 16384.0, 2_000_000));
        println!("{name}: max abs error {near:?} (|x| <= 10), {far:?} (<= 16384), {bits:?}");
        for (err, x) in [near, far, bits] {
            assert!(err <= 3e-7, "{name}({x}) is off by {err}");
        }
    }
}

#[test]
fn sin_and_cos_fall_back_beyond_the_range() {
    for x in [16384.5f32, -20000.0, 1e6, -3.3e7, 1e30, f32::MAX] {
        assert_eq!(math::sin(x), x.sin(), "sin({x})");
        assert_eq!(math::cos(x), x.cos(), "cos({x})");
    }
    for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert!(math::sin(x).is_nan() && math::cos(x).is_nan(), "{x}");
    }
    assert_eq!(math::sin(0.0), 0.0);
    assert_eq!(math::sin(-0.0), 0.0);
    assert_eq!(math::cos(0.0), 1.0);
}

#[test]
fn exp_is_accurate_and_saturates() {
    let (err, x) = max_rel_err(math::exp, f64::exp, linear(87.0, 4_000_000));
    println!("exp: max rel error {err} at {x}");
    assert!(err <= 1e-6, "exp({x}) is off by {err}");
    // Subnormal results: absolute error within one subnormal step.
    for x in linear(103.0, 100_000).filter(|&x| x < -87.0) {
        let want = (x as f64).exp();
        assert!((math::exp(x) as f64 - want).abs() <= 1.5e-45, "exp({x})");
    }
    assert_eq!(math::exp(0.0), 1.0);
    assert_eq!(math::exp(89.0), f32::INFINITY);
    assert_eq!(math::exp(f32::INFINITY), f32::INFINITY);
    assert_eq!(math::exp(-110.0), 0.0);
    assert_eq!(math::exp(f32::NEG_INFINITY), 0.0);
    assert!(math::exp(f32::NAN).is_nan());
}

fn sigmoid64(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[test]
fn sigmoid_and_tanh_are_accurate_with_exact_limits() {
    let (err, x) = max_rel_err(math::sigmoid, sigmoid64, linear(80.0, 4_000_000));
    println!("sigmoid: max rel error {err} at {x}");
    assert!(err <= 1e-6, "sigmoid({x}) is off by {err}");
    let (err, x) = max_rel_err(math::tanh, f64::tanh, linear(12.0, 4_000_000));
    let (err_small, x_small) = max_rel_err(math::tanh, f64::tanh, sweep(1e-30, 1.0, 1_000_000));
    println!("tanh: max rel error {err} at {x}, {err_small} at {x_small}");
    assert!(
        err <= 1e-6 && err_small <= 1e-6,
        "tanh: {err} at {x}, {err_small} at {x_small}"
    );
    assert_eq!(math::sigmoid(100.0), 1.0);
    assert!(math::sigmoid(-100.0) >= 0.0 && math::sigmoid(-100.0) < 1e-40);
    assert_eq!(math::sigmoid(f32::INFINITY), 1.0);
    assert_eq!(math::sigmoid(f32::NEG_INFINITY), 0.0);
    assert_eq!(math::tanh(20.0), 1.0);
    assert_eq!(math::tanh(-20.0), -1.0);
    assert_eq!(math::tanh(f32::INFINITY), 1.0);
    assert_eq!(math::tanh(0.0), 0.0);
    assert!(math::sigmoid(f32::NAN).is_nan() && math::tanh(f32::NAN).is_nan());
}
