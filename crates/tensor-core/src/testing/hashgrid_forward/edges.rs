//! Checks at the edges: the borders of the unit cube, grid lines, points outside it, NaN,
//! the indexing of direct and hashed levels in closed form, empty batches and bad buffers.

use super::super::Composed;
use super::super::compare::assert_buffer_error;
use super::reference::{self, assert_matches};
use super::{LAYOUTS, case, configs, host, tensor, uniform};
use crate::hashgrid::HASH_PRIMES;
use crate::params::{HashGridLookup, HashGridScatter};
use crate::{Backend, FeatureLayout, HashGridConfig, HashGridScale, HashGridSpec, Tensor};

/// Features of `points` (`n x d`) with `tables`, through the checked tensor methods.
fn encode<B: Backend>(b: &B, spec: &HashGridSpec, points: &[f32], tables: &[f32]) -> Vec<f32> {
    let n = points.len() / spec.dims();
    let p = tensor(b, points, [n, spec.dims()]);
    let t = tensor(b, tables, [spec.table_entries(), spec.features()]);
    host(
        &p.hashgrid_encode(spec, &t, FeatureLayout::PointMajor)
            .expect("encode"),
    )
}

/// The table gradient of `grad` at `points`, overwriting.
fn backward<B: Backend>(b: &B, spec: &HashGridSpec, points: &[f32], grad: &[f32]) -> Vec<f32> {
    let n = points.len() / spec.dims();
    let p = tensor(b, points, [n, spec.dims()]);
    let g = tensor(b, grad, [n, spec.output_dim()]);
    let mut out = Tensor::zeros(b, [spec.table_entries(), spec.features()]).expect("alloc");
    p.hashgrid_backward_into(spec, FeatureLayout::PointMajor, &g, &mut out, false)
        .expect("backward");
    host(&out)
}

fn edge_spec(dims: usize) -> HashGridSpec {
    HashGridConfig {
        dims,
        levels: 3,
        features: 2,
        log2_table_size: 8,
        base_resolution: 4,
        scale: HashGridScale::Growth(2.0),
    }
    .validate()
    .expect("valid")
}

/// Points on the faces, edges and corners of the cube and on grid lines take the vertex
/// values exactly; points outside are encoded as the clamped point; NaN gives NaN.
pub fn edge_coordinates<B: Backend>(b: &B) {
    for dims in 1..=3 {
        let spec = edge_spec(dims);
        let tables = uniform(&mut super::rng(dims as u64), spec.param_count(), -1.0, 1.0);
        // Every combination of 0, 1/16, 3/8, 1/2, 15/16 and 1 (all exact multiples of 1/16,
        // on grid lines of the finest level, some on coarser ones).
        let values = [0.0f32, 0.0625, 0.375, 0.5, 0.9375, 1.0];
        let count = values.len().pow(dims as u32);
        let points: Vec<f32> = (0..count)
            .flat_map(|i| (0..dims).map(move |k| values[(i / values.len().pow(k as u32)) % 6]))
            .collect();
        let got = encode(b, &spec, &points, &tables);
        let what = format!("{}: {dims}-D grid points", b.name());
        assert_matches(&what, &got, &reference::forward(&spec, &points, &tables));
        let (nf, width) = (spec.features(), spec.output_dim());
        for (p, x) in points.chunks_exact(dims).enumerate() {
            for (l, level) in spec.levels().iter().enumerate() {
                let pos: Vec<f32> = x.iter().map(|&x| x * level.resolution as f32).collect();
                if pos.iter().all(|p| p.fract() == 0.0) {
                    let v: Vec<u64> = pos.iter().map(|&p| p as u64).collect();
                    let row = reference::vertex_row(&spec, l, &v);
                    let col = p * width + l * nf;
                    assert_eq!(
                        &got[col..col + nf],
                        &tables[row * nf..(row + 1) * nf],
                        "{what}: point {x:?} at level {l} is vertex {v:?}"
                    );
                }
            }
        }
        // Outside the cube: the same features and gradients as the clamped point.
        let outside: Vec<f32> = [
            -0.5,
            1.5,
            f32::NEG_INFINITY,
            f32::INFINITY,
            -1e-30,
            1.0 + 1e-6,
        ]
        .iter()
        .flat_map(|&o| (0..dims).map(move |k| if k == 0 { o } else { 0.3 }))
        .collect();
        let clamped: Vec<f32> = outside.iter().map(|x| x.clamp(0.0, 1.0)).collect();
        let grad = uniform(&mut super::rng(7), 6 * width, -1.0, 1.0);
        assert_eq!(
            encode(b, &spec, &outside, &tables),
            encode(b, &spec, &clamped, &tables),
            "{what}: points outside the cube"
        );
        assert_eq!(
            backward(b, &spec, &outside, &grad),
            backward(b, &spec, &clamped, &grad),
            "{what}: gradients of points outside the cube"
        );
        // NaN: every feature of that point is NaN, the other point is untouched.
        let mut nan_points = vec![0.25; 2 * dims];
        nan_points[dims - 1] = f32::NAN;
        let got = encode(b, &spec, &nan_points, &tables);
        assert!(got[..width].iter().all(|v| v.is_nan()), "{what}: NaN point");
        assert!(
            got[width..].iter().all(|v| v.is_finite()),
            "{what}: NaN point"
        );
    }
}

