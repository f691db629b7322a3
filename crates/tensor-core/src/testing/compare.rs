//! Comparing a backend's results with references, and running its calls with readable
//! failures.

use crate::{Backend, Error, Result};
use std::fmt::Debug;

/// Relative tolerance of element-wise results: each is one or a few `f32` operations on
/// exact inputs (a few units in the last place, 6e-8 each), and transcendental functions
/// add at most a few more; the error is measured against [`Expect::scale`].
pub const ELEMENT_TOL: f64 = 1e-6;
/// Relative tolerance of sums (reductions, GEMM, losses), measured against the sum of the
/// magnitudes of the terms: an `f32` sum of `k` terms is off by about `sqrt(k)` units in
/// the last place of that sum (1.2e-5 for `k = 40000`) in any summation order, while a
/// missing or doubled term is off by a whole term.
pub const SUM_TOL: f64 = 1e-4;

/// A reference value (computed in f64) and the magnitude its `f32` error is measured
/// against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// The exact value.
    pub value: f64,
    /// The magnitude the tolerance is relative to (0: exact).
    pub scale: f64,
}

impl Expect {
    /// A value with the error scale `scale`.
    pub fn new(value: f64, scale: f64) -> Self {
        Expect { value, scale }
    }

    /// A value that must come out exactly (masks, positions, copies).
    pub fn exact(value: f64) -> Self {
        Expect { value, scale: 0.0 }
    }

    /// A value whose error is relative to itself.
    pub fn relative(value: f64) -> Self {
        Expect {
            value,
            scale: value.abs(),
        }
    }
}

/// Whether `got` matches `want` within `tol * want.scale`, plus the smallest normal `f32`
/// (results in the subnormal range may flush). NaN matches NaN only; a reference beyond the
/// `f32` range must come out as the infinity it rounds to.
pub fn matches(got: f32, want: Expect, tol: f64) -> bool {
    if want.value.is_nan() {
        return got.is_nan();
    }
    let rounded = want.value as f32;
    if rounded.is_infinite() {
        return got == rounded;
    }
    if !got.is_finite() {
        return false;
    }
    (f64::from(got) - want.value).abs() <= tol * want.scale + f64::from(f32::MIN_POSITIVE)
}

/// Panics, listing the first mismatches, unless every element of `got` matches `want`.
#[track_caller]
pub fn assert_close(what: &str, got: &[f32], want: &[Expect], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| !matches(got[i], want[i], tol))
        .collect();
    if !bad.is_empty() {
        let shown: Vec<String> = bad
            .iter()
            .take(8)
            .map(|&i| {
                format!(
                    "[{i}] got {:e}, expected {:e} +- {:e}",
                    got[i],
                    want[i].value,
                    tol * want[i].scale
                )
            })
            .collect();
        panic!(
            "{what}: {} of {} elements are wrong:\n  {}",
            bad.len(),
            got.len(),
            shown.join("\n  ")
        );
    }
}

/// Panics unless `a` and `b` hold the same bits (any NaN matching any NaN).
#[track_caller]
pub fn assert_same_bits(what: &str, a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    if let Some(i) = (0..a.len())
        .find(|&i| a[i].to_bits() != b[i].to_bits() && !(a[i].is_nan() && b[i].is_nan()))
    {
        panic!(
            "{what}: element {i} differs: {:e} ({:#x}) and {:e} ({:#x})",
            a[i],
            a[i].to_bits(),
            b[i],
            b[i].to_bits()
        );
    }
}

/// Panics unless `a` and `b` (two paths to the same values) agree: NaN where the other is
/// NaN, the same infinities, and finite values within `2 * tol * scale[i]` of each other.
#[track_caller]
pub fn assert_agree(what: &str, a: &[f32], b: &[f32], scale: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let bad: Vec<usize> = (0..a.len())
        .filter(|&i| {
            let (x, y) = (a[i], b[i]);
            if x.is_nan() || y.is_nan() {
                return !(x.is_nan() && y.is_nan());
            }
            if x.is_infinite() || y.is_infinite() {
                return x != y;
            }
            let s = scale.get(i).copied().unwrap_or(1.0);
            (f64::from(x) - f64::from(y)).abs() > 2.0 * tol * s + f64::from(f32::MIN_POSITIVE)
        })
        .collect();
    if !bad.is_empty() {
        let shown: Vec<String> = bad
            .iter()
            .take(8)
            .map(|&i| format!("[{i}] {:e} and {:e}", a[i], b[i]))
            .collect();
        panic!(
            "{what}: {} of {} elements disagree:\n  {}",
            bad.len(),
            a.len(),
            shown.join("\n  ")
        );
    }
}

/// Unwraps the result of a backend call that must succeed.
#[track_caller]
pub fn ok<T>(what: &str, result: Result<T>) -> T {
    result.unwrap_or_else(|e| panic!("{what}: unexpected error: {e}"))
}

/// Uploads `data`.
#[track_caller]
pub fn up<B: Backend>(b: &B, data: &[f32]) -> B::Storage {
    ok("upload", b.upload(data))
}

/// Downloads a buffer.
#[track_caller]
pub fn down<B: Backend>(b: &B, s: &B::Storage) -> Vec<f32> {
    ok("download", b.download(s))
}

/// A new buffer of `n` elements, every one NaN (so that unwritten outputs show).
#[track_caller]
pub fn nan_buffer<B: Backend>(b: &B, n: usize) -> B::Storage {
    let mut s = ok("alloc", b.alloc(n));
    ok("fill", b.fill(&mut s, f32::NAN));
    s
}

/// Panics unless `result` is [`Error::BufferLength`] from operation `op`.
#[track_caller]
pub fn assert_buffer_error<T: Debug>(what: &str, op: &str, result: Result<T>) {
    match result {
        Err(Error::BufferLength { op: o, .. }) if o == op => {}
        other => panic!("{what}: expected a BufferLength error from `{op}`, got {other:?}"),
    }
}

/// Panics unless `result` is [`Error::OutOfBounds`] from operation `op`.
#[track_caller]
pub fn assert_bounds_error<T: Debug>(what: &str, op: &str, result: Result<T>) {
    match result {
        Err(Error::OutOfBounds { op: o, .. }) if o == op => {}
        other => panic!("{what}: expected an OutOfBounds error from `{op}`, got {other:?}"),
    }
}

/// Panics unless `result` is an error that `accept` accepts.
#[track_caller]
pub fn assert_error<T: Debug>(what: &str, result: Result<T>, accept: impl Fn(&Error) -> bool) {
    match result {
        Err(e) if accept(&e) => {}
        other => panic!("{what}: unexpected outcome {other:?}"),
    }
}
