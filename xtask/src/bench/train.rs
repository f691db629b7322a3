//! `cargo xtask bench train`: one full training step of a SIREN, ours against PyTorch.
//!
//! The timing itself runs in `iron-learn bench train` (so that the same code times the GPU
//! from a packed binary, where cargo is absent); the PyTorch side is
//! `xtask/bench/torch_train.py`. Networks alternate between the two, so both see the same
//! load on the machine.

use super::BenchResult;
use super::options::Options;
use super::torch;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Networks timed: 3 hidden layers of 256, then of 128, on 40,000 coordinates.
const NETWORKS: [&str; 2] = ["256x3", "128x3"];
const POINTS: &str = "40000";

/// The workspace root.
pub(super) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds the release `iron-learn` binary and returns its path.
pub(super) fn build_cli() -> BenchResult<PathBuf> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(workspace())
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "iron-learn",
            "--bin",
            "iron-learn",
        ])
        .status()?;
    if !status.success() {
        return Err("building iron-learn failed".into());
    }
    Ok(workspace().join("target/release/iron-learn"))
}

/// Runs a command to its end and returns what it printed; its error output names `what`
/// when it fails.
pub(super) fn stdout_of(mut cmd: Command, what: &str) -> BenchResult<String> {
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs a command that prints one JSON object and returns its median and the device line.
pub(super) fn json_line(cmd: Command, what: &str) -> BenchResult<(f64, String)> {
    let text = stdout_of(cmd, what)?;
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or(format!("{what} printed no result"))?;
    let v: Value = serde_json::from_str(line)?;
    let median = v["median_ms"]
        .as_f64()
        .ok_or(format!("{what}: no median_ms"))?;
    Ok((median, v["device"].as_str().unwrap_or("?").to_string()))
}

/// Times every network here and, where PyTorch is installed, in PyTorch.
pub fn run(opts: &Options) -> BenchResult {
    let cli = build_cli()?;
    let reps = opts
        .reps
        .unwrap_or(if opts.device == "cuda" { 50 } else { 10 })
        .to_string();
    let threads = opts.threads.to_string();
    let torch_version = torch::version();
    if torch_version.is_none() {
        println!("PyTorch not found (python3 -c 'import torch' failed): timing ours only");
    }
    println!(
        "device {}, {} threads, {POINTS} points, median of {reps} steps after 3 warm-up steps",
        opts.device, opts.threads
    );
    println!(
        "{:<8} {:>12} {:>12} {:>10}",
        "network", "ours ms", "torch ms", "speed-up"
    );
    for net in NETWORKS {
        let mut ours = Command::new(&cli);
        ours.env("RAYON_NUM_THREADS", &threads).args([
            "bench",
            "train",
            "--json",
            "--device",
            &opts.device,
            "--hidden",
            net,
            "--points",
            POINTS,
            "--reps",
            &reps,
        ]);
        let (ours_ms, device) = json_line(ours, "iron-learn bench train")?;
        let theirs = match &torch_version {
            Some(_) => {
                let mut cmd = Command::new(torch::python());
                let script = workspace().join("xtask/bench/torch_train.py");
                cmd.arg(script).args([
                    "--device",
                    &opts.device,
                    "--hidden",
                    net,
                    "--points",
                    POINTS,
                    "--reps",
                    &reps,
                    "--threads",
                    &threads,
                ]);
                Some(json_line(cmd, "torch_train.py")?.0)
            }
            None => None,
        };
        match theirs {
            Some(t) => println!("{net:<8} {ours_ms:>12.1} {t:>12.1} {:>9.2}x", t / ours_ms),
            None => println!("{net:<8} {ours_ms:>12.1} {:>12} {:>10}", "-", "-"),
        }
        if net == NETWORKS[NETWORKS.len() - 1] {
            println!("ours on: {device}");
        }
    }
    if let Some(v) = torch_version {
        println!("torch {v}");
    }
    Ok(())
}
