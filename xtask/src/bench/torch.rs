//! Runs `xtask/bench/torch_gemm.py` to time the same products in PyTorch.

use super::BenchResult;
use super::gemm::Case;
use std::path::PathBuf;
use std::process::Command;

/// The Python interpreter to use (`PYTHON`, else `python3`).
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The PyTorch version, or `None` when `import torch` fails.
pub fn version() -> Option<String> {
    let out = Command::new(python())
        .args(["-c", "import torch; print(torch.__version__)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Median seconds of each case in PyTorch with `threads` threads, in the order given.
pub fn time_cases(cases: &[Case], threads: usize) -> BenchResult<Vec<f64>> {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "bench", "torch_gemm.py"]
        .iter()
        .collect();
    let mut cmd = Command::new(python());
    cmd.arg(&script).arg(threads.to_string());
    for c in cases {
        cmd.arg(format!(
            "{},{},{},{},{},{}",
            c.m, c.k, c.n, c.trans_a as u8, c.trans_b as u8, c.reps
        ));
    }
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let secs: Vec<f64> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5)?.parse().ok())
        .collect();
    if secs.len() != cases.len() {
        return Err(format!(
            "torch_gemm.py printed {} timings for {} cases",
            secs.len(),
            cases.len()
        )
        .into());
    }
    Ok(secs)
}
