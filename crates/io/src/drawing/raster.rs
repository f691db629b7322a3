//! Distance-to-stroke rasterisation with supersampling.

use super::geometry::Point;

/// Fraction of each pixel's `s x s` supersamples lying within `half_width` of any segment, for
/// an `n x n` image covering the unit square, row-major.
pub(super) fn coverage(segments: &[[Point; 2]], half_width: f32, n: usize, s: usize) -> Vec<f32> {
    let big = n * s;
    let mut inked = vec![false; big * big];
    let scale = big as f32;
    // Sample k sits at (k + 0.5) / big; the samples within [lo, hi] have indices in this range.
    let range = |lo: f32, hi: f32| -> (usize, usize) {
        let first = (lo * scale - 0.5).ceil().max(0.0) as usize;
        let last = ((hi * scale - 0.5).floor()).min(scale - 1.0);
        (first, if last < 0.0 { 0 } else { last as usize + 1 })
    };
    let hw2 = half_width * half_width;
    for &[a, b] in segments {
        let (x0, x1) = range(a.x.min(b.x) - half_width, a.x.max(b.x) + half_width);
        let (y0, y1) = range(a.y.min(b.y) - half_width, a.y.max(b.y) + half_width);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len2 = dx * dx + dy * dy;
        for sy in y0..y1 {
            let py = (sy as f32 + 0.5) / scale;
            let row = &mut inked[sy * big..(sy + 1) * big];
            for (sx, cell) in row.iter_mut().enumerate().take(x1).skip(x0) {
                if *cell {
                    continue;
                }
                let px = (sx as f32 + 0.5) / scale;
                let t = if len2 > 0.0 {
                    (((px - a.x) * dx + (py - a.y) * dy) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let (ex, ey) = (px - (a.x + t * dx), py - (a.y + t * dy));
                if ex * ex + ey * ey <= hw2 {
                    *cell = true;
                }
            }
        }
    }
    let per_pixel = (s * s) as f32;
    let mut out = vec![0f32; n * n];
    for (sy, row) in inked.chunks_exact(big).enumerate() {
        let out_row = &mut out[(sy / s) * n..(sy / s + 1) * n];
        for (sx, &v) in row.iter().enumerate() {
            if v {
                out_row[sx / s] += 1.0;
            }
        }
    }
    for v in &mut out {
        *v /= per_pixel;
    }
    out
}
