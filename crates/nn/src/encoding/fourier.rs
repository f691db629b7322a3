//! Gaussian random Fourier features (Tancik et al., "Fourier Features Let Networks Learn
//! High Frequency Functions in Low Dimensional Domains", 2020).
//!
//! `gamma(x) = [sin(2 pi x B), cos(2 pi x B)]` with `B` (`[d, m]`) drawn once from
//! `N(0, sigma^2)`. `sigma` sets the bandwidth: too small blurs, too large gives noisy fits
//! (10 is a good start for coordinates in `[-1, 1]`). The matrix is a pure function of
//! `(d, m, sigma, seed)`, so a model can be rebuilt from its configuration; checkpoints
//! also store the matrix itself (`encoding.frequencies`).

use crate::{Result, config_err};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;

/// The `[d, m]` frequency matrix (row-major), drawn from `N(0, sigma^2)` with a
/// `ChaCha8Rng` seeded by `seed`.
///
/// Normal samples come from the Box–Muller transform over the generator's raw 64-bit
/// output, so the matrix depends on nothing but the arguments.
pub fn gaussian_matrix(d: usize, m: usize, sigma: f32, seed: u64) -> Result<Vec<f32>> {
    if d == 0 || m == 0 {
        return Err(config_err(format!(
            "Fourier features need at least one input and one feature (got {d} inputs, {m} features)"
        )));
    }
    if !(sigma.is_finite() && sigma > 0.0) {
        return Err(config_err(format!(
            "Fourier feature scale sigma must be positive and finite, got {sigma}"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(d * m);
    while out.len() < d * m {
        let (a, b) = box_muller(&mut rng);
        out.push((a * sigma as f64) as f32);
        if out.len() < d * m {
            out.push((b * sigma as f64) as f32);
        }
    }
    Ok(out)
}

/// Two independent standard normal samples.
fn box_muller(rng: &mut ChaCha8Rng) -> (f64, f64) {
    use tensor_core::rand::RngCore;
    // Uniform in (0, 1]: never 0, so the logarithm is finite.
    let u1 = ((rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
    let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let r = (-2.0 * u1.ln()).sqrt();
    let theta = std::f64::consts::TAU * u2;
    (r * theta.cos(), r * theta.sin())
}
