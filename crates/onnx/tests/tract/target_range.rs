//! A regression that keeps its predictions within a range: the graph bounds them as
//! `predict` does.

use super::{check, inputs, names, net};
use io::Standardizer;
use io::fitted::{FittedModel, ModelInfo, TargetRange};
use nn::{Activation, Mlp};

fn model(range: Option<TargetRange>) -> FittedModel<tensor_cpu::CpuBackend> {
    let network = net(
        Mlp::builder()
            .input(3)
            .hidden(&[16], Activation::Tanh)
            .output(2, Activation::Identity),
        4,
    );
    let targets = Standardizer {
        mean: vec![10.0, -5.0],
        std: vec![3.0, 2.0],
    };
    let info =
        ModelInfo::regression(&names(3), &["a".to_string(), "b".to_string()]).with_targets(targets);
    let info = match range {
        Some(r) => info.with_target_range(r),
        None => info,
    };
    FittedModel::new(network, info).unwrap()
}

/// The `q`-th quantile of column `c` of rows of two values.
fn quantile(values: &[f32], c: usize, q: f64) -> f32 {
    let mut column: Vec<f32> = values.iter().skip(c).step_by(2).copied().collect();
    column.sort_by(f32::total_cmp);
    column[((column.len() - 1) as f64 * q) as usize]
}

#[test]
fn predictions_outside_the_range_are_bounded_in_the_graph_as_in_predict() {
    let x = inputs(300, 3, 2.0, 0.0);
    let free = model(None).predict(&x).unwrap().values;
    // Bounds at the quartiles of each output: half the rows are bounded.
    let range = TargetRange {
        low: vec![quantile(&free, 0, 0.25), quantile(&free, 1, 0.25)],
        high: vec![quantile(&free, 0, 0.75), quantile(&free, 1, 0.75)],
    };
    let bounded = model(Some(range.clone()));
    let values = bounded.predict(&x).unwrap().values;
    for (i, (&v, &f)) in values.iter().zip(&free).enumerate() {
        let (lo, hi) = (range.low[i % 2], range.high[i % 2]);
        assert_eq!(v, f.clamp(lo, hi), "value {i}");
    }
    let moved = values.iter().zip(&free).filter(|(v, f)| v != f).count();
    assert!(moved > 250, "only {moved} of 600 values were bounded");
    check("regression kept within a range", &bounded, &x);
}

#[test]
fn a_range_out_of_order_or_on_a_classifier_is_refused() {
    let backwards = TargetRange {
        low: vec![1.0, 0.0],
        high: vec![0.0, 1.0],
    };
    let network = net(
        Mlp::builder()
            .input(3)
            .hidden(&[4], Activation::Tanh)
            .output(2, Activation::Identity),
        1,
    );
    let info = ModelInfo::regression(&names(3), &["a".to_string(), "b".to_string()])
        .with_target_range(backwards);
    let e = FittedModel::new(network, info).unwrap_err().to_string();
    assert!(
        e.contains("a target range holds a lowest and highest value per output"),
        "{e}"
    );
    let network = net(
        Mlp::builder()
            .input(3)
            .hidden(&[4], Activation::Tanh)
            .output(1, Activation::Identity),
        1,
    );
    let range = TargetRange {
        low: vec![0.0],
        high: vec![1.0],
    };
    let info =
        ModelInfo::classification(&names(3), "label", vec![0.0, 1.0]).with_target_range(range);
    let e = FittedModel::new(network, info).unwrap_err().to_string();
    assert!(
        e.contains("only a regression keeps its predictions within a range"),
        "{e}"
    );
}
