//! Every vector path of this CPU against the scalar path, level by level: the same bits
//! for the forward features and the backward table gradients, in 1, 2 and 3 dimensions,
//! on dense and hashed levels, with coordinates on and beyond the unit cube's edges, NaN
//! among them, and point counts that leave a partial block.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tensor_core::{HashGridConfig, HashGridScale};

/// The vector paths this CPU runs.
fn vector_paths() -> Vec<SimdPath> {
    let paths: Vec<_> = [SimdPath::Avx2, SimdPath::Avx512, SimdPath::Neon]
        .into_iter()
        .filter(|p| p.supported())
        .collect();
    eprintln!("hash-grid vector paths checked: {paths:?}");
    paths
}

/// A spec with dense low levels and hashed high ones.
fn spec(dims: usize, features: usize) -> HashGridSpec {
    HashGridConfig {
        dims,
        levels: 8,
        features,
        log2_table_size: 10,
        base_resolution: 4,
        scale: HashGridScale::Finest(4000),
    }
    .validate()
    .unwrap()
}

/// `n` points of `dims` coordinates: mostly inside the unit cube, some exactly on its
/// faces, beyond them, at `-0.0`, and one NaN coordinate.
fn points(rng: &mut ChaCha8Rng, n: usize, dims: usize) -> Vec<f32> {
    let mut x: Vec<f32> = (0..n * dims)
        .map(|_| match rng.random_range(0..16) {
            0 => 0.0,
            1 => 1.0,
            2 => -0.0,
            3 => rng.random_range(-0.5f32..0.0),
            4 => rng.random_range(1.0f32..1.5),
            _ => rng.random_range(0.0f32..1.0),
        })
        .collect();
    x[dims * (n / 3)] = f32::NAN;
    x
}

fn uniform(rng: &mut ChaCha8Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// Asserts `got` and `want` equal bit for bit (any NaN matching any NaN).
fn assert_same_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let same = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
        assert!(
            same,
            "{what}: value {i} is {g:e}, the scalar path gives {w:e}"
        );
    }
}

fn check_forward<const D: usize, const F: usize>(n: usize, paths: &[SimdPath]) {
    let spec = spec(D, F);
    let mut rng = ChaCha8Rng::seed_from_u64(7 + D as u64);
    let x = points(&mut rng, n, D);
    let tables = uniform(&mut rng, spec.param_count());
    let (consts, levels) = level_consts(&spec);
    assert!(consts[..levels].iter().any(|c| c.hashed) && consts.iter().any(|c| !c.hashed));
    for layout in [FeatureLayout::FeatureMajor, FeatureLayout::PointMajor] {
        let (point_step, feature_step) = layout.strides(n, F);
        let encode = |path, out: &mut [f32], c: &LevelConsts| {
            encode_level_on::<D, F>(path, c, &x, &tables, out, point_step, feature_step)
        };
        for c in &consts[..levels] {
            let mut want = vec![0.0; n * F];
            encode(SimdPath::Scalar, &mut want, c);
            assert!(want.iter().filter(|v| v.is_nan()).count() == F);
            for &path in paths {
                let mut got = vec![f32::NAN; n * F];
                encode(path, &mut got, c);
                let what = format!("{path} forward, {D}-d, F = {F}, {layout:?}, {c:?}");
                assert_same_bits(&got, &want, &what);
            }
        }
    }
}

fn check_backward<const D: usize, const F: usize>(n: usize, paths: &[SimdPath]) {
    let spec = spec(D, F);
    let mut rng = ChaCha8Rng::seed_from_u64(70 + D as u64);
    let x = points(&mut rng, n, D);
    let width = spec.output_dim();
    let grad = uniform(&mut rng, n * width);
    let (consts, levels) = level_consts(&spec);
    for layout in [FeatureLayout::FeatureMajor, FeatureLayout::PointMajor] {
        let steps = layout.strides(n, width);
        for (l, c) in consts[..levels].iter().enumerate() {
            let entries = spec.levels()[l].table_size as usize;
            let start = uniform(&mut rng, entries * F);
            let scatter = |path| {
                let mut part = start.clone();
                scatter_level_on::<D, F>(path, l, c, &x, &grad, steps, &mut part);
                part
            };
            let want = scatter(SimdPath::Scalar);
            let changed = want
                .iter()
                .zip(&start)
                .filter(|(w, s)| w.is_finite() && w != s);
            assert!(
                changed.count() >= entries.min(n) / 2,
                "level {l}: too few updates"
            );
            for &path in paths {
                let what = format!("{path} backward, {D}-d, F = {F}, {layout:?}, level {l}");
                assert_same_bits(&scatter(path), &want, &what);
            }
        }
    }
}

#[test]
fn every_path_encodes_the_scalar_paths_bits() {
    let paths = vector_paths();
    for n in [8 * 37 + 5, 16, 7] {
        check_forward::<1, 2>(n, &paths);
        check_forward::<2, 2>(n, &paths);
        check_forward::<3, 2>(n, &paths);
        check_forward::<2, 4>(n, &paths);
        check_forward::<3, 4>(n, &paths);
        check_forward::<2, 3>(n, &paths);
        check_forward::<1, 6>(n, &paths);
        check_forward::<2, 8>(n, &paths);
    }
}

#[test]
fn every_path_scatters_the_scalar_paths_bits() {
    let paths = vector_paths();
    for n in [8 * 37 + 5, 16, 7] {
        check_backward::<1, 2>(n, &paths);
        check_backward::<2, 2>(n, &paths);
        check_backward::<3, 2>(n, &paths);
        check_backward::<2, 1>(n, &paths);
        check_backward::<3, 4>(n, &paths);
    }
}

#[test]
fn the_vector_paths_take_every_whole_block() {
    let spec = spec(2, 2);
    let (consts, levels) = level_consts(&spec);
    let x = points(&mut ChaCha8Rng::seed_from_u64(1), 8 * 5 + 3, 2);
    let tables = vec![0.5; spec.param_count()];
    let mut out = vec![0.0; 4 * 43];
    for c in &consts[..levels] {
        let run =
            |path, out: &mut [f32]| blocks::encode_pairs_on::<2, 2>(path, c, &x, &tables, out, 43);
        assert_eq!(
            run(SimdPath::Scalar, &mut out),
            0,
            "the scalar path has no blocks"
        );
        for path in vector_paths() {
            assert_eq!(run(path, &mut out), 40, "{path}");
            let odd = blocks::encode_pairs_on::<2, 3>(path, c, &x, &tables, &mut out, 43);
            assert_eq!(
                odd, 0,
                "{path}: three features are encoded one point at a time"
            );
        }
    }
}