/// Directly indexed levels give each vertex its own entry `i_0 + i_1 (N + 1) + ...`; hashed
/// levels give `(i_0 * 1 ^ i_1 * 2654435761 ^ ...) mod T`, and colliding vertices share
/// (and add their gradients into) one entry.
pub fn dense_and_hashed_levels<B: Backend>(b: &B) {
    for dims in 1..=3 {
        let spec = HashGridConfig {
            dims,
            levels: 6,
            features: 1,
            log2_table_size: 10,
            base_resolution: 2,
            scale: HashGridScale::Growth(2.0),
        }
        .validate()
        .expect("valid");
        // Table value = its row number (exact in f32), so a feature names the entry read.
        let tables: Vec<f32> = (0..spec.param_count()).map(|r| r as f32).collect();
        for (l, level) in spec.levels().iter().enumerate() {
            let res = level.resolution;
            let side = u64::from(res) + 1;
            let vertices = side.pow(dims as u32);
            assert_eq!(level.hashed, vertices > 1024, "level {l} of {dims}-D");
            let count = vertices.min(2000);
            let coords = |i: u64| -> Vec<u32> {
                (0..dims)
                    .map(|k| ((i / side.pow(k as u32)) % side) as u32)
                    .collect()
            };
            let points: Vec<f32> = (0..count)
                .flat_map(|i| coords(i).into_iter().map(|v| v as f32 / res as f32))
                .collect();
            let got = encode(b, &spec, &points, &tables);
            for i in 0..count {
                let v = coords(i);
                let entry = if level.hashed {
                    let h = v
                        .iter()
                        .zip(HASH_PRIMES)
                        .fold(0u32, |h, (&c, p)| h ^ c.wrapping_mul(p));
                    u64::from(h % 1024)
                } else {
                    i
                };
                let want = (level.offset as u64 + entry) as f32;
                let feature = got[i as usize * spec.output_dim() + l];
                assert_eq!(
                    feature,
                    want,
                    "{}: {dims}-D level {l} vertex {v:?}",
                    b.name()
                );
            }
        }
        // Two vertices of the finest level that collide share their gradient.
        let finest = spec.levels().len() - 1;
        let res = u64::from(spec.levels()[finest].resolution);
        let vertex = |i: u64| -> Vec<u64> {
            (0..dims)
                .map(|k| (i / (res + 1).pow(k as u32)) % (res + 1))
                .collect()
        };
        let mut seen = std::collections::HashMap::new();
        let pair = (0..(res + 1).pow(dims as u32)).find_map(|i| {
            let row = reference::vertex_row(&spec, finest, &vertex(i));
            seen.insert(row, i).map(|j| (j, i, row))
        });
        match pair {
            Some((i, j, row)) => {
                let points: Vec<f32> = vertex(i)
                    .into_iter()
                    .chain(vertex(j))
                    .map(|v| v as f32 / res as f32)
                    .collect();
                let mut grad = vec![0.0; 2 * spec.output_dim()];
                grad[finest] = 1.5;
                grad[spec.output_dim() + finest] = 2.25;
                let got = backward(b, &spec, &points, &grad);
                assert_eq!(
                    got[row],
                    3.75,
                    "{}: {dims}-D collision at row {row}",
                    b.name()
                );
            }
            None => assert!(
                !spec.levels()[finest].hashed,
                "a hashed level has collisions"
            ),
        }
    }
}

