//! Models whose numbers are piecewise-linear ([`io::table::Piecewise`]): the exported
//! graph takes the raw columns and gives what `predict` gives on the same rows, including
//! values beyond the training range and missing cells.

use super::floats;
use super::table::{assert_close, encoded_by_graph, fitted_with, inputs_for, run};
use io::table::ColumnEncoder;

#[test]
fn a_piecewise_regression_gives_the_values_of_predict() {
    let (model, new) = fitted_with("price", false, Some(8));
    let p = model.info().preprocessing.as_ref().unwrap();
    let bins: Vec<usize> = p
        .columns
        .iter()
        .filter_map(|c| match c {
            ColumnEncoder::Number {
                piecewise: Some(b), ..
            } => Some(b.bins()),
            _ => None,
        })
        .collect();
    // size (90 values and gaps) in 8 bins, rooms (1 to 6) in fewer.
    assert_eq!(bins.len(), 2, "{bins:?}");
    assert!(bins[0] == 8 && bins[1] < 8, "{bins:?}");
    let ours = model.predict_table(&new).unwrap();
    let out = run(&onnx::export(&model).unwrap(), inputs_for(&model, &new));
    let got: Vec<f32> = floats(&out[0]);
    assert_close("prediction", &got, &ours.values);
}

#[test]
fn a_piecewise_classifier_gives_the_probabilities_of_predict() {
    let (model, new) = fitted_with("price_band", true, Some(4));
    let ours = model.predict_table(&new).unwrap();
    let out = run(&onnx::export(&model).unwrap(), inputs_for(&model, &new));
    let got: Vec<f32> = floats(&out[1]);
    assert_close("probabilities", &got, &ours.values);
}

/// A network passing its inputs through: the graph's output is the encoded row, bin by
/// bin, as `transform` writes it up to float rounding (beyond the range: below 0 in the first bin, above 1 in
/// the last).
#[test]
fn the_bins_equal_the_preprocessors_own() {
    let (model, new) = fitted_with("price", false, Some(8));
    let (got, want, names) = encoded_by_graph(&model, &new);
    let width = names.len();
    assert_close("encoded rows", &got, &want);
    let first = names.iter().position(|n| n == "size_bin1").unwrap();
    let last = names.iter().position(|n| n == "size_bin8").unwrap();
    let column = |k: usize| want.iter().skip(k).step_by(width).copied();
    assert!(column(first).any(|v| v < 0.0) && column(last).any(|v| v > 1.0));
}
