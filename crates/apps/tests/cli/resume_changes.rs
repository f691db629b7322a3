//! A refused resume names only what really changed, at the precision it was given, and
//! says why the rows differ when early stopping holds out validation rows; resuming a
//! regression as a classifier says so, before the data's classes are looked at.

use crate::common::*;
use std::fmt::Write as _;

/// 400 rows of four features and a target with a fractional part (read as a number).
fn regression_table() -> String {
    let mut text = String::from("a,b,c,d,y\n");
    for r in 0..400 {
        let x: Vec<f64> = (0..4)
            .map(|c| (((r * 31 + c * 17) % 97) as f64 / 9.7).sin())
            .collect();
        let y = 5.0 + x[0] + 0.25 * x[1] - x[2] * x[3];
        writeln!(
            text,
            "{:.5},{:.5},{:.5},{:.5},{y:.5}",
            x[0], x[1], x[2], x[3]
        )
        .unwrap();
    }
    text
}

#[test]
fn a_refused_resume_names_only_real_changes_and_the_reason() {
    let dir = tmp();
    let data = dir.path().join("t.csv");
    std::fs::write(&data, regression_table()).unwrap();
    let run = dir.path().join("run");
    let d = data.to_str().unwrap();
    let base = [
        "mlp", "--model", "mlp", "--data", d, "--hidden", "4", "--epochs", "2", "--task",
    ];
    let job = |task: &str, extra: &[&str]| {
        let mut args = base.to_vec();
        args.push(task);
        args.extend_from_slice(extra);
        train(&args, &run)
    };
    assert_success(&job("regression", &["--test-fraction", "0.2"]));

    let o = job(
        "regression",
        &["--test-fraction", "0.2", "--resume", "--patience", "2"],
    );
    let line = assert_one_line_error(
        &o,
        &[
            "other data",
            "patience_epochs null -> 2",
            "early stopping",
            "validation rows",
            "--force",
        ],
    );
    assert!(!line.contains("0.2000000"), "{line}");
    assert!(!line.contains("test_fraction"), "{line}");

    let o = job("classification", &["--test-fraction", "0.2", "--resume"]);
    let line = assert_one_line_error(&o, &["trained for regression", "classification", "--task"]);
    assert!(!line.contains("lack"), "{line}");
}
