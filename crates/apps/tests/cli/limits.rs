//! Requests too large for memory are refused in one line before anything large is allocated
//! (the process never aborts on a failed allocation), and bad numeric options say what a value
//! must be.
//!
//! The budget is pinned with IRON_LEARN_MEMORY_LIMIT so that the outcome does not depend on
//! the machine's memory.

use crate::common::*;
use std::process::Output;

/// Runs with a memory budget of `limit`.
fn with_limit(limit: &str, args: &[&str], out: &std::path::Path) -> Output {
    let mut cmd = command(args);
    cmd.args(["--device", "cpu", "--quiet", "--out"])
        .arg(out)
        .env("IRON_LEARN_MEMORY_LIMIT", limit);
    cmd.output().expect("cannot start iron-learn")
}

/// The five requests that used to abort with "memory allocation of ... bytes failed".
#[test]
fn impossible_requests_are_refused() {
    let dir = tmp();
    let regression = data("regression.csv");
    let drawing = data("drawing.png");
    let cases: [(Vec<&str>, &[&str]); 5] = [
        (
            vec!["image", "fit", drawing.to_str().unwrap(), "--size", "16000"],
            &["image fit", "memory", "pixels"],
        ),
        (
            vec!["approx", "--fn", "sin(x)", "--samples", "100000000"],
            &["approx", "memory", "points"],
        ),
        (
            vec![
                "mlp",
                "--data",
                regression.to_str().unwrap(),
                "--hidden",
                "100000,100000",
            ],
            &["mlp", "10.0 billion parameters", "smaller hidden"],
        ),
        (
            vec!["xor", "--hidden", "4000000000"],
            &["xor", "billion parameters"],
        ),
        (
            vec!["bench", "train", "--points", "1000000000"],
            &["bench train", "memory"],
        ),
    ];
    for (args, needles) in cases {
        let mut cmd = command(&args);
        if args[0] != "bench" {
            cmd.args(["--quiet", "--out"]).arg(dir.path().join("run"));
        }
        // An image fit draws its batches from a compact copy of the image, so 16000x16000
        // needs "only" some gigabytes: a smaller budget refuses it.
        let limit = if args[0] == "image" { "2G" } else { "32G" };
        let o = cmd
            .args(["--device", "cpu"])
            .env("IRON_LEARN_MEMORY_LIMIT", limit)
            .output()
            .unwrap();
        assert_one_line_error(&o, needles);
        assert!(!dir.path().join("run").exists(), "{args:?} left a folder");
    }
}

/// `image fit --size` is bounded for user images as it is for the bundled drawing.
#[test]
fn image_size_is_bounded() {
    let dir = tmp();
    let drawing = data("drawing.png");
    let o = train(
        &[
            "image",
            "fit",
            drawing.to_str().unwrap(),
            "--size",
            "100000",
        ],
        dir.path(),
    );
    assert_one_line_error(&o, &["--size", "16384", "100000"]);
}

/// The same job passes or is refused depending on the budget: the estimate is what decides.
#[test]
fn the_budget_decides() {
    let dir = tmp();
    let job = ["approx", "--fn", "x^2", "--steps", "3"];
    let o = with_limit("1M", &job, &dir.path().join("small"));
    assert_one_line_error(&o, &["approx", "1.0 MB is available"]);
    let o = with_limit("1G", &job, &dir.path().join("big"));
    assert_success(&o);
    let o = with_limit("lots", &job, &dir.path().join("bad"));
    assert_one_line_error(&o, &["IRON_LEARN_MEMORY_LIMIT", "lots"]);
}

/// Negative numbers are values: where they mean something (a seed) they are accepted, where
/// they do not the option says what it must be, in one line (clap's own errors included).
#[test]
fn negative_and_zero_values() {
    let dir = tmp();
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["xor", "--lr", "-1"],
            &["--lr", "must be a positive number"],
        ),
        (
            &["xor", "--lr", "0"],
            &["--lr", "must be a positive number"],
        ),
        (
            &["image", "fit", "--size", "-5"],
            &["--size", "must be a positive whole number"],
        ),
        (
            &["xor", "--steps", "-3"],
            &["--steps", "must be a positive whole number"],
        ),
        (
            &["bench", "train", "--reps", "0"],
            &["--reps", "must be a positive whole number"],
        ),
        (
            &["bench", "train", "--points", "0"],
            &["--points", "must be a positive whole number"],
        ),
    ];
    for (args, needles) in cases {
        let o = run(args);
        assert!(!o.status.success(), "{args:?}: {}", describe(&o));
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {err}");
        }
        assert!(!err.contains("unexpected argument"), "{err}");
    }
    // A missing required option is one line too.
    let o = run(["linreg"]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.trim_end().lines().count() == 1,
        "{err}"
    );
    assert!(err.contains("--data"), "{err}");
    // A negative seed is a seed (wrapped to 64 bits, as in PyTorch).
    let o = train(&["xor", "--steps", "5", "--seed", "-1"], dir.path());
    assert_success(&o);
}
