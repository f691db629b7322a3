//! `predict` and `export` end to end: train on a CSV, predict a second CSV whose columns are
//! shuffled and lack the target, and get the numbers the training job reported; the same
//! through the library's `FittedModel` and through an exported model file.

use crate::common::*;
use io::FittedModel;
use std::path::Path;
use tensor_cpu::CpuBackend;

/// A CSV file as its header and its rows of cells (text).
fn read_table(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    table_of(&text)
}

fn table_of(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("a header")
        .split(',')
        .map(String::from)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

/// The values of a named column, as f32.
fn column(table: &(Vec<String>, Vec<Vec<String>>), name: &str) -> Vec<f32> {
    let i = table
        .0
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", table.0));
    table.1.iter().map(|r| r[i].parse().unwrap()).collect()
}

/// Writes the feature columns of `table` in the order `order` (plus an `id` column) to a
/// CSV without the target.
fn shuffled_copy(table: &(Vec<String>, Vec<Vec<String>>), order: &[&str], path: &Path) {
    let mut text = format!("id,{}\n", order.join(","));
    let cols: Vec<Vec<f32>> = order.iter().map(|n| column(table, n)).collect();
    for r in 0..table.1.len() {
        let cells: Vec<String> = cols.iter().map(|c| c[r].to_string()).collect();
        text += &format!("{r},{}\n", cells.join(","));
    }
    std::fs::write(path, text).unwrap();
}

fn predict_ok(args: &[&str]) -> String {
    let o = run(args);
    assert_success(&o);
    stdout(&o)
}

/// Regression: the predictions of a shuffled, target-less copy of the test rows equal the
/// training job's own, bit for bit, and give the test MSE it reported; the library and an
/// exported (smaller) model file agree.
#[test]
fn regression_predictions_match_the_training_job() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--model",
            "mlp",
            "--data",
            data("regression.csv").to_str().unwrap(),
            "--hidden",
            "16",
            "--epochs",
            "40",
        ],
        &run_dir,
    );
    assert_success(&o);
    let reported = read_table(&run_dir.join("test_predictions.csv"));
    assert_eq!(reported.0, ["x1", "x2", "x3", "x4", "y", "prediction"]);
    let new = dir.path().join("new.csv");
    shuffled_copy(&reported, &["x3", "x1", "x4", "x2"], &new);

    let o = run([
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        new.to_str().unwrap(),
    ]);
    assert_success(&o);
    assert!(
        stderr(&o).contains("ignored 1 column") && stderr(&o).contains("id"),
        "{}",
        describe(&o)
    );
    let ours = table_of(&stdout(&o));
    assert_eq!(ours.0, ["prediction"]);
    let (pred, truth) = (column(&ours, "prediction"), column(&reported, "y"));
    assert_eq!(pred, column(&reported, "prediction"));
    let mse = pred
        .iter()
        .zip(&truth)
        .map(|(p, t)| (*p as f64 - *t as f64).powi(2))
        .sum::<f64>()
        / pred.len() as f64;
    let reported_mse = num(&metrics(&run_dir), "test_mse");
    assert!(
        (mse - reported_mse).abs() <= 1e-9 * reported_mse,
        "MSE of the predictions {mse} vs reported {reported_mse}"
    );

    // The library: FittedModel::load on the run folder, rows in the training order.
    let model = FittedModel::load(&run_dir, &CpuBackend::new()).unwrap();
    let x: Vec<f32> = (0..pred.len())
        .flat_map(|r| ["x1", "x2", "x3", "x4"].iter().map(move |n| (r, *n)))
        .map(|(r, n)| column(&reported, n)[r])
        .collect();
    assert_eq!(model.predict(&x).unwrap().values, pred);

    // An exported model file without optimizer state: smaller, same answers.
    let small = dir.path().join("small.safetensors");
    let o = run([
        "export",
        run_dir.to_str().unwrap(),
        "--format",
        "safetensors",
        "-o",
        small.to_str().unwrap(),
    ]);
    assert_success(&o);
    let full = std::fs::metadata(run_dir.join("model.safetensors"))
        .unwrap()
        .len();
    let exported = std::fs::metadata(&small).unwrap().len();
    assert!(
        exported < full,
        "exported {exported} bytes, checkpoint {full}"
    );
    let out = dir.path().join("p.csv");
    let o = run([
        "predict",
        small.to_str().unwrap(),
        "--data",
        new.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_success(&o);
    assert_eq!(column(&read_table(&out), "prediction"), pred);
}

/// Classification: labels and one probability column per class; the labels give the
/// accuracy the training job reported.
#[test]
fn classification_predictions_match_the_training_job() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--model",
            "mlp",
            "--data",
            data("circles.csv").to_str().unwrap(),
            "--task",
            "classification",
            "--hidden",
            "16,16",
            "--epochs",
            "30",
        ],
        &run_dir,
    );
    assert_success(&o);
    let reported = read_table(&run_dir.join("test_predictions.csv"));
    assert_eq!(
        reported.0,
        [
            "x",
            "y",
            "label",
            "prediction",
            "probability_0",
            "probability_1"
        ]
    );
    let new = dir.path().join("new.csv");
    shuffled_copy(&reported, &["y", "x"], &new);
    let ours = table_of(&predict_ok(&[
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        new.to_str().unwrap(),
    ]));
    assert_eq!(ours.0, ["prediction", "probability_0", "probability_1"]);
    for name in ["prediction", "probability_0", "probability_1"] {
        assert_eq!(column(&ours, name), column(&reported, name), "{name}");
    }
    let labels = column(&ours, "prediction");
    let truth = column(&reported, "label");
    let accuracy =
        labels.iter().zip(&truth).filter(|(p, t)| p == t).count() as f64 / labels.len() as f64;
    assert_eq!(accuracy, num(&metrics(&run_dir), "test_accuracy"));
    for (p0, p1) in column(&ours, "probability_0")
        .iter()
        .zip(column(&ours, "probability_1"))
    {
        assert!((p0 + p1 - 1.0).abs() < 1e-6);
    }
}

