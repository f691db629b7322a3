//! The test-set report of regression jobs (`linreg`, `mlp --task regression`): the errors
//! of the trained model beside the closed-form least-squares fit, with the problem's shape
//! (underdetermined, constant targets) said plainly.

use train::metrics::lstsq::Skipped;
use train::metrics::{Reference, RegressionMetrics, RegressionReport};

/// Prints the figures of a regression trained on `train_rows` rows of `cols` features and
/// tested on `test_rows`; `linear` compares gradient descent with the closed form.
pub fn print_regression(
    r: &RegressionReport,
    (train_rows, cols): (usize, usize),
    test_rows: usize,
    linear: bool,
) {
    if train_rows <= cols {
        println!(
            "note: {cols} features but only {train_rows} training rows: the problem is underdetermined (many weight vectors fit the training rows exactly), so expect overfitting"
        );
    }
    println!("test set ({test_rows} rows):");
    println!(
        "  {:<22} {:>12} {:>10} {:>10} {:>8}",
        "", "MSE", "RMSE", "MAE", "R^2"
    );
    let ours = &r.errors;
    print_row(
        if linear {
            "gradient descent"
        } else {
            "network"
        },
        ours,
    );
    if ours.r2.is_nan() {
        println!("  (R^2 is undefined: the test rows' target is constant)");
    }
    print_row("mean of training rows", &r.baseline);
    match &r.reference {
        Reference::Fitted {
            errors,
            underdetermined,
        } => {
            let name = if *underdetermined {
                "least squares (min-norm)"
            } else {
                "least squares (exact)"
            };
            print_row(name, errors);
            if linear {
                print_gap(ours.mse, errors.mse);
            }
        }
        Reference::Skipped(Skipped::Singular) => {
            println!("  (no closed-form reference: the features are linearly dependent)");
        }
        Reference::Skipped(Skipped::TooCostly { side }) => {
            println!("  (no closed-form reference: a {side}x{side} solve would take too long)");
        }
    }
}

/// One line of the table of errors.
fn print_row(name: &str, r: &RegressionMetrics) {
    // R^2 is undefined (NaN) when the test targets are constant.
    let r2 = if r.r2.is_nan() {
        "n/a".to_string()
    } else {
        // A value that rounds to zero prints as 0.0000, never -0.0000.
        let shown = format!("{:.4}", r.r2);
        if shown == "-0.0000" {
            "0.0000".to_string()
        } else {
            shown
        }
    };
    println!(
        "  {name:<22} {:>12.4} {:>10.4} {:>10.4} {r2:>8}",
        r.mse, r.rmse, r.mae
    )
}

/// How far gradient descent's test MSE is from the closed form's.
fn print_gap(ours: f64, closed: f64) {
    // A percentage of a (near) zero MSE means nothing: compare with the spread of the test
    // targets instead.
    if closed > 1e-9 * ours.max(1e-30) {
        let gap = (ours - closed) / closed * 100.0;
        if gap.abs() < 0.005 {
            println!("  gradient descent matches the closed-form test MSE (within 0.01%)");
        } else {
            println!("  gradient descent is {gap:+.2}% from the closed-form test MSE");
        }
    } else {
        println!("  the closed form fits the test rows exactly; compare the MSE columns");
    }
}
