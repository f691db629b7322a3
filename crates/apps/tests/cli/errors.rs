//! Bad input: every semantic error exits non-zero with exactly one line on stderr that starts
//! with `error:`, names the problem, and shows no panic or backtrace (the binary runs with
//! RUST_BACKTRACE=1, so a panic would show one).

use crate::common::*;
use std::path::Path;

/// Writes `text` to `name` in `dir` and returns the path as a string.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// A data file that does not exist is named.
#[test]
fn missing_data_file() {
    let dir = tmp();
    let missing = dir.path().join("nope.csv");
    let o = train(&["linreg", "--data", missing.to_str().unwrap()], dir.path());
    assert_one_line_error(&o, &["nope.csv", "does not exist"]);
}

/// Text in a regression target is named with its row (text in a feature column is a
/// category or a missing cell now: see `tables.rs`).
#[test]
fn bad_csv_value() {
    let dir = tmp();
    let csv = write(dir.path(), "bad.csv", "a,b,y\n1,2,3\n4,5,oops\n7,8,9\n");
    let o = train(&["linreg", "--data", &csv], dir.path());
    assert_one_line_error(&o, &["bad.csv", "`y`", "oops", "holds text"]);
}

/// An unknown --target column is named, with the columns that exist.
#[test]
fn unknown_target_column() {
    let dir = tmp();
    let o = train(
        &[
            "logreg",
            "--data",
            data("classification.csv").to_str().unwrap(),
            "--target",
            "price",
        ],
        dir.path(),
    );
    assert_one_line_error(&o, &["no column `price`", "x1", "label"]);
}

/// A row with fewer fields than the header is named by line.
#[test]
fn ragged_csv() {
    let dir = tmp();
    let csv = write(dir.path(), "ragged.csv", "a,b,y\n1,2,3\n4,5\n7,8,9\n");
    let o = train(&["mlp", "--data", &csv, "--task", "regression"], dir.path());
    assert_one_line_error(&o, &["ragged.csv", "line 3", "2 fields", "3"]);
}

/// Malformed expressions for --fn: unbalanced parentheses, and a variable other than x.
#[test]
fn bad_function_expressions() {
    let dir = tmp();
    let o = train(&["approx", "--fn", "sin(x"], dir.path());
    assert_one_line_error(&o, &["expression", "sin(x"]);
    let o = train(&["approx", "--fn", "x + y"], dir.path());
    assert_one_line_error(&o, &["\"y\"", "only x"]);
}

/// An empty --range is rejected before any work is done.
#[test]
fn bad_range() {
    let dir = tmp();
    let o = train(&["approx", "--fn", "x", "--range", "3:1"], dir.path());
    assert_one_line_error(&o, &["3:1", "empty"]);
    let o = train(&["approx", "--fn", "x", "--range", "a:1"], dir.path());
    assert_one_line_error(&o, &["a:1", "not a finite number"]);
}

/// `--device cuda` on a machine without a usable GPU says so and suggests --device cpu. (On a
/// machine with a GPU the run succeeds instead, which is also checked.)
#[test]
fn cuda_without_a_gpu() {
    let dir = tmp();
    let o = run([
        "xor".as_ref(),
        "--steps".as_ref(),
        "5".as_ref(),
        "--device".as_ref(),
        "cuda".as_ref(),
        "--quiet".as_ref(),
        "--out".as_ref(),
        dir.path().as_os_str(),
    ]);
    if o.status.success() {
        // A GPU is present: the run trained on it.
        assert_eq!(num(&metrics(dir.path()), "steps"), 5.0);
    } else {
        let line = assert_one_line_error(&o, &["--device cpu"]);
        let lower = line.to_lowercase();
        assert!(
            lower.contains("gpu") || lower.contains("cuda") || lower.contains("nvidia"),
            "{line}"
        );
    }
}

/// `image render` of a missing model, of a file that is not a checkpoint, and of a checkpoint
/// written by another job.
#[test]
fn render_of_bad_checkpoints() {
    let dir = tmp();
    let render = |model: &Path| {
        run([
            "image".as_ref(),
            "render".as_ref(),
            model.as_os_str(),
            "--size".as_ref(),
            "8".as_ref(),
            "--device".as_ref(),
            "cpu".as_ref(),
            "-o".as_ref(),
            dir.path().join("out.png").as_os_str(),
        ])
    };
    let o = render(&dir.path().join("absent"));
    assert_one_line_error(&o, &["absent", "does not exist"]);

    let not_ck = write(
        dir.path(),
        "notes.safetensors",
        "just some text, not tensors",
    );
    let o = render(Path::new(&not_ck));
    assert_one_line_error(&o, &["notes.safetensors", "safetensors"]);

    let xor = dir.path().join("xor");
    assert_success(&train(&["xor", "--steps", "5"], &xor));
    let o = render(&xor);
    assert_one_line_error(&o, &["`xor`", "image fit"]);
    assert!(!dir.path().join("out.png").exists(), "no image on failure");
}

/// `--hidden` of `image fit` must be WIDTHxDEPTH with both at least 1.
#[test]
fn bad_hidden_spec() {
    let dir = tmp();
    for bad in ["0x3", "abc"] {
        let o = train(
            &[
                "image", "fit", "--size", "8", "--steps", "1", "--hidden", bad,
            ],
            dir.path(),
        );
        assert_one_line_error(&o, &[&format!("{bad:?}"), "WIDTHxDEPTH"]);
    }
}

/// A file that is not an image is named, for `image fit` and `image encode`.
#[test]
fn unreadable_image() {
    let dir = tmp();
    let bad = write(dir.path(), "photo.png", "this is not a PNG");
    let o = train(&["image", "fit", &bad, "--steps", "1"], dir.path());
    assert_one_line_error(&o, &["photo.png", "cannot decode"]);
    let csv = dir.path().join("out.csv");
    let o = run(["image", "encode", &bad, "-o", csv.to_str().unwrap()]);
    assert_one_line_error(&o, &["photo.png", "cannot decode"]);
    assert!(!csv.exists(), "no CSV on failure");
}

/// A pixel CSV with a value out of range cannot be decoded into an image.
#[test]
fn bad_pixel_csv() {
    let dir = tmp();
    let csv = write(dir.path(), "px.csv", "x,y,value\n0,0,12\n1,0,999\n");
    let png = dir.path().join("px.png");
    let o = run(["image", "decode", &csv, "-o", png.to_str().unwrap()]);
    assert_one_line_error(&o, &["px.csv"]);
    assert!(!png.exists());
}
