//! The test-set report of regression jobs (`linreg`, `mlp --task regression`): the errors
//! of the trained model beside the closed-form least-squares fit, with the problem's shape
//! (underdetermined, constant targets) said plainly.

use crate::report::{lstsq, metrics};
use anyhow::Result;
use io::{Dataset, Standardizer};
use serde_json::{Map, Value, json};

/// Prints and records the test errors of predictions `raw` (standardised targets).
pub fn report_regression(
    m: &mut Map<String, Value>,
    targets: &Standardizer,
    raw: &[f32],
    train: &Dataset,
    test: &Dataset,
    linear: bool,
) -> Result<()> {
    let pred = targets.inverse_transform(raw)?;
    let ours = metrics::regression(&pred, &test.y);
    let cols = train.n_features;
    let closed = lstsq::least_squares(&train.x, &train.y, train.rows, cols);
    if train.rows <= cols {
        println!(
            "note: {cols} features but only {} training rows: the problem is underdetermined (many weight vectors fit the training rows exactly), so expect overfitting",
            train.rows
        );
    }
    println!("test set ({} rows):", test.rows);
    println!(
        "  {:<22} {:>12} {:>10} {:>10} {:>8}",
        "", "MSE", "RMSE", "MAE", "R^2"
    );
    let row = |name: &str, r: &metrics::RegressionMetrics| {
        // R^2 is undefined (NaN) when the test targets are constant.
        let r2 = if r.r2.is_nan() {
            "n/a".to_string()
        } else {
            format!("{:.4}", r.r2)
        };
        println!(
            "  {name:<22} {:>12.4} {:>10.4} {:>10.4} {r2:>8}",
            r.mse, r.rmse, r.mae
        )
    };
    row(
        if linear {
            "gradient descent"
        } else {
            "network"
        },
        &ours,
    );
    if ours.r2.is_nan() {
        println!("  (R^2 is undefined: the test rows' target is constant)");
    }
    let mean = train.y.iter().map(|&v| f64::from(v)).sum::<f64>() / train.y.len().max(1) as f64;
    let baseline = metrics::regression(&vec![mean as f32; test.y.len()], &test.y);
    row("mean of training rows", &baseline);
    m.insert("baseline_test_mse".into(), json!(baseline.mse));
    m.insert("baseline_test_r2".into(), json!(baseline.r2));
    match &closed {
        Ok(fit) => {
            let c = metrics::regression(
                &metrics::linear_predict(&fit.coef, &test.x, test.n_features),
                &test.y,
            );
            let name = if fit.underdetermined {
                "least squares (min-norm)"
            } else {
                "least squares (exact)"
            };
            row(name, &c);
            // A percentage of a (near) zero MSE means nothing: compare with the spread of
            // the test targets instead.
            let spread = ours.mse.max(1e-30);
            if linear && c.mse > 1e-9 * spread {
                let gap = (ours.mse - c.mse) / c.mse * 100.0;
                if gap.abs() < 0.005 {
                    println!("  gradient descent matches the closed-form test MSE (within 0.01%)");
                } else {
                    println!("  gradient descent is {gap:+.2}% from the closed-form test MSE");
                }
            } else if linear {
                println!("  the closed form fits the test rows exactly; compare the MSE columns");
            }
            m.insert("closed_form_test_mse".into(), json!(c.mse));
        }
        Err(lstsq::Skipped::Singular) => {
            println!("  (no closed-form reference: the features are linearly dependent)");
        }
        Err(lstsq::Skipped::TooCostly { side }) => {
            println!("  (no closed-form reference: a {side}x{side} solve would take too long)");
        }
    }
    m.insert("test_mse".into(), json!(ours.mse));
    m.insert("test_rmse".into(), json!(ours.rmse));
    m.insert("test_mae".into(), json!(ours.mae));
    m.insert("test_r2".into(), json!(ours.r2));
    Ok(())
}
