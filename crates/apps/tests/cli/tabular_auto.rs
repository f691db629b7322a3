//! `mlp --model auto` (the default): the network or the linear model, kept by validation
//! score, recorded in `metrics.json` and used by `predict`.

use crate::common::*;
use std::path::Path;

/// `rows` rows of a linear target with a little noise: `y = 3 a - 2 b + 1 + noise`, and a
/// text column that does not matter.
fn linear_table(dir: &Path, rows: usize) -> String {
    let mut text = String::from("a,b,shade,y\n");
    for r in 0..rows {
        let a = (r * 37 % 101) as f64 / 10.0;
        let b = (r * 53 % 97) as f64 / 10.0;
        let noise = ((r * 7919 % 13) as f64 - 6.0) / 60.0;
        let shade = ["red", "green", "blue"][r % 3];
        text += &format!("{a},{b},{shade},{:.4}\n", 3.0 * a - 2.0 * b + 1.0 + noise);
    }
    let path = dir.join("linear.csv");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn metrics(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("metrics.json")).unwrap()).unwrap()
}

#[test]
fn a_linear_table_keeps_the_linear_model_and_says_why() {
    let dir = tmp();
    let csv = linear_table(dir.path(), 400);
    let out_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--data",
            &csv,
            "--target",
            "y",
            "--epochs",
            "5",
        ],
        &out_dir,
    );
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("model kept: the linear model"), "{out}");
    let m = metrics(&out_dir);
    assert_eq!(m["model_kept"], "linear", "{m}");
    // 400 rows: 80 test, 320 training of which 64 held out.
    assert_eq!(m["validation_rows"], 64, "{m}");
    let linear = m["selection"]["linear_score"].as_f64().unwrap();
    let network = m["selection"]["network_score"].as_f64().unwrap();
    assert!(linear >= network && linear > 0.999, "{m}");
    assert!(m["test_r2"].as_f64().unwrap() > 0.999, "{m}");
    // `predict` reads the kept model: 3 a - 2 b + 1 on new rows.
    let rows = dir.path().join("new.csv");
    std::fs::write(&rows, "a,b,shade\n1,1,red\n4,0.5,blue\n").unwrap();
    let p = run_cli(&[
        "predict",
        out_dir.to_str().unwrap(),
        "--data",
        rows.to_str().unwrap(),
    ]);
    let values: Vec<f64> = p.lines().skip(1).map(|l| l.parse().unwrap()).collect();
    assert!(
        (values[0] - 2.0).abs() < 0.05 && (values[1] - 12.0).abs() < 0.05,
        "{p}"
    );
}

fn run_cli(args: &[&str]) -> String {
    let o = run(args);
    assert_success(&o);
    stdout(&o)
}

#[test]
fn a_table_too_small_to_hold_out_keeps_the_network_with_a_note() {
    let dir = tmp();
    let csv = linear_table(dir.path(), 60);
    let out_dir = dir.path().join("run");
    let args = ["mlp", "--data", &csv, "--target", "y", "--epochs", "5"];
    let o = train(&[&args[..], &["--test-fraction", "0.2"]].concat(), &out_dir);
    assert_success(&o);
    assert!(
        stdout(&o).contains("too few training rows"),
        "{}",
        stdout(&o)
    );
    assert!(metrics(&out_dir).get("model_kept").is_none());
    // Bagged over 5 folds of 12 rows, the network and the linear model are compared on
    // every row they did not train on.
    let o = train(&args, &dir.path().join("bagged"));
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("(out-of-fold R²: plain "), "{out}");
    assert!(out.contains(", linear "), "{out}");
}