/// `approx`: --x points and a CSV of the sample grid give the same answers, whose MSE
/// against the function is the one the job reported.
#[test]
fn approx_predicts_points_and_files() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "approx",
            "--fn",
            "x^2",
            "--range",
            "-2:2",
            "--samples",
            "50",
            "--hidden",
            "16,16",
            "--epochs",
            "200",
        ],
        &run_dir,
    );
    assert_success(&o);
    let xs: Vec<f64> = (0..50).map(|i| -2.0 + 4.0 * i as f64 / 49.0).collect();
    let csv = dir.path().join("x.csv");
    let text: String = std::iter::once("x\n".to_string())
        .chain(xs.iter().map(|x| format!("{}\n", *x as f32)))
        .collect();
    std::fs::write(&csv, text).unwrap();
    let grid = table_of(&predict_ok(&[
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        csv.to_str().unwrap(),
    ]));
    let pred = column(&grid, "prediction");
    let mse = pred
        .iter()
        .zip(&xs)
        .map(|(p, x)| (*p as f64 - ((x * x) as f32) as f64).powi(2))
        .sum::<f64>()
        / 50.0;
    let reported = num(&metrics(&run_dir), "mse");
    assert!(
        (mse - reported).abs() <= 1e-9 * reported,
        "{mse} vs {reported}"
    );

    let points = table_of(&predict_ok(&[
        "predict",
        run_dir.to_str().unwrap(),
        "--x",
        "-2,0.3673469,2",
    ]));
    assert_eq!(points.0, ["x", "prediction"]);
    let p = column(&points, "prediction");
    // Same inputs, another batch size: equal up to the order of float32 sums.
    for (a, b) in [(p[0], pred[0]), (p[2], pred[49])] {
        assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{a} vs {b}");
    }
}

/// XOR: the truth table's probabilities are those the job printed.
#[test]
fn xor_predicts_its_truth_table() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    assert_success(&train(&["xor"], &run_dir));
    let csv = dir.path().join("ab.csv");
    std::fs::write(&csv, "b,a\n0,0\n1,0\n0,1\n1,1\n").unwrap();
    let t = table_of(&predict_ok(&[
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        csv.to_str().unwrap(),
    ]));
    assert_eq!(column(&t, "prediction"), [0.0, 1.0, 1.0, 0.0]);
    let m = metrics(&run_dir);
    let reported: Vec<f64> = m["predictions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (ours, theirs) in column(&t, "probability_1").iter().zip(&reported) {
        assert!((*ours as f64 - theirs).abs() < 1e-6, "{ours} vs {theirs}");
    }
}

