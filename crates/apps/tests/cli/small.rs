//! Small things: a failed write to stdout is a one-line error, not a panic; CSV files with
//! another separator or numbers beyond f32 get a clear line.

use crate::common::*;
use std::path::Path;

/// `iron-learn xor > /dev/full`: stdout cannot be written; the run says so in one line and
/// exits 1 (it used to panic with exit 101).
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let dir = tmp();
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else {
        return;
    };
    let o = command(["xor", "--steps", "5", "--device", "cpu", "--quiet", "--out"])
        .arg(dir.path())
        .stdout(full)
        .output()
        .unwrap();
    assert_one_line_error(&o, &["cannot write to stdout", "no space"]);
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// A semicolon-separated file is read as such (the delimiter is sniffed); a number beyond
/// f32 is "too large for a 32-bit float", as in the JSON reader.
#[test]
fn csv_hints() {
    let dir = tmp();
    let csv = write(dir.path(), "semi.csv", "a;b;y\n1;2;3\n4;5;6\n7;8;9\n");
    let o = train(
        &["linreg", "--data", &csv, "--steps", "5"],
        &dir.path().join("semi"),
    );
    assert_success(&o);
    assert_eq!(num(&metrics(&dir.path().join("semi")), "train_rows"), 2.0);
    let csv = write(dir.path(), "big.csv", "a,b,y\n1,2,3\n4,1e39,6\n7,8,9\n");
    let o = train(&["linreg", "--data", &csv], dir.path());
    assert_one_line_error(
        &o,
        &["line 3", "`b`", "1e39", "too large for a 32-bit float"],
    );
}
