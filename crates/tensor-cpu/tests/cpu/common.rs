//! Helpers shared by the tests: seeded data, f64 comparisons, tolerances and index
//! arithmetic.
//!
//! Tolerances (why they are what they are):
//! - element-wise: `ELEMENT_TOL = 1e-6` relative. Each output is one or a few `f32`
//!   operations on exact inputs, so it is off by a few ulp (6e-8 each) at most; the fast
//!   transcendental functions add at most 2.1e-7 relative (exp, sigmoid, tanh) or 9.3e-8
//!   absolute (sin, cos), measured in `tests/math.rs`. The error is scaled by the size of
//!   the operands (not of a result that cancels) through each test's `scale`.
//! - reductions and GEMM: `SUM_TOL = 1e-4` relative to the sum of the absolute values of
//!   the terms. An `f32` dot product of `k` terms is off by at most about `k * ulp` of that
//!   sum in the worst case and `sqrt(k) * ulp` typically: for k = 40000 the typical bound is
//!   1.2e-5, the worst case far above; 1e-4 catches any wrong term (a missing or doubled
//!   product changes the result by a whole term) while tolerating blocked summation orders.

use tensor_core::Tensor;
use tensor_core::rand::{Rng, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_cpu::CpuBackend;

/// Relative tolerance of element-wise results (see the module docs).
pub const ELEMENT_TOL: f64 = 1e-6;
/// Relative tolerance of reductions and matrix products (see the module docs).
pub const SUM_TOL: f64 = 1e-4;

/// A CPU backend.
pub fn cpu() -> CpuBackend {
    CpuBackend::new()
}

/// A seeded generator.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `n` values uniform in `[lo, hi)`.
pub fn uniform(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

/// A tensor of `dims` with values uniform in `[lo, hi)`.
pub fn rand_tensor(rng: &mut ChaCha8Rng, dims: &[usize], lo: f32, hi: f32) -> Tensor<CpuBackend> {
    let n = dims.iter().product();
    Tensor::from_slice(&cpu(), &uniform(rng, n, lo, hi), dims).unwrap()
}

/// The contents of a tensor.
pub fn host(t: &Tensor<CpuBackend>) -> Vec<f32> {
    t.to_vec().unwrap()
}

/// Asserts `|got - want| <= tol * scale` element by element, where `scale[i]` (or 1 when
/// `scale` is empty) is the magnitude the error is relative to.
#[track_caller]
pub fn assert_close_scaled(got: &[f32], want: &[f64], scale: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let s = scale.get(i).copied().unwrap_or(1.0).max(f64::MIN_POSITIVE);
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g as f64 == w
        } else {
            (g as f64 - w).abs() <= tol * s
        };
        assert!(
            ok,
            "{what}: element {i} is {g}, expected {w} (tolerance {tol} x {s})"
        );
    }
}

/// Asserts element-wise agreement to [`ELEMENT_TOL`] relative to `max(|want|, floor)`.
#[track_caller]
pub fn assert_elementwise(got: &[f32], want: &[f64], floor: f64, what: &str) {
    let scale: Vec<f64> = want.iter().map(|w| w.abs().max(floor)).collect();
    assert_close_scaled(got, want, &scale, ELEMENT_TOL, what);
}

/// Bit-for-bit equality (NaNs compared by their bits).
#[track_caller]
pub fn assert_bits_eq(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.to_bits(), y.to_bits(), "{what}: element {i}: {x} vs {y}");
    }
}

/// Row-major strides of `dims`.
pub fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// The multi-index of flat position `flat` in `dims`.
pub fn unravel(mut flat: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for i in (0..dims.len()).rev() {
        idx[i] = flat % dims[i];
        flat /= dims[i];
    }
    idx
}

/// The flat position in `dims` of the broadcast multi-index `idx` (of a shape of rank at
/// least `dims.len()`), reading size-1 axes at 0.
pub fn broadcast_offset(idx: &[usize], dims: &[usize]) -> usize {
    let lead = idx.len() - dims.len();
    let st = strides(dims);
    dims.iter()
        .enumerate()
        .map(|(i, &d)| if d == 1 { 0 } else { idx[lead + i] * st[i] })
        .sum()
}

pub use tensor_core::testing::reference::broadcast_dims;

/// Runs `f` in a rayon pool of `threads` threads and returns what it computed.
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}