/// No points: empty features; the backward pass zeroes (overwrite) or keeps (accumulate)
/// the table gradient.
pub fn empty_batch<B: Backend>(b: &B) {
    let spec = edge_spec(2);
    let width = spec.output_dim();
    let points = Tensor::zeros(b, [0, 2]).expect("alloc");
    let tables = Tensor::ones(b, [spec.table_entries(), spec.features()]).expect("alloc");
    for layout in LAYOUTS {
        let out = points
            .hashgrid_encode(&spec, &tables, layout)
            .expect("encode");
        assert_eq!(out.dims(), &layout.shape(0, width));
        let grad = Tensor::zeros(b, layout.shape(0, width)).expect("alloc");
        let mut gt = Tensor::full(b, [spec.table_entries(), spec.features()], 2.0).expect("alloc");
        points
            .hashgrid_backward_into(&spec, layout, &grad, &mut gt, true)
            .expect("backward");
        assert!(
            host(&gt).iter().all(|&v| v == 2.0),
            "{}: accumulate nothing",
            b.name()
        );
        points
            .hashgrid_backward_into(&spec, layout, &grad, &mut gt, false)
            .expect("backward");
        assert!(
            host(&gt).iter().all(|&v| v == 0.0),
            "{}: overwrite with nothing",
            b.name()
        );
    }
}

