//! Conformance checks of [`hashgrid_forward`](crate::HashGridForwardOp::hashgrid_forward)
//! and [`hashgrid_backward`](crate::HashGridBackwardOp::hashgrid_backward) against the
//! `f64` [`reference`](mod@reference), finite differences and the adjoint identity, in 1, 2
//! and 3 dimensions, on directly indexed and hashed levels, at the edges of the unit cube,
//! and with bad buffers; and the backend against the trait's default (host) implementation.

mod edges;
pub mod reference;

pub use edges::{
    agrees_with_the_default, bad_buffers_are_errors, dense_and_hashed_levels, edge_coordinates,
    empty_batch,
};

use crate::rand::{Rng, SeedableRng};
use crate::rand_chacha::ChaCha8Rng;
use crate::{Backend, FeatureLayout, HashGridConfig, HashGridScale, HashGridSpec, Tensor};
use reference::assert_matches;

/// Encodings covering 1, 2 and 3 dimensions, 1 to 8 features, one to sixteen levels, mixed
/// direct and hashed levels, and a one-cell level.
pub fn configs() -> Vec<HashGridConfig> {
    let c = |dims, levels, features, log2_table_size, base_resolution, scale| HashGridConfig {
        dims,
        levels,
        features,
        log2_table_size,
        base_resolution,
        scale,
    };
    vec![
        c(1, 3, 1, 4, 4, HashGridScale::Growth(3.0)),
        c(2, 4, 2, 8, 2, HashGridScale::Finest(64)),
        c(3, 3, 3, 10, 3, HashGridScale::Growth(2.5)),
        c(2, 16, 2, 12, 16, HashGridScale::Finest(512)),
        c(2, 2, 8, 6, 1, HashGridScale::Growth(7.0)),
        c(3, 2, 1, 7, 5, HashGridScale::Finest(40)),
        c(1, 1, 5, 12, 100, HashGridScale::Finest(100)),
    ]
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn uniform(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

fn tensor<B: Backend>(b: &B, data: &[f32], dims: [usize; 2]) -> Tensor<B> {
    Tensor::from_slice(b, data, dims).expect("upload")
}

fn host<B: Backend>(t: &Tensor<B>) -> Vec<f32> {
    t.to_vec().expect("download")
}

/// Both feature layouts.
const LAYOUTS: [FeatureLayout; 2] = [FeatureLayout::PointMajor, FeatureLayout::FeatureMajor];

/// A point-major `n x width` matrix rearranged into `layout`, or back when `back` is set.
fn relayout(data: &[f32], n: usize, width: usize, layout: FeatureLayout, back: bool) -> Vec<f32> {
    match layout {
        FeatureLayout::PointMajor => data.to_vec(),
        FeatureLayout::FeatureMajor => {
            let (rows, cols) = if back { (width, n) } else { (n, width) };
            (0..rows * cols)
                .map(|i| data[(i % rows) * cols + i / rows])
                .collect()
        }
    }
}

/// Random test data: points in `[-0.05, 1.05]^d` (some clamped), tables and feature
/// gradients in `[-1, 1]`.
struct Case {
    spec: HashGridSpec,
    n: usize,
    points: Vec<f32>,
    tables: Vec<f32>,
    grad: Vec<f32>,
}

fn case(config: &HashGridConfig, n: usize, seed: u64) -> Case {
    let spec = config.validate().expect("a valid test configuration");
    let mut r = rng(seed);
    Case {
        points: uniform(&mut r, n * spec.dims(), -0.05, 1.05),
        tables: uniform(&mut r, spec.param_count(), -1.0, 1.0),
        grad: uniform(&mut r, n * spec.output_dim(), -1.0, 1.0),
        spec,
        n,
    }
}

impl Case {
    fn table_dims(&self) -> [usize; 2] {
        [self.spec.table_entries(), self.spec.features()]
    }

    /// The features, point-major, computed in `layout`.
    fn encode<B: Backend>(&self, b: &B, tables: &[f32], layout: FeatureLayout) -> Vec<f32> {
        let points = tensor(b, &self.points, [self.n, self.spec.dims()]);
        let tables = tensor(b, tables, self.table_dims());
        let out = points
            .hashgrid_encode(&self.spec, &tables, layout)
            .expect("encode");
        relayout(&host(&out), self.n, self.spec.output_dim(), layout, true)
    }

    /// The table gradient of `self.grad` (given to the backend in `layout`).
    fn backward<B: Backend>(
        &self,
        b: &B,
        start: &[f32],
        accumulate: bool,
        layout: FeatureLayout,
    ) -> Vec<f32> {
        let (n, width) = (self.n, self.spec.output_dim());
        let points = tensor(b, &self.points, [n, self.spec.dims()]);
        let grad = relayout(&self.grad, n, width, layout, false);
        let grad = tensor(b, &grad, layout.shape(n, width));
        let mut out = tensor(b, start, self.table_dims());
        points
            .hashgrid_backward_into(&self.spec, layout, &grad, &mut out, accumulate)
            .expect("backward");
        host(&out)
    }
}

/// The features match the `f64` reference for every configuration, several batch sizes and
/// both layouts.
pub fn forward_matches_f64<B: Backend>(b: &B) {
    for (i, config) in configs().iter().enumerate() {
        for n in [1, 37, 3000] {
            let c = case(config, n, 100 * i as u64 + n as u64);
            let want = reference::forward(&c.spec, &c.points, &c.tables);
            for layout in LAYOUTS {
                assert_matches(
                    &format!("{}: forward, {config:?}, {n} points, {layout:?}", b.name()),
                    &c.encode(b, &c.tables, layout),
                    &want,
                );
            }
        }
    }
}

/// The table gradient matches the `f64` reference, overwriting and accumulating, in both
/// layouts.
pub fn backward_matches_f64<B: Backend>(b: &B) {
    for (i, config) in configs().iter().enumerate() {
        for n in [1, 37, 3000] {
            let c = case(config, n, 200 * i as u64 + n as u64);
            let mut want = reference::backward(&c.spec, &c.points, &c.grad);
            let what = format!("{}: backward, {config:?}, {n} points", b.name());
            // Overwriting: whatever was in the buffer is gone.
            let nans = vec![f32::NAN; c.spec.param_count()];
            for layout in LAYOUTS {
                let got = c.backward(b, &nans, false, layout);
                assert_matches(&format!("{what}, overwrite, {layout:?}"), &got, &want);
            }
            // Accumulating onto earlier gradients.
            let start = uniform(&mut rng(i as u64), c.spec.param_count(), -1.0, 1.0);
            for (v, (s, t)) in want
                .values
                .iter_mut()
                .zip(start.iter().zip(&mut want.tolerance))
            {
                *v += f64::from(*s);
                *t += f64::from(f32::EPSILON) * (v.abs() + f64::from(s.abs()));
            }
            for layout in LAYOUTS {
                let got = c.backward(b, &start, true, layout);
                assert_matches(&format!("{what}, accumulate, {layout:?}"), &got, &want);
            }
        }
    }
}

/// `<forward(dT), g> = <dT, backward(g)>` for random `dT` and `g`: the backward pass is the
/// exact adjoint of the forward pass (both use the backend's own weights).
pub fn backward_is_the_adjoint<B: Backend>(b: &B) {
    for (i, config) in configs().iter().enumerate() {
        let c = case(config, 64, 300 + i as u64);
        let layout = LAYOUTS[i % 2];
        let fwd = c.encode(b, &c.tables, layout);
        let bwd = c.backward(b, &vec![0.0; c.spec.param_count()], false, layout);
        let dot = |a: &[f32], b: &[f32]| -> f64 {
            a.iter()
                .zip(b)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum()
        };
        let (lhs, rhs) = (dot(&fwd, &c.grad), dot(&c.tables, &bwd));
        // The sum of the absolute terms of the bilinear form, from the reference.
        let abs_t: Vec<f32> = c.tables.iter().map(|t| t.abs()).collect();
        let abs_fwd = reference::forward(&c.spec, &c.points, &abs_t).values;
        let terms: f64 = abs_fwd
            .iter()
            .zip(&c.grad)
            .map(|(f, g)| f * f64::from(g.abs()))
            .sum();
        let sums = (c.n << c.spec.dims()) as f64 + 16.0;
        let tol = f64::from(f32::EPSILON) * sums * terms;
        assert!(
            (lhs - rhs).abs() <= tol,
            "{}: adjoint, {config:?}, {layout:?}: <F(T), g> = {lhs}, <T, B(g)> = {rhs}, \
             tolerance {tol:e}",
            b.name()
        );
    }
}

/// The gradient of `<forward(T), g>` with respect to table entries, by central differences
/// (exact up to rounding: the encoding is linear in the tables), matches the backward pass.
pub fn backward_matches_finite_differences<B: Backend>(b: &B) {
    let h = 0.25f32;
    for (i, config) in configs().iter().enumerate() {
        let c = case(config, 50, 400 + i as u64);
        let layout = LAYOUTS[(i + 1) % 2];
        let bwd = c.backward(b, &vec![0.0; c.spec.param_count()], false, layout);
        // Entries touched by the first point at every level, and a few random ones.
        let mut entries: Vec<usize> = Vec::new();
        for (l, level) in c.spec.levels().iter().enumerate() {
            let v: Vec<u64> = c.points[..c.spec.dims()]
                .iter()
                .map(|&x| (f64::from(x.clamp(0.0, 1.0)) * f64::from(level.resolution)) as u64)
                .map(|v| v.min(u64::from(level.resolution)))
                .collect();
            entries.push(reference::vertex_row(&c.spec, l, &v) * c.spec.features());
        }
        let mut r = rng(i as u64);
        entries.extend((0..4).map(|_| r.random_range(0..c.spec.param_count())));
        for e in entries {
            let mut plus = c.tables.clone();
            plus[e] += h;
            let mut minus = c.tables.clone();
            minus[e] -= h;
            let (fp, fm) = (c.encode(b, &plus, layout), c.encode(b, &minus, layout));
            // Only the outputs that use entry `e` differ; each is a sum of 2^d rounded terms
            // of at most 1 + h, and the backward pass sums `touched` terms of at most |g|.
            let (mut fd, mut touched_g, mut touched) = (0.0f64, 0.0f64, 0.0f64);
            for ((p, m), g) in fp.iter().zip(&fm).zip(&c.grad) {
                let (p, m, g) = (f64::from(*p), f64::from(*m), f64::from(*g));
                fd += (p - m) * g;
                if p != m {
                    touched_g += g.abs();
                    touched += 1.0;
                }
            }
            let two_h = 2.0 * f64::from(h);
            fd /= two_h;
            let per_output = 2.0 * (4 << c.spec.dims()) as f64 * (1.0 + f64::from(h)) / two_h;
            let tol =
                f64::from(f32::EPSILON) * (touched_g * (per_output + touched) + 4.0 * fd.abs());
            let got = f64::from(bwd[e]);
            assert!(
                (got - fd).abs() <= tol + 1e-30,
                "{}: finite differences, {config:?}, entry {e}: backward {got}, differences {fd}",
                b.name()
            );
        }
    }
}
