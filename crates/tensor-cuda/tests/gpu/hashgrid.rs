//! The hash-grid encoding on the GPU beyond the conformance suite: the forward pass against
//! the CPU bit for bit (both follow the same `f32` operations, compiled without contraction),
//! the backward pass against the CPU, and steady-state passes that move nothing to or from
//! the host.

use crate::common::{cpu, gpu, rng, uniform};
use tensor_core::fused::traits::*;
use tensor_core::{
    Backend, FeatureLayout, HashGridConfig, HashGridScale, HashGridSpec, Primitives,
};
use tensor_core::{HashGridLookup, HashGridScatter};

/// Uploads `data` to both backends.
fn both<G: Backend, C: Backend>(g: &G, c: &C, data: &[f32]) -> (G::Storage, C::Storage) {
    (g.upload(data).unwrap(), c.upload(data).unwrap())
}

/// Panics where `got` and `want` differ by more than `atol + rtol * |want|`.
fn assert_close(what: &str, got: &[f32], want: &[f32], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (f64::from(*g), f64::from(*w));
        assert!(
            (g - w).abs() <= atol + rtol * w.abs(),
            "{what}: [{i}] gpu {g} cpu {w}"
        );
    }
}

fn specs() -> Vec<HashGridSpec> {
    (1..=3)
        .map(|dims| {
            HashGridConfig {
                dims,
                levels: 16,
                features: 2,
                log2_table_size: 14,
                base_resolution: 16,
                scale: HashGridScale::Finest(2048),
            }
            .validate()
            .unwrap()
        })
        .chain([HashGridConfig {
            features: 8,
            levels: 3,
            ..HashGridConfig::new(3)
        }
        .validate()
        .unwrap()])
        .collect()
}

const LAYOUTS: [FeatureLayout; 2] = [FeatureLayout::PointMajor, FeatureLayout::FeatureMajor];

#[test]
#[ignore = "needs a CUDA GPU"]
fn forward_matches_the_cpu_bit_for_bit_and_backward_closely() {
    let (g, c) = (gpu(), cpu());
    let mut r = rng("hashgrid parity");
    for spec in specs() {
        for n in [1, 255, 100_003] {
            let points = uniform(&mut r, n * spec.dims(), -0.1, 1.1);
            let tables = uniform(&mut r, spec.param_count(), -1.0, 1.0);
            let grad = uniform(&mut r, n * spec.output_dim(), -1.0, 1.0);
            let (gp, cp) = both(&g, &c, &points);
            let (gt, ct) = both(&g, &c, &tables);
            let (gg, cg) = both(&g, &c, &grad);
            for layout in LAYOUTS {
                let what = format!("{:?}, {n} points, {layout:?}", spec.config());
                let mut go = g.alloc(n * spec.output_dim()).unwrap();
                let mut co = c.alloc(n * spec.output_dim()).unwrap();
                g.hashgrid_forward(
                    HashGridLookup {
                        spec: &spec,
                        layout,
                        points: &gp,
                        n,
                        tables: &gt,
                    },
                    &mut go,
                )
                .unwrap();
                c.hashgrid_forward(
                    HashGridLookup {
                        spec: &spec,
                        layout,
                        points: &cp,
                        n,
                        tables: &ct,
                    },
                    &mut co,
                )
                .unwrap();
                let (go, co) = (g.download(&go).unwrap(), c.download(&co).unwrap());
                let same = go.iter().zip(&co).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{what}: forward differs from the CPU");
                let mut gtab = g.alloc(spec.param_count()).unwrap();
                let mut ctab = c.alloc(spec.param_count()).unwrap();
                g.hashgrid_backward(
                    HashGridScatter {
                        spec: &spec,
                        layout,
                        points: &gp,
                        n,
                        grad_features: &gg,
                        accumulate: false,
                    },
                    &mut gtab,
                )
                .unwrap();
                c.hashgrid_backward(
                    HashGridScatter {
                        spec: &spec,
                        layout,
                        points: &cp,
                        n,
                        grad_features: &cg,
                        accumulate: false,
                    },
                    &mut ctab,
                )
                .unwrap();
                // Atomics add in any order: sums of up to n terms of at most 1.
                let atol = 1e-6 * (n as f64).sqrt() * 8.0;
                let ctab = c.download(&ctab).unwrap();
                assert_close(&what, &g.download(&gtab).unwrap(), &ctab, 1e-5, atol);
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn steady_state_passes_move_nothing_to_or_from_the_host() {
    let g = gpu();
    let spec = HashGridConfig::new(2).validate().unwrap();
    let n = 1 << 16;
    let points = g
        .upload(&uniform(&mut rng("steady"), 2 * n, 0.0, 1.0))
        .unwrap();
    let tables = g.upload(&vec![0.25; spec.param_count()]).unwrap();
    let mut features = g.alloc(n * spec.output_dim()).unwrap();
    let mut grad_tables = g.alloc(spec.param_count()).unwrap();
    let layout = FeatureLayout::FeatureMajor;
    g.synchronize().unwrap();
    let before = g.counters();
    for _ in 0..3 {
        g.hashgrid_forward(
            HashGridLookup {
                spec: &spec,
                layout,
                points: &points,
                n,
                tables: &tables,
            },
            &mut features,
        )
        .unwrap();
        g.hashgrid_backward(
            HashGridScatter {
                spec: &spec,
                layout,
                points: &points,
                n,
                grad_features: &features,
                accumulate: false,
            },
            &mut grad_tables,
        )
        .unwrap();
    }
    g.synchronize().unwrap();
    let after = g.counters();
    assert_eq!(after.bytes_uploaded, before.bytes_uploaded);
    assert_eq!(after.bytes_downloaded, before.bytes_downloaded);
    assert_eq!(after.allocations, before.allocations);
    // Forward, fill, backward per pass.
    assert_eq!(after.launches - before.launches, 9);
}
