//! Property tests of reductions: summing over one axis and then over everything left gives
//! the total, means are sums over the axis length, and arg-extremes point at extremes.
//! Tolerance: `SUM_TOL` relative to the sum of absolute values (see `common/mod.rs`).

use crate::common::*;
use proptest::prelude::*;
use tensor_core::Tensor;

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=6, 1..=4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn sum_over_an_axis_then_the_rest_is_the_total(dims in shape(), axis_pick in any::<usize>(), seed in any::<u64>()) {
        let axis = axis_pick % dims.len();
        let xv = uniform(&mut rng(seed), dims.iter().product(), -5.0, 5.0);
        let x = Tensor::from_slice(&cpu(), &xv, dims.clone()).unwrap();
        let total = x.sum(None).unwrap().to_scalar().unwrap() as f64;
        let partial = x.sum(Some(axis)).unwrap();
        let two_step = partial.sum(None).unwrap().to_scalar().unwrap() as f64;
        let abs: f64 = xv.iter().map(|v| v.abs() as f64).sum();
        let exact: f64 = xv.iter().map(|&v| v as f64).sum();
        prop_assert!((total - exact).abs() <= SUM_TOL * abs.max(1e-30));
        prop_assert!((two_step - total).abs() <= SUM_TOL * abs.max(1e-30), "{} vs {}", two_step, total);
        // Mean = sum / length along the axis.
        let len = dims[axis] as f64;
        let mean = host(&x.mean(Some(axis)).unwrap());
        for (m, s) in mean.iter().zip(host(&partial)) {
            prop_assert!((*m as f64 * len - s as f64).abs() <= SUM_TOL * abs.max(1e-30));
        }
        // Keeping the dimension changes the shape only.
        let kept = x.reduce(tensor_core::ReduceOp::Sum, Some(axis), true).unwrap();
        prop_assert_eq!(kept.dims()[axis], 1);
        prop_assert_eq!(host(&kept), host(&partial));
    }

    #[test]
    fn argmax_points_at_the_max(dims in shape(), axis_pick in any::<usize>(), seed in any::<u64>()) {
        let axis = axis_pick % dims.len();
        let xv = uniform(&mut rng(seed), dims.iter().product(), -5.0, 5.0);
        let x = Tensor::from_slice(&cpu(), &xv, dims.clone()).unwrap();
        let (max, arg) = (host(&x.max(Some(axis)).unwrap()), host(&x.argmax(Some(axis)).unwrap()));
        let (min, argmin) = (host(&x.min(Some(axis)).unwrap()), host(&x.argmin(Some(axis)).unwrap()));
        let inner: usize = dims[axis + 1..].iter().product();
        let len = dims[axis];
        for (o, ((&mx, &ax), (&mn, &an))) in max.iter().zip(&arg).zip(min.iter().zip(&argmin)).enumerate() {
            let (outer, i) = (o / inner, o % inner);
            let at = |l: usize| xv[(outer * len + l) * inner + i];
            prop_assert_eq!(at(ax as usize), mx);
            prop_assert_eq!(at(an as usize), mn);
            prop_assert!((0..len).all(|l| at(l) <= mx && at(l) >= mn));
        }
    }
}
