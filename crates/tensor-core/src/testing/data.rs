//! Seeded inputs: random values, tie-prone levels, special values and awkward sizes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Element counts that catch off-by-one and split mistakes: nothing, one, less than a warp,
/// just over a warp, a few blocks, past the CPU's parallel threshold (32768), and past one
/// grid-stride round of a large GPU.
pub const SIZES: &[usize] = &[0, 1, 7, 33, 1000, 4099, 50_003, (1 << 20) + 3];

/// Values where implementations part ways: signed zeros, tiny and huge magnitudes, the
/// edges of `exp`'s range, infinities and NaN.
pub const SPECIALS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-30,
    -1e-30,
    88.0,
    -88.0,
    100.0,
    -100.0,
    1e30,
    -1e30,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// A generator seeded from a check's name, so that every check draws its own fixed data.
pub fn rng(name: &str) -> ChaCha8Rng {
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    ChaCha8Rng::seed_from_u64(seed)
}

/// `n` values drawn uniformly from `[lo, hi)`.
pub fn uniform(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

/// `n` values from `[lo, hi)` rounded to multiples of `1 / steps`, so that equal values
/// (ties) occur.
pub fn quantised(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32, steps: f32) -> Vec<f32> {
    uniform(rng, n, lo, hi)
        .into_iter()
        .map(|v| (v * steps).round() / steps)
        .collect()
}

/// `n` small integers in `0..levels`, as floats (many ties).
pub fn levels(rng: &mut ChaCha8Rng, n: usize, levels: u32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(0..levels) as f32).collect()
}

/// `values` with `specials` written at `count` positions spread over it (a no-op when
/// `values` is empty).
pub fn sprinkle(values: &mut [f32], specials: &[f32], count: usize, rng: &mut ChaCha8Rng) {
    if values.is_empty() || specials.is_empty() {
        return;
    }
    for k in 0..count {
        let at = rng.random_range(0..values.len());
        values[at] = specials[k % specials.len()];
    }
}
