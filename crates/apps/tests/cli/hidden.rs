//! One syntax for network shapes: `--hidden 8,8`, `--hidden 8x2` and mixtures such as
//! `8x2,4` mean the same in every subcommand; anything else is one clear line.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn hidden_of(dir: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("config.json")).expect("no config.json");
    let c: Value = serde_json::from_str(&text).unwrap();
    c["architecture"]["hidden"]
        .as_array()
        .expect("hidden widths")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// Each training subcommand builds the same layers from both forms.
#[test]
fn both_forms_in_every_training_subcommand() {
    let dir = tmp();
    let csv = data("regression.csv");
    let jobs: [&[&str]; 4] = [
        &["xor", "--steps", "2"],
        &[
            "mlp",
            "--data",
            csv.to_str().unwrap(),
            "--model",
            "mlp",
            "--steps",
            "2",
            "--test-fraction",
            "0.2",
        ],
        &[
            "approx",
            "--fn",
            "sin(x)",
            "--samples",
            "50",
            "--steps",
            "2",
        ],
        &["image", "fit", "--size", "8", "--steps", "2"],
    ];
    for (i, job) in jobs.iter().enumerate() {
        for (j, form) in ["8,8,4", "8x2,4"].iter().enumerate() {
            let out = dir.path().join(format!("{i}-{j}"));
            let mut args: Vec<&str> = job.to_vec();
            args.extend(["--hidden", form]);
            let o = train(&args, &out);
            assert_success(&o);
            assert_eq!(hidden_of(&out), vec![8, 8, 4], "{job:?} --hidden {form}");
        }
    }
}

/// `bench train` times one network per --hidden, in either form.
#[test]
fn bench_takes_both_forms() {
    let o = run([
        "bench", "train", "-d", "cpu", "--points", "64", "--reps", "1", "--json", "--hidden",
        "8x2", "--hidden", "8,8",
    ]);
    assert_success(&o);
    let out = stdout(&o);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["parameters"], lines[1]["parameters"], "{out}");
}

/// Bad shapes are one line naming the value and the accepted forms, in every subcommand.
#[test]
fn bad_shapes_are_one_line() {
    let dir = tmp();
    let csv = data("regression.csv");
    for bad in ["0x3", "8,", "8x", "eight"] {
        for job in [
            vec!["xor"],
            vec!["mlp", "--data", csv.to_str().unwrap()],
            vec!["approx", "--fn", "x"],
        ] {
            let mut args = job.clone();
            args.extend(["--steps", "1", "--hidden", bad]);
            let o = train(&args, dir.path());
            assert_one_line_error(&o, &[&format!("{bad:?}"), "WIDTHxDEPTH", "--hidden"]);
        }
    }
}
