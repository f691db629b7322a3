//! `cargo xtask bench tables`: `iron-learn mlp` with its defaults against scikit-learn's
//! usual pipelines (LogisticRegression or Ridge, and an MLP) on the same rows of published
//! tables, side by side in one run (`xtask/bench/sklearn_tables.py`, described in
//! `xtask/bench/README.md`).

use super::BenchResult;
use super::options::Options;
use super::torch::python;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds the release binary, then runs the comparison on `../shared/tables` when that
/// folder exists, on tables the script generates otherwise.
pub fn run(_options: &Options) -> BenchResult {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent folder")?
        .to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["build", "--release", "-p", "iron-learn"])
        .status()?;
    if !status.success() {
        return Err("building iron-learn failed".into());
    }
    let binary = root.join("target/release/iron-learn");
    let shared = root.join("../shared/tables");
    let script = root.join("xtask/bench/sklearn_tables.py");
    let mut cmd = Command::new(python());
    cmd.arg(&script).arg(&binary);
    if shared.is_dir() {
        cmd.arg(&shared);
    } else {
        println!("no ../shared/tables: benchmarking on generated tables");
        cmd.arg("--generate");
    }
    let status = cmd.status()?;
    if !status.success() {
        return Err(format!(
            "{} failed (it needs numpy, pandas and scikit-learn)",
            script.display()
        )
        .into());
    }
    Ok(())
}
