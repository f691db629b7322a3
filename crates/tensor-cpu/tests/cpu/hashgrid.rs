//! The hash-grid encoding on the CPU, beyond the conformance suite: bit-identical results for
//! any number of threads, and a call that allocates nothing.

use crate::common::{cpu, rng, uniform, with_threads};
use tensor_core::fused::traits::*;
use tensor_core::{FeatureLayout, HashGridConfig, HashGridScale, Primitives, Tensor};
use tensor_core::{HashGridLookup, HashGridScatter};

/// Features and table gradients of a batch large enough for every parallel path, in 1, 2
/// and 3 dimensions and both layouts, accumulating onto a non-zero gradient.
fn workload() -> Vec<Vec<f32>> {
    let cpu = cpu();
    let mut r = rng(90);
    let mut outs = Vec::new();
    for dims in 1..=3 {
        let spec = HashGridConfig {
            dims,
            levels: 12,
            features: 2,
            log2_table_size: 14,
            base_resolution: 8,
            scale: HashGridScale::Finest(1024),
        }
        .validate()
        .unwrap();
        let n = 20_000;
        let points = uniform(&mut r, n * dims, 0.0, 1.0);
        let points = Tensor::from_slice(&cpu, &points, [n, dims]).unwrap();
        let tables = uniform(&mut r, spec.param_count(), -1.0, 1.0);
        let tables = Tensor::from_slice(&cpu, &tables, [spec.table_entries(), 2]).unwrap();
        for layout in [FeatureLayout::PointMajor, FeatureLayout::FeatureMajor] {
            let features = points.hashgrid_encode(&spec, &tables, layout).unwrap();
            outs.push(features.to_vec().unwrap());
            let grad = uniform(&mut r, n * spec.output_dim(), -1.0, 1.0);
            let grad = Tensor::from_slice(&cpu, &grad, features.dims()).unwrap();
            let mut gt = Tensor::full(&cpu, [spec.table_entries(), 2], 0.5).unwrap();
            points
                .hashgrid_backward_into(&spec, layout, &grad, &mut gt, true)
                .unwrap();
            outs.push(gt.to_vec().unwrap());
        }
    }
    outs
}

#[test]
fn results_are_bit_identical_for_any_thread_count() {
    let one = with_threads(1, workload);
    for threads in [2, 3] {
        let many = with_threads(threads, workload);
        for (i, (a, b)) in one.iter().zip(&many).enumerate() {
            let same = a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "output {i} differs between 1 and {threads} threads");
        }
    }
}

#[test]
fn a_call_counts_one_operation_and_allocates_nothing() {
    let cpu = cpu();
    let spec = HashGridConfig::new(2).validate().unwrap();
    let n = 4096;
    let layout = FeatureLayout::FeatureMajor;
    let points = cpu.upload(&uniform(&mut rng(3), n * 2, 0.0, 1.0)).unwrap();
    let tables = cpu.alloc(spec.param_count()).unwrap();
    let mut out = cpu.alloc(n * spec.output_dim()).unwrap();
    let mut grad = cpu.alloc(spec.param_count()).unwrap();
    let before = cpu.counters();
    cpu.hashgrid_forward(
        HashGridLookup {
            spec: &spec,
            layout,
            points: &points,
            n,
            tables: &tables,
        },
        &mut out,
    )
    .unwrap();
    cpu.hashgrid_backward(
        HashGridScatter {
            spec: &spec,
            layout,
            points: &points,
            n,
            grad_features: &out,
            accumulate: false,
        },
        &mut grad,
    )
    .unwrap();
    let after = cpu.counters();
    assert_eq!(after.launches - before.launches, 2);
    assert_eq!(after.allocations, before.allocations);
}