#[test]
fn the_plain_network_is_an_option_and_a_bad_model_is_refused() {
    let dir = tmp();
    let csv = linear_table(dir.path(), 200);
    let out_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp", "--data", &csv, "--target", "y", "--epochs", "5", "--model", "mlp",
        ],
        &out_dir,
    );
    assert_success(&o);
    let m = metrics(&out_dir);
    assert_eq!(m["validation_rows"], 0, "{m}");
    assert!(m.get("model_kept").is_none(), "{m}");
    // A finished auto job is not resumed: its comparison is made. The refusal says which
    // model trains a network that resumes.
    let auto_dir = dir.path().join("auto");
    let o = train(
        &["mlp", "--data", &csv, "--target", "y", "--epochs", "5"],
        &auto_dir,
    );
    assert_success(&o);
    let resume = ["mlp", "--data", &csv, "--target", "y", "--resume", "-o"];
    let o = run(resume.into_iter().chain([auto_dir.to_str().unwrap()]));
    assert_one_line_error(&o, &["is finished", "--force", "--model mlp", "resumes"]);
    let o = run(["mlp", "--data", &csv, "--model", "forest"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("auto") && err.contains("mlp"), "{err}");
}

/// A class table of 4,000 numeric columns and 200 rows. Of three classes, a multinomial
/// logistic regression would factor a 12,003-square Newton system several times, so the
/// linear candidate is skipped, saying why, and the networks are kept; of two, the logistic
/// regression takes its Newton steps on the rows' dual variables (160-square systems in
/// each fold) and is among the candidates.
#[test]
fn a_table_of_far_more_columns_than_rows_fits_the_logistic_candidate_on_its_rows() {
    let dir = tmp();
    let cols = 4000;
    let table = |classes: usize| {
        let mut text: String = (0..cols).map(|c| format!("x{c},")).collect();
        text += "label\n";
        for r in 0..200 {
            for c in 0..cols {
                text += &format!("{},", (r * 31 + c * 17 + r * c) % 10);
            }
            text += ["lo", "hi", "mid"][(r * 31) % 10 % classes];
            text += "\n";
        }
        let csv = dir.path().join(format!("wide{classes}.csv"));
        std::fs::write(&csv, text).unwrap();
        csv
    };
    let run = |csv: &std::path::Path, out: &std::path::Path| {
        let csv = csv.to_str().unwrap();
        let args = ["mlp", "--data", csv, "--target", "label", "--epochs", "1"];
        let o = train(&args, out);
        assert_success(&o);
        stdout(&o)
    };
    let out = run(&table(3), &dir.path().join("three"));
    assert!(
        out.contains("no linear candidate: a ") && out.contains("solve would take too long"),
        "{out}"
    );
    assert_eq!(metrics(&dir.path().join("three"))["model_kept"], "network");
    let out = run(&table(2), &dir.path().join("two"));
    assert!(
        out.contains(", linear ") && !out.contains("no linear candidate"),
        "{out}"
    );
}

/// With a test file, the default model is bagged over 5 folds of the training file as
/// without one, then scored on the test rows: the folds' estimate and the test figures side
/// by side, every training row in the kept ensemble.
#[test]
fn the_default_model_is_bagged_beside_a_test_file() {
    let dir = tmp();
    let (train_csv, test_csv) = (linear_table(dir.path(), 150), dir.path().join("test.csv"));
    std::fs::copy(&train_csv, &test_csv).unwrap();
    let out_dir = dir.path().join("run");
    let test = test_csv.to_str().unwrap();
    let args = [
        "mlp",
        "--data",
        &train_csv,
        "--test-data",
        test,
        "--target",
        "y",
    ];
    let o = train(&[&args[..], &["--epochs", "5"]].concat(), &out_dir);
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("model kept: the mean over 5 folds of "),
        "{out}"
    );
    assert!(out.contains("cross-validated over 5 folds: R² "), "{out}");
    let m = metrics(&out_dir);
    assert_eq!(
        (num(&m, "train_rows"), num(&m, "test_rows")),
        (150.0, 150.0),
        "{m}"
    );
    assert!(num(&m, "test_r2") > 0.5, "{m}");
    assert!(out_dir.join("test_predictions.csv").exists());
    // A network asked for beside a test file is not bagged: its folds are refused.
    let args = [&args[..], &["--model", "mlp", "--folds", "3"]].concat();
    assert_one_line_error(
        &train(&args, &dir.path().join("mlp")),
        &["takes no test file"],
    );
}