/// Wrong shapes and buffer lengths are errors, never panics, through the tensor methods and
/// through the backend directly.
pub fn bad_buffers_are_errors<B: Backend>(b: &B) {
    let spec = edge_spec(2);
    let (rows, nf, width) = (spec.table_entries(), spec.features(), spec.output_dim());
    let z = |dims: &[usize]| Tensor::<B>::zeros(b, dims).expect("alloc");
    let tables = z(&[rows, nf]);
    let name = b.name();
    let pm = FeatureLayout::PointMajor;
    let fm = FeatureLayout::FeatureMajor;
    assert!(
        z(&[5, 3]).hashgrid_encode(&spec, &tables, pm).is_err(),
        "{name}: 3 coordinates"
    );
    assert!(
        z(&[10]).hashgrid_encode(&spec, &tables, pm).is_err(),
        "{name}: points of rank 1"
    );
    let short = z(&[rows - 1, nf]);
    assert!(
        z(&[5, 2]).hashgrid_encode(&spec, &short, fm).is_err(),
        "{name}: tables"
    );
    let flat = z(&[rows * nf]);
    assert!(
        z(&[5, 2]).hashgrid_encode(&spec, &flat, pm).is_err(),
        "{name}: flat tables"
    );
    for (layout, wrong) in [(pm, [width, 5]), (fm, [5, width]), (pm, [5, width + 1])] {
        let mut out = z(&wrong);
        let got = z(&[5, 2]).hashgrid_encode_into(&spec, &tables, layout, &mut out);
        assert!(
            got.is_err(),
            "{name}: out of shape {wrong:?} for {layout:?}"
        );
        let mut gt = z(&[rows, nf]);
        let got = z(&[5, 2]).hashgrid_backward_into(&spec, layout, &out, &mut gt, true);
        assert!(
            got.is_err(),
            "{name}: grad of shape {wrong:?} for {layout:?}"
        );
    }
    let mut bad_gt = z(&[rows, nf + 1]);
    let grad = z(&[5, width]);
    let got = z(&[5, 2]).hashgrid_backward_into(&spec, pm, &grad, &mut bad_gt, false);
    assert!(got.is_err(), "{name}: grad tables");
    // The backend checks its buffers itself, as the contract asks.
    let up = |n: usize| b.upload(&vec![0.5; n]).expect("upload");
    let (pts, tab) = (up(10), up(rows * nf));
    let mut out = up(5 * width);
    let fwd = "hashgrid_forward";
    assert_buffer_error(
        &name,
        fwd,
        b.hashgrid_forward(
            HashGridLookup {
                spec: &spec,
                layout: fm,
                points: &pts,
                n: 6,
                tables: &tab,
            },
            &mut out,
        ),
    );
    assert_buffer_error(
        &name,
        fwd,
        b.hashgrid_forward(
            HashGridLookup {
                spec: &spec,
                layout: pm,
                points: &pts,
                n: 5,
                tables: &up(3),
            },
            &mut out,
        ),
    );
    assert_buffer_error(
        &name,
        fwd,
        b.hashgrid_forward(
            HashGridLookup {
                spec: &spec,
                layout: fm,
                points: &pts,
                n: 5,
                tables: &tab,
            },
            &mut up(7),
        ),
    );
    let mut gtab = up(rows * nf);
    let bwd = |layout, n, grad: &B::Storage, gtab: &mut B::Storage| {
        b.hashgrid_backward(
            HashGridScatter {
                spec: &spec,
                layout,
                points: &pts,
                n,
                grad_features: grad,
                accumulate: true,
            },
            gtab,
        )
    };
    let op = "hashgrid_backward";
    assert_buffer_error(&name, op, bwd(pm, 4, &out, &mut gtab));
    assert_buffer_error(&name, op, bwd(fm, 5, &up(9), &mut gtab));
    assert_buffer_error(&name, op, bwd(pm, 5, &out, &mut up(2)));
    // Nothing was written by the refused calls.
    assert!(
        host_of(b, &gtab).iter().all(|&v| v == 0.5),
        "{name}: refused calls wrote"
    );
    assert!(
        b.hashgrid_forward(
            HashGridLookup {
                spec: &spec,
                layout: fm,
                points: &pts,
                n: 5,
                tables: &tab
            },
            &mut out
        )
        .is_ok(),
        "{name}: valid call"
    );
    assert!(bwd(fm, 5, &out, &mut gtab).is_ok(), "{name}: valid call");
}

fn host_of<B: Backend>(b: &B, s: &B::Storage) -> Vec<f32> {
    b.download(s).expect("download")
}

/// The backend's forward pass gives the trait's default implementation bit for bit (both
/// follow the same `f32` operations in the same order), and its backward pass agrees with
/// the default's within the reference's bounds (a backend may add in another order).
pub fn agrees_with_the_default<B: Backend>(b: &B) {
    let default = Composed(b.clone());
    for (i, config) in configs().iter().enumerate() {
        let c = case(config, 2000, 500 + i as u64);
        let bound = reference::backward(&c.spec, &c.points, &c.grad).tolerance;
        for layout in LAYOUTS {
            let what = format!("{}: {config:?}, {layout:?}", b.name());
            let (mine, theirs) = (
                c.encode(b, &c.tables, layout),
                c.encode(&default, &c.tables, layout),
            );
            let same = mine
                .iter()
                .zip(&theirs)
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(
                same,
                "{what}: forward differs from the default implementation"
            );
            let zeros = vec![0.0; c.spec.param_count()];
            let mine = c.backward(b, &zeros, false, layout);
            let theirs = c.backward(&default, &zeros, false, layout);
            for (e, ((x, y), t)) in mine.iter().zip(&theirs).zip(&bound).enumerate() {
                let diff = (f64::from(*x) - f64::from(*y)).abs();
                assert!(
                    diff <= 2.0 * t,
                    "{what}: backward entry {e}: {x} vs default {y}"
                );
            }
        }
    }
}
