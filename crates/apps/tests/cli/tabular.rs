//! The tabular jobs end to end: `xor`, `linreg`, `logreg` and `mlp` on the bundled CSV files,
//! run through the real binary on the CPU, with their outputs and metrics checked.

use crate::common::*;

/// XOR is learned: every prediction within 0.1 of its target, four predictions reported.
#[test]
fn xor_learns_the_truth_table() {
    let dir = tmp();
    let o = train(&["xor"], dir.path());
    assert_success(&o);
    assert_run_files(dir.path());
    let m = metrics(dir.path());
    assert!(num(&m, "max_error") < 0.1, "{m}");
    assert_eq!(m["predictions"].as_array().map(Vec::len), Some(4), "{m}");
    assert_eq!(num(&m, "steps"), 1000.0, "the default length is 1000 steps");
    assert!(stdout(&o).contains("prediction"), "{}", describe(&o));
}

/// Linear regression by gradient descent recovers the generating plane: its test MSE is within
/// 1% of the closed-form least-squares fit (so the coefficients match it) and R^2 > 0.99.
#[test]
fn linreg_matches_the_closed_form_fit() {
    let dir = tmp();
    let o = train(
        &["linreg", "--data", data("regression.csv").to_str().unwrap()],
        dir.path(),
    );
    assert_success(&o);
    assert_run_files(dir.path());
    let m = metrics(dir.path());
    assert!(num(&m, "test_r2") > 0.99, "{m}");
    let (ours, exact) = (num(&m, "test_mse"), num(&m, "closed_form_test_mse"));
    assert!(
        (ours - exact).abs() <= 0.01 * exact,
        "gradient descent MSE {ours} vs closed form {exact}"
    );
    // The noise has sd 0.1, so a correct fit has a test MSE near 0.01.
    assert!(ours < 0.02, "{m}");
    let rows = num(&m, "test_rows") + num(&m, "validation_rows") + num(&m, "train_rows");
    assert_eq!(rows, 500.0, "{m}");
}

/// Logistic regression on nearly separable data beats the majority-class baseline by a wide
/// margin and reports precision, recall and F1.
#[test]
fn logreg_beats_the_baseline() {
    let dir = tmp();
    let o = train(
        &[
            "logreg",
            "--data",
            data("classification.csv").to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_success(&o);
    assert_run_files(dir.path());
    let m = metrics(dir.path());
    let (acc, base) = (num(&m, "test_accuracy"), num(&m, "baseline_accuracy"));
    assert!(acc > base + 0.2, "accuracy {acc}, baseline {base}");
    assert!(num(&m, "test_f1") > 0.8, "{m}");
    for k in ["test_precision", "test_recall"] {
        let v = num(&m, k);
        assert!((0.0..=1.0).contains(&v), "{k} = {v}");
    }
    assert!(stdout(&o).contains("confusion matrix"), "{}", describe(&o));
}

/// An MLP classifies the ring of `circles.csv`, which no linear model can.
#[test]
fn mlp_classifies_circles() {
    let dir = tmp();
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--task",
            "classification",
            "--data",
            data("circles.csv").to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_success(&o);
    assert_run_files(dir.path());
    let m = metrics(dir.path());
    assert!(num(&m, "test_accuracy") > 0.9, "{m}");
    assert!(
        num(&m, "parameters") > 1000.0,
        "the default is a 64,64 network: {m}"
    );
}

/// An MLP regression on `regression.csv` explains nearly all of the variance.
#[test]
fn mlp_regression_fits() {
    let dir = tmp();
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--data",
            data("regression.csv").to_str().unwrap(),
            "--hidden",
            "32,32",
        ],
        dir.path(),
    );
    assert_success(&o);
    assert_run_files(dir.path());
    let m = metrics(dir.path());
    assert!(num(&m, "test_r2") > 0.95, "{m}");
}

/// `--target` picks a column by name: predicting `x1` from the others (y = 3 x1 - ... makes x1
/// recoverable from y, x2, x3) works and still writes the usual outputs.
#[test]
fn target_column_by_name() {
    let dir = tmp();
    let o = train(
        &[
            "linreg",
            "--data",
            data("regression.csv").to_str().unwrap(),
            "--target",
            "x1",
        ],
        dir.path(),
    );
    assert_success(&o);
    let m = metrics(dir.path());
    assert!(num(&m, "test_r2") > 0.99, "{m}");
}
