//! `examples/python/predict.py` (numpy + safetensors, written from docs/FORMAT.md) against
//! `iron-learn predict` and the library, for MLP, classifier, SIREN, Fourier-feature and
//! hash-grid models. Skipped, with a note, when Python or those packages are missing. The script
//! computes in float64, so the tolerance is that of float32 arithmetic:
//! `|rust - python| <= 1e-5 * max(|python|, 1)`.

use crate::common::*;
use io::FittedModel;
use std::path::{Path, PathBuf};
use std::process::Command;
use tensor_cpu::CpuBackend;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python/predict.py")
}

/// Whether `python3` with numpy and safetensors is available; prints why not.
fn python_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import numpy, safetensors"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("note: skipped: python3 with numpy and safetensors is not available");
    }
    ok
}

/// The CSV the script prints for `model` on `data`.
fn python_predict(model: &Path, data: &Path) -> String {
    let o = Command::new("python3")
        .arg(script())
        .arg(model)
        .arg(data)
        .output()
        .expect("cannot run python3");
    assert!(o.status.success(), "predict.py failed: {}", describe(&o));
    stdout(&o)
}

/// Rows of numbers of a CSV text, with its header.
fn parse(text: &str) -> (String, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().to_string();
    let rows = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Largest absolute and relative (`/ max(|python|, 1)`) differences; asserts same shape.
fn compare(name: &str, rust: &[Vec<f64>], python: &[Vec<f64>]) -> (f64, f64) {
    assert_eq!(rust.len(), python.len(), "{name}: row counts");
    let (mut abs, mut rel) = (0f64, 0f64);
    for (a, b) in rust.iter().zip(python) {
        assert_eq!(a.len(), b.len(), "{name}: column counts");
        for (x, y) in a.iter().zip(b) {
            abs = abs.max((x - y).abs());
            rel = rel.max((x - y).abs() / y.abs().max(1.0));
        }
    }
    eprintln!(
        "{name}: {} rows, max abs difference {abs:.3e}, max relative {rel:.3e}",
        rust.len()
    );
    assert!(rel <= 1e-5, "{name}: Rust and Python differ by {rel:e}");
    (abs, rel)
}

/// Trains a job, then compares the script with `iron-learn predict` on `rows` (by default
/// the job's test rows, whose extra columns both ignore).
fn tabular_case(name: &str, job: &[&str], rows: Option<&Path>) {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    assert_success(&train(job, &run_dir));
    let rows = rows.map_or_else(|| run_dir.join("test_predictions.csv"), Path::to_path_buf);
    let o = run([
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        rows.to_str().unwrap(),
    ]);
    assert_success(&o);
    let (rh, rust) = parse(&stdout(&o));
    let (ph, python) = parse(&python_predict(&run_dir.join("model.safetensors"), &rows));
    assert_eq!(rh, ph, "{name}: headers");
    compare(name, &rust, &python);
}

#[test]
fn python_matches_tabular_models() {
    if !python_ready() {
        return;
    }
    let reg = data("regression.csv");
    tabular_case(
        "mlp regression (tanh)",
        &[
            "mlp",
            "--data",
            reg.to_str().unwrap(),
            "--hidden",
            "32,16",
            "--activation",
            "tanh",
            "--epochs",
            "30",
            "--test-fraction",
            "0.2",
        ],
        None,
    );
    tabular_case(
        "linreg",
        &["linreg", "--data", reg.to_str().unwrap(), "--epochs", "200"],
        None,
    );
    let circles = data("circles.csv");
    tabular_case(
        "mlp binary classifier (relu)",
        &[
            "mlp",
            "--data",
            circles.to_str().unwrap(),
            "--task",
            "classification",
            "--hidden",
            "16,16",
            "--epochs",
            "30",
            "--test-fraction",
            "0.2",
        ],
        None,
    );
    // The default model, bagged over 5 folds: an ensemble of networks.
    tabular_case(
        "mlp default (an ensemble of the folds' networks)",
        &["mlp", "--data", circles.to_str().unwrap(), "--epochs", "10"],
        Some(&circles),
    );
    // Three classes by the angle of (x, y): a softmax output.
    let dir = tmp();
    let three = dir.path().join("three.csv");
    let mut text = String::from("x,y,class\n");
    for i in 0..300 {
        let (x, y) = (
            ((i * 37) % 101) as f32 / 50.0 - 1.0,
            ((i * 59) % 103) as f32 / 51.0 - 1.0,
        );
        let class =
            ((y.atan2(x) + std::f32::consts::PI) / (2.0 * std::f32::consts::PI / 3.0)) as usize % 3;
        text += &format!("{x},{y},{}\n", class * 2);
    }
    std::fs::write(&three, text).unwrap();
    tabular_case(
        "mlp 3-class classifier (sine)",
        &[
            "mlp",
            "--data",
            three.to_str().unwrap(),
            "--task",
            "classification",
            "--hidden",
            "16",
            "--activation",
            "sine",
            "--epochs",
            "30",
            "--test-fraction",
            "0.2",
        ],
        None,
    );
    let xs = dir.path().join("xs.csv");
    let text: String = std::iter::once("x\n".to_string())
        .chain((0..61).map(|i| format!("{}\n", -3.0 + 0.1 * i as f32)))
        .collect();
    std::fs::write(&xs, text).unwrap();
    tabular_case(
        "approx (tanh, x^3)",
        &[
            "approx",
            "--fn",
            "x^3",
            "--samples",
            "100",
            "--epochs",
            "100",
        ],
        Some(&xs),
    );
}

/// SIREN, Fourier-feature and hash-grid image models: the script on a coordinate grid against the
/// library's `FittedModel::predict` (what `image render` draws, before 8-bit rounding).
#[test]
fn python_matches_image_models() {
    if !python_ready() {
        return;
    }
    for arch in ["siren", "fourier", "hashgrid"] {
        let dir = tmp();
        let run_dir = dir.path().join("run");
        assert_success(&train(
            &[
                "image", "fit", "--size", "16", "--steps", "40", "--hidden", "32x2", "--arch", arch,
            ],
            &run_dir,
        ));
        let grid = io::image::coords::coordinate_grid(23, 19);
        let csv = dir.path().join("grid.csv");
        let text: String = std::iter::once("x,y\n".to_string())
            .chain(grid.chunks(2).map(|p| format!("{},{}\n", p[0], p[1])))
            .collect();
        std::fs::write(&csv, text).unwrap();
        let model = FittedModel::load(&run_dir, &CpuBackend::new()).unwrap();
        let ours = model.predict(&grid).unwrap();
        let rust: Vec<Vec<f64>> = (0..ours.rows)
            .map(|r| ours.row(r).iter().map(|&v| v as f64).collect())
            .collect();
        let (_, python) = parse(&python_predict(&run_dir, &csv));
        compare(&format!("image fit --arch {arch}"), &rust, &python);
    }
}
