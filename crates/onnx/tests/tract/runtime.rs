//! The exported table graph in onnxruntime, called as `examples/python/onnx_predict.py`
//! documents, against `FittedModel::predict_table` on the same raw rows (unknown levels,
//! missing cells, dates, columns in another order): the same labels and values within
//! 1e-5 relative. Skipped, with a note, where Python has no onnxruntime.

use std::path::Path;
use std::process::Command;

use io::table::read_table;

use io::fitted::FittedModel;
use tensor_cpu::CpuBackend;

use super::table::{NEW_NUMBERS, NEW_ROWS, fitted, fitted_numeric};

fn onnxruntime_available() -> bool {
    Command::new("python3")
        .args(["-c", "import numpy, onnxruntime"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the example script on `model` and `data`; returns the CSV it prints.
fn onnx_predict(model: &Path, data: &Path) -> String {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python/onnx_predict.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(model)
        .arg(data)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "onnx_predict.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn compare(model: &FittedModel<CpuBackend>, rows: &str) {
    if !onnxruntime_available() {
        eprintln!(
            "note: python3 with numpy and onnxruntime not found; the onnxruntime check is skipped"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (onnx_path, data) = (dir.path().join("m.onnx"), dir.path().join("new.csv"));
    onnx::save(model, &onnx_path).unwrap();
    std::fs::write(&data, rows).unwrap();
    let got = onnx_predict(&onnx_path, &data);

    let table = read_table(rows.as_bytes(), "new.csv", None).unwrap();
    let ours = model.predict_table(&table).unwrap();
    let mut want = Vec::new();
    ours.write_csv(&mut want, None).unwrap();
    let want = String::from_utf8(want).unwrap();

    let (got_lines, want_lines): (Vec<&str>, Vec<&str>) =
        (got.lines().collect(), want.lines().collect());
    assert_eq!(got_lines.len(), want_lines.len(), "{got}\n{want}");
    assert_eq!(got_lines[0], want_lines[0], "headers");
    for (g, w) in got_lines.iter().zip(&want_lines).skip(1) {
        for (a, b) in g.split(',').zip(w.split(',')) {
            match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => assert!(
                    (x - y).abs() <= 1e-5 * y.abs().max(1.0),
                    "onnxruntime {g} against predict {w}"
                ),
                _ => assert_eq!(a, b, "labels: onnxruntime {g} against predict {w}"),
            }
        }
    }
}

#[test]
fn onnxruntime_classifier_agrees_with_predict() {
    compare(&fitted("price_band", true).0, NEW_ROWS);
}

#[test]
fn onnxruntime_classifier_of_a_numeric_table_agrees_with_predict() {
    compare(&fitted_numeric(), NEW_NUMBERS);
}

#[test]
fn onnxruntime_regression_agrees_with_predict() {
    compare(&fitted("price", false).0, NEW_ROWS);
}
