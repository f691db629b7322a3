//! `cargo xtask bench image-fit --image PHOTO`: the time a fit of a photo takes to reach
//! 30, 35, 38 and 40 dB PSNR, for `iron-learn image fit` with the hash grid and with SIREN, and
//! for the same hash-grid recipe in plain PyTorch (`xtask/bench/torch_hashgrid.py fit`),
//! one after the other in one run.
//!
//! Seconds are training time: ours from the `elapsed_s` column of the run's `history.csv`
//! (PSNR from the logged training loss, which is the whole image's MSE when the image has at
//! most 65,536 pixels, the default batch), PyTorch's from the script's own clock, evaluation
//! excluded.

use super::BenchResult;
use super::options::Options;
use super::torch;
use super::train::{build_cli, stdout_of, workspace};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const GOALS: [f64; 4] = [30.0, 35.0, 38.0, 40.0];

/// Steps of each run: enough for the hash grid to pass 40 dB on a 256x256 photo, and the
/// SIREN default.
const HASH_GRID_STEPS: &str = "100";
const SIREN_STEPS: &str = "400";

/// One contender's result: seconds to each goal (`None`: not reached) and the final PSNR.
struct Outcome {
    name: &'static str,
    seconds_to: Vec<Option<f64>>,
    final_psnr: f64,
    steps: u64,
}

/// Runs the three fits and prints the table.
pub fn run(opts: &Options) -> BenchResult {
    let image = opts
        .image
        .as_deref()
        .ok_or("image-fit needs --image PATH (a photo, e.g. 256x256 RGB)")?;
    if !image.is_file() {
        return Err(format!("{} is not a file", image.display()).into());
    }
    let cli = build_cli()?;
    let threads = opts.threads.to_string();
    let scratch = std::env::temp_dir().join(format!("iron-learn-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    println!(
        "{}: time to {} dB PSNR, {} threads",
        image.display(),
        GOALS.map(|g| g.to_string()).join("/"),
        opts.threads
    );
    let mut results = Vec::new();
    for (name, arch, steps) in [
        ("ours, hash grid", "hashgrid", HASH_GRID_STEPS),
        ("ours, SIREN", "siren", SIREN_STEPS),
    ] {
        let out = scratch.join(arch);
        let mut cmd = Command::new(&cli);
        cmd.env("RAYON_NUM_THREADS", &threads)
            .arg("image")
            .arg("fit")
            .arg(image)
            .args(["--arch", arch, "--steps", steps, "-q", "--force", "--out"])
            .arg(&out);
        stdout_of(cmd, &format!("iron-learn image fit --arch {arch}"))?;
        results.push(ours(name, &out)?);
    }
    match torch::version() {
        Some(v) => {
            let mut cmd = Command::new(torch::python());
            cmd.arg(workspace().join("xtask/bench/torch_hashgrid.py"))
                .args(["fit", "--image"])
                .arg(image)
                .args(["--steps", HASH_GRID_STEPS, "--threads", &threads]);
            results.push(theirs(cmd)?);
            println!("PyTorch {v}");
        }
        None => println!("PyTorch not found (python3 -c 'import torch' failed): ours only"),
    }
    let _ = std::fs::remove_dir_all(&scratch);
    print!("{:<22}", "fit");
    for g in GOALS {
        print!(" {:>10}", format!("{g} dB s"));
    }
    println!(" {:>10} {:>6}", "final dB", "steps");
    for r in &results {
        print!("{:<22}", r.name);
        for s in &r.seconds_to {
            match s {
                Some(s) => print!(" {s:>10.1}"),
                None => print!(" {:>10}", "-"),
            }
        }
        println!(" {:>10.2} {:>6}", r.final_psnr, r.steps);
    }
    Ok(())
}

/// PSNR of a mean squared error of values in `[0, 1]`.
fn psnr(mse: f64) -> f64 {
    10.0 * (1.0 / mse.max(1e-12)).log10()
}

/// Reads a finished run's `history.csv` and `metrics.json`.
fn ours(name: &'static str, dir: &Path) -> BenchResult<Outcome> {
    let history = std::fs::read_to_string(dir.join("history.csv"))?;
    let mut seconds_to = vec![None; GOALS.len()];
    for line in history.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (Some(loss), Some(elapsed)) = (cols.get(2), cols.get(5)) else {
            continue;
        };
        let (Ok(loss), Ok(elapsed)) = (loss.parse::<f64>(), elapsed.parse::<f64>()) else {
            continue;
        };
        for (slot, goal) in seconds_to.iter_mut().zip(GOALS) {
            if slot.is_none() && psnr(loss) >= goal {
                *slot = Some(elapsed);
            }
        }
    }
    let metrics: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json"))?)?;
    Ok(Outcome {
        name,
        seconds_to,
        final_psnr: metrics["psnr"].as_f64().unwrap_or(f64::NAN),
        steps: metrics["steps"].as_u64().unwrap_or(0),
    })
}

/// Runs the PyTorch script and reads its summary line.
fn theirs(cmd: Command) -> BenchResult<Outcome> {
    let text = stdout_of(cmd, "torch_hashgrid.py fit")?;
    let line = text
        .lines()
        .rev()
        .find(|l| l.contains("\"summary\""))
        .ok_or("torch_hashgrid.py fit printed no summary")?;
    let v: Value = serde_json::from_str(line)?;
    Ok(Outcome {
        name: "PyTorch, hash grid",
        seconds_to: GOALS
            .iter()
            .map(|g| v["seconds_to"][format!("{g}")].as_f64())
            .collect(),
        final_psnr: v["final_psnr"].as_f64().unwrap_or(f64::NAN),
        steps: v["steps"].as_u64().unwrap_or(0),
    })
}
