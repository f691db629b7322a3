//! Messages that say what is true: too few training rows are named as such, values print as
//! a person writes them (no Rust debug text, no 301-digit integers), a finished run resumed
//! shows no progress beyond 100%, and a closed-form comparison never reads "-0.00%".

use crate::common::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes a CSV of `rows` rows, `x0,x1,y`, with `y = target(row)`, into `dir/name`.
fn csv(dir: &Path, name: &str, rows: usize, target: impl Fn(usize) -> f64) -> PathBuf {
    let mut text = String::from("x0,x1,y\n");
    for r in 0..rows {
        let (a, b) = ((r as f64 * 0.37).sin(), (r as f64 * 0.91).cos());
        writeln!(text, "{a:.5},{b:.5},{}", target(r)).unwrap();
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A test or validation fraction that leaves one training row says so, with the fractions
/// and the row counts, instead of calling the target constant.
#[test]
fn splits_that_leave_one_training_row_say_so() {
    let dir = tmp();
    let five = csv(dir.path(), "five.csv", 5, |r| r as f64);
    let file = five.to_str().unwrap();
    for job in ["linreg", "mlp"] {
        let o = train(
            &[job, "--data", file, "--test-fraction", "0.8"],
            &dir.path().join(job),
        );
        let line = assert_one_line_error(
            &o,
            &[
                "test fraction of 0.8",
                "--test-fraction",
                "1 training row",
                "of 5",
                "at least two",
            ],
        );
        assert!(!line.contains("constant"), "{line}");
    }
    // Eight rows: four left after the test part, three of them taken for validation.
    let eight = csv(dir.path(), "eight.csv", 8, |r| r as f64);
    let o = train(
        &[
            "linreg",
            "--data",
            eight.to_str().unwrap(),
            "--test-fraction",
            "0.5",
            "--val-fraction",
            "0.75",
        ],
        &dir.path().join("val"),
    );
    assert_one_line_error(
        &o,
        &[
            "validation fraction of 0.75",
            "--val-fraction",
            "1 training row",
            "of 8",
        ],
    );
    assert!(!dir.path().join("val").join("model.safetensors").exists());
}

/// A classification target with one value names that value as a number, not as
/// `Some(0.0)`.
#[test]
fn a_single_class_is_named_as_a_number() {
    let dir = tmp();
    let flat = csv(dir.path(), "flat.csv", 40, |_| 0.0);
    let o = train(
        &[
            "mlp",
            "--data",
            flat.to_str().unwrap(),
            "--task",
            "classification",
        ],
        &dir.path().join("run"),
    );
    let line = assert_one_line_error(&o, &["single class (0)"]);
    assert!(!line.contains("Some"), "{line}");
}

/// A range beyond 32-bit floats is refused naming its end as `-1e300`, with no run of
/// digits longer than a person would write.
#[test]
fn huge_ranges_print_in_exponent_form() {
    let dir = tmp();
    let o = train(
        &["approx", "--fn", "x", "--range", "-1e300:1e300"],
        &dir.path().join("run"),
    );
    let line = assert_one_line_error(&o, &["\"-1e300\"", "beyond 32-bit floats"]);
    let longest = line
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(longest < 20, "a {longest}-digit number in {line:?}");
}

/// Resuming a run that already reached its length trains nothing and says so, and prints no
/// progress line beyond 100% (it used to show "step 1000/400 (250%)").
#[test]
fn resuming_a_finished_run_shows_no_progress_past_its_end() {
    let dir = tmp();
    let run_dir = dir.path().join("run");
    assert_success(&train(&["xor", "--steps", "60"], &run_dir));
    let mut cmd = command(["xor", "--steps", "40", "--resume", "--log-every", "10"]);
    cmd.args(["--device", "cpu", "--out"]).arg(&run_dir);
    let o = cmd.output().unwrap();
    assert_success(&o);
    let err = stderr(&o);
    assert!(err.contains("already at step 60 of 40"), "{}", describe(&o));
    assert!(!err.contains("60/40"), "{}", describe(&o));
    assert!(!err.contains("150%"), "{}", describe(&o));
}

/// Gradient descent run long on a noisy linear target reaches the closed form: the report says
/// that it matches, never "-0.00%" or "+0.00%".
#[test]
fn a_closed_form_match_reads_as_a_match() {
    let dir = tmp();
    let noisy = csv(dir.path(), "noisy.csv", 200, |r| {
        let (a, b) = ((r as f64 * 0.37).sin(), (r as f64 * 0.91).cos());
        2.0 * a - b + 0.3 * ((r * 7919 % 101) as f64 / 101.0 - 0.5)
    });
    let o = train(
        &[
            "linreg",
            "--data",
            noisy.to_str().unwrap(),
            "--steps",
            "3000",
        ],
        &dir.path().join("run"),
    );
    assert_success(&o);
    let out = stdout(&o);
    assert!(!out.contains("0.00%"), "{out}");
    assert!(
        out.contains("matches the closed-form test MSE"),
        "gradient descent should reach the closed form here: {out}"
    );
}

/// A SIREN fit that stopped early has speckle on the drawing's blank paper although its loss
/// curve has flattened under the decaying schedule: it is called under-trained, with the
/// speckle measured. A hash-grid fit of the same drawing is clean and gets no such note.
#[test]
fn speckle_on_blank_paper_is_called_under_trained() {
    let dir = tmp();
    let short = dir.path().join("siren");
    let o = train(
        &[
            "image", "fit", "--size", "64", "--steps", "40", "--arch", "siren",
        ],
        &short,
    );
    assert_success(&o);
    let m = metrics(&short);
    assert!(num(&m, "flat_area_noise") > 2.5, "{m}");
    assert_eq!(m["under_trained"], true, "{m}");
    let out = stdout(&o);
    assert!(out.contains("note: under-trained"), "{out}");
    assert!(out.contains("speckle"), "{out}");
    let clean = dir.path().join("hashgrid");
    let o = train(
        &["image", "fit", "--size", "64", "--arch", "hashgrid"],
        &clean,
    );
    assert_success(&o);
    let m = metrics(&clean);
    assert!(num(&m, "flat_area_noise") < 1.0, "{m}");
    assert_eq!(m["under_trained"], false, "{m}");
    assert!(!stdout(&o).contains("under-trained"), "{}", stdout(&o));
}

/// A function that starts with a minus sign is the function, not a flag: `--fn "-x^2"`
/// fits -x^2.
#[test]
fn a_function_may_start_with_a_minus_sign() {
    let dir = tmp();
    let o = train(
        &["approx", "--fn", "-x^2", "--steps", "5"],
        &dir.path().join("run"),
    );
    assert_success(&o);
    assert!(stdout(&o).contains("-x^2 on [-3, 3]"), "{}", describe(&o));
}
