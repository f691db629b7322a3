//! NeRF-style positional encoding (Mildenhall et al. 2020):
//! `gamma(x) = [x (optional), sin(2^k pi x_i), cos(2^k pi x_i)]` for `k < L`.
//!
//! Implemented as a sine/cosine encoding with a fixed, sparse frequency matrix: column
//! `k d + i` holds `2^(k-1)` in row `i`, so `2 pi x B` gives `2^k pi x_i`. The output is laid
//! out `[x, sin block, cos block]`, each block ordered by band then input dimension.

use crate::{Result, config_err};

/// The most bands accepted (2^40 pi is far beyond f32 resolution already).
pub const MAX_BANDS: usize = 40;

/// The `[d, d * bands]` frequency matrix (row-major).
pub fn band_matrix(d: usize, bands: usize) -> Result<Vec<f32>> {
    if d == 0 || bands == 0 || bands > MAX_BANDS {
        return Err(config_err(format!(
            "positional encoding needs at least one input and 1..={MAX_BANDS} bands \
             (got {d} inputs, {bands} bands)"
        )));
    }
    let m = d * bands;
    let mut out = vec![0.0f32; d * m];
    for k in 0..bands {
        let f = 2f32.powi(k as i32 - 1);
        for i in 0..d {
            out[i * m + k * d + i] = f;
        }
    }
    Ok(out)
}
