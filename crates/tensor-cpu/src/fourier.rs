//! Fused Fourier features: `[sin(2 pi x B), cos(2 pi x B)]` in one pass, no temporaries.

use crate::kernel::{self, Cos, Sin};
use crate::parallel::{PAR_THRESHOLD, chunk_len};
use rayon::prelude::*;
use tensor_core::Result;

/// `out = [sin(2 pi x b), cos(2 pi x b)]` for `x` (`rows x d`) and `b` (`d x m`). Each output
/// row first receives the projection in its sine half, then the cosine of it in its cosine
/// half, then the sine in place.
pub(crate) fn fourier_features(
    x: &[f32],
    b: &[f32],
    rows: usize,
    d: usize,
    m: usize,
    out: &mut [f32],
) -> Result<()> {
    tensor_core::fused::fourier_features::check((rows, d, m), [x.len(), b.len(), out.len()])?;
    if rows == 0 || m == 0 {
        return Ok(());
    }
    let sin = Sin {
        scale: 1.0,
        mul: 1.0,
    };
    let cos = Cos {
        scale: 1.0,
        mul: 1.0,
    };
    let rows_of = |(x, out): (&[f32], &mut [f32])| {
        for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(2 * m)) {
            let (s, c) = or.split_at_mut(m);
            s.fill(0.0);
            for (k, &xk) in xr.iter().enumerate() {
                let freqs = &b[k * m..(k + 1) * m];
                s.iter_mut().zip(freqs).for_each(|(s, &f)| *s += xk * f);
            }
            s.iter_mut().for_each(|v| *v *= std::f32::consts::TAU);
            kernel::map(cos, s, c);
            kernel::map_assign(sin, s);
        }
    };
    if d == 0 {
        // No inputs: every projection is 0.
        for or in out.chunks_exact_mut(2 * m) {
            let (s, c) = or.split_at_mut(m);
            s.fill(0.0);
            c.fill(1.0);
        }
    } else if out.len() < PAR_THRESHOLD {
        rows_of((x, out));
    } else {
        let rows_per_task = (chunk_len(out.len()) / (2 * m)).max(1);
        x.par_chunks(rows_per_task * d)
            .zip(out.par_chunks_mut(rows_per_task * 2 * m))
            .for_each(rows_of);
    }
    Ok(())
}
