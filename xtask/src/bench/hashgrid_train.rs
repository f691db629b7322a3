//! `cargo xtask bench hashgrid-train`: one full training step of the hash-grid model
//! (batch 2^16, 16 levels of 2 features, T = 2^18, ReLU MLP 2x64, Adam), ours against the
//! same model in plain PyTorch (`xtask/bench/torch_hashgrid.py step`).
//!
//! Ours runs in `iron-learn bench train --hashgrid 18`; the two sides alternate, round
//! after round, so that both see the same load on the machine.

use super::BenchResult;
use super::options::Options;
use super::torch;
use super::train::{build_cli, json_line, workspace};
use std::process::Command;

const POINTS: &str = "65536";
const LOG2_TABLE: &str = "18";
const ROUNDS: usize = 3;

/// Times the step here and, where PyTorch is installed, in PyTorch.
pub fn run(opts: &Options) -> BenchResult {
    let cli = build_cli()?;
    let reps = opts
        .reps
        .unwrap_or(if opts.device == "cuda" { 50 } else { 5 })
        .to_string();
    let threads = opts.threads.to_string();
    let torch_version = torch::version();
    if torch_version.is_none() {
        println!("PyTorch not found (python3 -c 'import torch' failed): timing ours only");
    }
    println!(
        "device {}, {} threads, batch {POINTS}, 16 levels x 2 features, T = 2^{LOG2_TABLE}, MLP 64x2, median of {reps} steps per round",
        opts.device, opts.threads
    );
    println!(
        "{:<6} {:>12} {:>12} {:>10}",
        "round", "ours ms", "torch ms", "speed-up"
    );
    let mut device = String::new();
    for round in 1..=ROUNDS {
        let mut ours = Command::new(&cli);
        ours.env("RAYON_NUM_THREADS", &threads).args([
            "bench",
            "train",
            "--json",
            "--device",
            &opts.device,
            "--hashgrid",
            LOG2_TABLE,
            "--hidden",
            "64x2",
            "--points",
            POINTS,
            "--reps",
            &reps,
        ]);
        let (ours_ms, dev) = json_line(ours, "iron-learn bench train --hashgrid")?;
        device = dev;
        let theirs = match &torch_version {
            Some(_) => {
                let mut cmd = Command::new(torch::python());
                let script = workspace().join("xtask/bench/torch_hashgrid.py");
                cmd.arg(script).args([
                    "step",
                    "--batch",
                    POINTS,
                    "--log2-table",
                    LOG2_TABLE,
                    "--reps",
                    &reps,
                    "--threads",
                    &threads,
                ]);
                Some(json_line(cmd, "torch_hashgrid.py step")?.0)
            }
            None => None,
        };
        match theirs {
            Some(t) => println!("{round:<6} {ours_ms:>12.1} {t:>12.1} {:>9.1}x", t / ours_ms),
            None => println!("{round:<6} {ours_ms:>12.1} {:>12} {:>10}", "-", "-"),
        }
    }
    println!("ours on: {device}");
    if let Some(v) = torch_version {
        println!("torch {v}");
    }
    Ok(())
}