/// A JSON file with x_test but no y_test: the job predicts those rows into predictions.csv,
/// and `predict` on the same file gives the same numbers.
#[test]
fn json_rows_without_targets_are_predicted() {
    let dir = tmp();
    let json = dir.path().join("d.json");
    let x: Vec<f32> = (0..40).map(|i| ((i * 7) % 13) as f32 / 3.0).collect();
    let y: Vec<f32> = x.chunks(2).map(|r| 2.0 * r[0] - r[1] + 1.0).collect();
    let body = serde_json::json!({"m": 20, "n": 2, "x": x, "y": y, "m_test": 3, "x_test": [0.5, 1.0, 2.0, 0.0, -1.0, 3.0]});
    std::fs::write(&json, body.to_string()).unwrap();
    let run_dir = dir.path().join("run");
    let o = train(&["linreg", "--data", json.to_str().unwrap()], &run_dir);
    assert_success(&o);
    assert!(
        stdout(&o).contains("predicted the 3 rows"),
        "{}",
        describe(&o)
    );
    let job = read_table(&run_dir.join("predictions.csv"));
    assert_eq!(job.0, ["x0", "x1", "prediction"]);
    let ours = table_of(&predict_ok(&[
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        json.to_str().unwrap(),
    ]));
    assert_eq!(column(&ours, "prediction"), column(&job, "prediction"));
    // The fit is good: 2 * 0.5 - 1 + 1 = 1 for the first row.
    assert!(
        (column(&ours, "prediction")[0] - 1.0).abs() < 0.05,
        "{:?}",
        ours
    );
}

/// Bad input: one clear line, non-zero exit.
#[test]
fn predict_errors_are_one_line() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    assert_success(&train(&["xor", "--epochs", "5"], &run_dir));
    let r = run_dir.to_str().unwrap();
    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, "a,c\n1,2\n").unwrap();
    assert_one_line_error(
        &run(["predict", r, "--data", csv.to_str().unwrap()]),
        &["no column `b`"],
    );
    assert_one_line_error(&run(["predict", r, "--x", "1,2"]), &["takes 2", "a, b"]);
    assert_one_line_error(
        &run(["predict", r, "--data", "/nonexistent.csv"]),
        &["does not exist"],
    );
    let missing = dir.path().join("none");
    assert_one_line_error(
        &run(["predict", missing.to_str().unwrap(), "--x", "1"]),
        &["does not exist"],
    );
    std::fs::write(&csv, "a,b\n1,zz\n").unwrap();
    assert_one_line_error(
        &run(["predict", r, "--data", csv.to_str().unwrap()]),
        &["line 2", "zz"],
    );

    let image = dir.path().join("image");
    assert_success(&train(
        &[
            "image", "fit", "--size", "8", "--steps", "2", "--hidden", "8x1",
        ],
        &image,
    ));
    assert_one_line_error(
        &run(["predict", image.to_str().unwrap(), "--x", "1"]),
        &["image model", "image render"],
    );
}

/// ONNX export from the command line writes a graph that carries the feature names; a bad
/// destination is one line.
#[test]
fn export_writes_onnx() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    assert_success(&train(&["xor", "--epochs", "5"], &run_dir));
    let out = dir.path().join("xor.onnx");
    let r = run_dir.to_str().unwrap();
    let o = run(["export", r, "--format", "onnx", "-o", out.to_str().unwrap()]);
    assert_success(&o);
    assert!(stdout(&o).contains("inputs: a, b"), "{}", describe(&o));
    let bytes = std::fs::read(&out).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    for needle in [
        "feature_names",
        r#"["a","b"]"#,
        "probabilities",
        "MatMul",
        "Sigmoid",
    ] {
        assert!(text.contains(needle), "the ONNX file lacks {needle}");
    }
    let bad = dir.path().join("no/such/folder/m.onnx");
    assert_one_line_error(
        &run(["export", r, "-o", bad.to_str().unwrap()]),
        &["m.onnx"],
    );
}
