//! `mlp --numeric-encoding piecewise`: a network on piecewise-linear numbers, its bins in
//! the schema and the model file (so `predict` and `export` apply them), `auto`'s second
//! network on them, and bad values refused in one line.

use crate::common::*;
use std::path::Path;

/// `rows` rows of a bent target: `y = |a - 5| + b / 2`, and a text column.
fn bent_table(dir: &Path, rows: usize) -> String {
    let mut text = String::from("a,b,shade,y\n");
    for r in 0..rows {
        let a = (r * 37 % 101) as f64 / 10.0;
        let b = if r % 17 == 3 {
            "NA".to_string()
        } else {
            format!("{}", (r * 53 % 97) as f64 / 10.0)
        };
        let shade = ["red", "green", "blue"][r % 3];
        let half = b.parse::<f64>().map_or(2.4, |b| b / 2.0);
        text += &format!("{a},{b},{shade},{:.4}\n", (a - 5.0).abs() + half);
    }
    let path = dir.join("bent.csv");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_piecewise_network_is_saved_predicted_and_exported_with_its_bins() {
    let dir = tmp();
    let csv = bent_table(dir.path(), 300);
    let out_dir = dir.path().join("run");
    let args = [
        "mlp",
        "--test-fraction",
        "0.2",
        "--data",
        &csv,
        "--target",
        "y",
        "--epochs",
        "20",
        "--model",
        "mlp",
        "--numeric-encoding",
        "piecewise",
        "--bins",
        "4",
    ];
    assert_success(&train(&args, &out_dir));
    let options = &json(&out_dir.join("config.json"))["options"];
    assert_eq!(options["numeric_encoding"], "piecewise", "{options}");
    assert_eq!(options["bins"], 4, "{options}");
    let schema = json(&out_dir.join("schema.json"));
    let a = &schema["columns"][0];
    assert_eq!(
        a["outputs"],
        serde_json::json!(["a_bin1", "a_bin2", "a_bin3", "a_bin4"])
    );
    assert!(
        a["encoding"]
            .as_str()
            .unwrap()
            .contains("piecewise-linear in 4 bins")
    );
    assert!(
        json(&out_dir.join("metrics.json"))["test_r2"]
            .as_f64()
            .unwrap()
            > 0.5
    );
    let rows = dir.path().join("new.csv");
    std::fs::write(&rows, "shade,b,a\nred,1,0\nblue,,12\ngreen,4,-3\n").unwrap();
    let r = out_dir.to_str().unwrap();
    let o = run(["predict", r, "--data", rows.to_str().unwrap()]);
    assert_success(&o);
    let values: Vec<f64> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(
        values.len() == 3 && values.iter().all(|v| v.is_finite()),
        "{values:?}"
    );
    let onnx = dir.path().join("m.onnx");
    assert_success(&run(["export", r, "-o", onnx.to_str().unwrap()]));
    assert!(std::fs::metadata(&onnx).unwrap().len() > 0);
}

#[test]
fn auto_compares_a_second_network_on_piecewise_inputs() {
    let dir = tmp();
    let csv = bent_table(dir.path(), 300);
    let out_dir = dir.path().join("run");
    let args = [
        "mlp",
        "--data",
        &csv,
        "--target",
        "y",
        "--epochs",
        "10",
        "--numeric-encoding",
        "piecewise",
    ];
    let o = train(&args, &out_dir);
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("(validation R²: plain "), "{out}");
    assert!(out.contains(", piecewise "), "{out}");
    assert!(out_dir.join("piecewise/config.json").exists());
    // Whichever is kept, `predict` reads it from the run's model file.
    let rows = dir.path().join("new.csv");
    std::fs::write(&rows, "a,b,shade\n2,3,red\n").unwrap();
    let r = out_dir.to_str().unwrap();
    assert_success(&run(["predict", r, "--data", rows.to_str().unwrap()]));
}

/// By default `auto` trains the periodic second network, then a third on piecewise inputs.
#[test]
fn auto_trains_a_third_network_on_piecewise_inputs_by_default() {
    let dir = tmp();
    let csv = bent_table(dir.path(), 300);
    let out_dir = dir.path().join("run");
    let args = ["mlp", "--data", &csv, "--target", "y", "--epochs", "5"];
    let o = train(&[&args[..], &["--test-fraction", "0.2"]].concat(), &out_dir);
    assert_success(&o);
    let out = stdout(&o);
    // Every candidate scored on the validation rows, their mix kept.
    assert!(out.contains("(validation R²: plain "), "{out}");
    assert!(
        out.contains(", periodic ") && out.contains(", piecewise ") && out.contains(", linear "),
        "{out}"
    );
    assert!(out.contains("their mean "), "{out}");
    assert!(out_dir.join("piecewise/config.json").exists());
    assert!(out_dir.join("periodic/config.json").exists());
    // Bagged over 5 folds, each fold trains the three networks.
    let bagged = dir.path().join("bagged");
    let o = train(&args, &bagged);
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("periodic ") && out.contains(", piecewise "),
        "{out}"
    );
    for fold in 1..=5 {
        let fold = bagged.join(format!("folds/{fold}"));
        assert!(fold.join("piecewise/config.json").exists());
        assert!(fold.join("periodic/config.json").exists());
        assert!(fold.join("plain-no-decay/config.json").exists());
    }
}

#[test]
fn bad_encodings_and_bins_are_refused_in_one_line() {
    let dir = tmp();
    let csv = bent_table(dir.path(), 40);
    let base = ["mlp", "--data", csv.as_str(), "--target", "y"];
    let with = |extra: &[&str]| run(base.iter().chain(extra));
    // Refused by the argument parser: one line too, with its own exit code.
    let parser = |extra: &[&str], needles: &[&str]| {
        let o = with(extra);
        let err = stderr(&o);
        assert!(!o.status.success(), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(needles.iter().all(|n| err.contains(n)), "{err}");
    };
    parser(
        &["--numeric-encoding", "fourier"],
        &["fourier", "plain, periodic, piecewise"],
    );
    parser(
        &["--numeric-encoding", "piecewise", "--bins", "0"],
        &["--bins", "positive whole number"],
    );
    let o = with(&["--numeric-encoding", "periodic", "--bins", "8"]);
    assert_one_line_error(&o, &["--bins applies to --numeric-encoding piecewise"]);
    let o = with(&["--model", "mlp", "--bins", "8"]);
    assert_one_line_error(&o, &["--bins applies to --numeric-encoding piecewise"]);
    let o = with(&["--numeric-encoding", "piecewise", "--periodic", "2"]);
    assert_one_line_error(&o, &["--periodic", "--numeric-encoding periodic"]);
}
