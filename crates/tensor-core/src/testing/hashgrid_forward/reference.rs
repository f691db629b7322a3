//! An `f64` reference of the hash-grid encoding, written from the definition in
//! [`crate::hashgrid`] without its code: every level's geometry is re-derived from its
//! resolution, vertices are indexed with 64-bit arithmetic and `%`, and positions,
//! weights and sums are computed in `f64`.
//!
//! Each value comes with an error bound for an `f32` implementation:
//! - The `f32` position `x * N` differs from the exact one by at most `N * 2^-24`, which moves
//!   each weight (a product of `d` factors `w` or `1 - w` in `[0, 1]`) by at most
//!   `d * N * 2^-24`; the result is continuous across cells, so a point that the rounding
//!   moves into the next cell obeys the same bound.
//! - Each weight carries `d + 1` roundings and a sum of `k` terms `k` more, relative to the sum
//!   of the absolute terms.

use crate::HashGridSpec;
use crate::hashgrid::HASH_PRIMES;

/// Unit round-off of `f32` with a factor 2 of margin.
const EPS: f64 = f32::EPSILON as f64;

/// Reference values and, for each, the largest error an `f32` implementation may have.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// The exact (`f64`) results.
    pub values: Vec<f64>,
    /// The error bound of each result.
    pub tolerance: Vec<f64>,
}

/// One level's geometry, derived from its resolution alone.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    res: u64,
    hashed: bool,
    size: u64,
    offset: u64,
}

fn geometry(spec: &HashGridSpec) -> Vec<Geometry> {
    let c = spec.config();
    let cap = 1u64 << c.log2_table_size;
    let mut offset = 0;
    spec.levels()
        .iter()
        .map(|level| {
            let res = u64::from(level.resolution);
            let vertices = (0..c.dims).fold(1u128, |v, _| v * u128::from(res + 1));
            let hashed = vertices > u128::from(cap);
            let size = if hashed { cap } else { vertices as u64 };
            let g = Geometry {
                res,
                hashed,
                size,
                offset,
            };
            offset += size;
            g
        })
        .collect()
}

/// The table row of vertex `v` (integer coordinates `0..=N` per axis) at level `level`.
pub fn vertex_row(spec: &HashGridSpec, level: usize, v: &[u64]) -> usize {
    let g = geometry(spec)[level];
    row_of(&g, v)
}

fn row_of(g: &Geometry, v: &[u64]) -> usize {
    let entry = if g.hashed {
        let h = v
            .iter()
            .zip(HASH_PRIMES)
            .fold(0u64, |h, (&vk, p)| h ^ ((vk * u64::from(p)) % (1u64 << 32)));
        h % g.size
    } else {
        v.iter().rev().fold(0u64, |idx, &vk| idx * (g.res + 1) + vk)
    };
    (g.offset + entry) as usize
}

/// The corners of `x`'s cell at a level: `(table row, weight)`.
fn corners(g: &Geometry, x: &[f32]) -> Vec<(usize, f64)> {
    let d = x.len();
    let mut cell = Vec::with_capacity(d);
    for &xk in x {
        let xk = f64::from(xk);
        let pos = if xk.is_nan() { xk } else { xk.clamp(0.0, 1.0) } * g.res as f64;
        // `as` maps NaN to 0; the weight stays NaN.
        let i = (pos.floor() as u64).min(g.res - 1);
        cell.push((i, pos - i as f64));
    }
    (0..1usize << d)
        .map(|c| {
            let mut v = Vec::with_capacity(d);
            let mut w = 1.0;
            for (k, &(i, frac)) in cell.iter().enumerate() {
                let up = (c >> k) & 1 == 1;
                v.push(i + u64::from(up));
                w *= if up { frac } else { 1.0 - frac };
            }
            (row_of(g, &v), w)
        })
        .collect()
}

/// The encoded features (`n x L*F`) of `points` with `tables`, and their error bounds.
pub fn forward(spec: &HashGridSpec, points: &[f32], tables: &[f32]) -> Reference {
    let (d, nf) = (spec.dims(), spec.features());
    let geo = geometry(spec);
    let mut values = Vec::new();
    let mut tolerance = Vec::new();
    for x in points.chunks_exact(d) {
        for g in &geo {
            let cs = corners(g, x);
            let largest = cs
                .iter()
                .flat_map(|&(row, _)| &tables[row * nf..(row + 1) * nf])
                .fold(0.0f64, |m, &t| m.max(f64::from(t).abs()));
            let bound = EPS * largest * (2.0 * (d as f64) * g.res as f64 + 4.0 * (1 << d) as f64);
            for f in 0..nf {
                let v = cs
                    .iter()
                    .map(|&(row, w)| w * f64::from(tables[row * nf + f]))
                    .sum::<f64>();
                values.push(v);
                tolerance.push(bound);
            }
        }
    }
    Reference { values, tolerance }
}

/// The table gradient (`table_entries x F`) of the features' gradient `grad` at `points`,
/// and its error bounds.
pub fn backward(spec: &HashGridSpec, points: &[f32], grad: &[f32]) -> Reference {
    let (d, nf, width) = (spec.dims(), spec.features(), spec.output_dim());
    let geo = geometry(spec);
    let len = spec.param_count();
    let (mut values, mut mass, mut gmass) = (vec![0.0; len], vec![0.0; len], vec![0.0; len]);
    let mut count = vec![0.0; len];
    let mut res = vec![0.0; len];
    for (p, x) in points.chunks_exact(d).enumerate() {
        for (l, g) in geo.iter().enumerate() {
            for (row, w) in corners(g, x) {
                for f in 0..nf {
                    let gi = f64::from(grad[p * width + l * nf + f]);
                    let e = row * nf + f;
                    values[e] += w * gi;
                    mass[e] += (w * gi).abs();
                    gmass[e] += gi.abs();
                    count[e] += 1.0;
                    res[e] = g.res as f64;
                }
            }
        }
    }
    let tolerance = (0..len)
        .map(|e| EPS * ((count[e] + d as f64 + 2.0) * mass[e] + d as f64 * res[e] * gmass[e]))
        .collect();
    Reference { values, tolerance }
}

/// Panics, naming `what` and the worst elements, where `got` differs from `want` beyond its
/// tolerance (NaN must meet NaN).
pub fn assert_matches(what: &str, got: &[f32], want: &Reference) {
    assert_eq!(got.len(), want.values.len(), "{what}: lengths differ");
    let bad: Vec<String> = got
        .iter()
        .zip(want.values.iter().zip(&want.tolerance))
        .enumerate()
        .filter(|(_, (g, (w, t)))| {
            let g = f64::from(**g);
            if g.is_nan() || w.is_nan() {
                !(g.is_nan() && w.is_nan())
            } else {
                (g - **w).abs() > **t
            }
        })
        .map(|(i, (g, (w, t)))| format!("[{i}] got {g:e}, want {w:e} within {t:e}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: {} of {} values differ:\n  {}",
        bad.len(),
        got.len(),
        bad.iter().take(8).cloned().collect::<Vec<_>>().join("\n  ")
    );
}
