//! `cargo xtask bench tables`: `iron-learn mlp` with its defaults against scikit-learn's
//! linear pipeline, HistGradientBoosting and LightGBM (and RealMLP-TD / TabM-D where pytabkit
//! is installed) on the same three 75/25 splits of 13 published tables, side by side in one
//! run (`xtask/bench/tables_peers.py`, described in `xtask/bench/README.md`). Without the
//! tables, `sklearn_tables.py` compares on two tables it generates.

use super::BenchResult;
use super::options::Options;
use super::torch::python;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the folder of published tables.
const TABLES_ENV: &str = "IRON_LEARN_TABLES";

/// The tables folder: `--tables`, else `$IRON_LEARN_TABLES`, else `../shared/tables`.
fn tables_dir(options: &Options, root: &Path) -> PathBuf {
    options
        .tables
        .clone()
        .or_else(|| std::env::var_os(TABLES_ENV).map(PathBuf::from))
        .unwrap_or_else(|| root.join("../shared/tables"))
}

/// Builds the release binary, then runs the comparison on the tables folder when it exists,
/// on tables the script generates otherwise. The peers' figures are cached in
/// `target/tables-peers.json`; the Markdown table is written to `target/tables-bench.md`.
pub fn run(options: &Options) -> BenchResult {
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
    let tables = tables_dir(options, &root);
    let mut cmd = Command::new(python());
    if tables.is_dir() {
        cmd.arg(root.join("xtask/bench/tables_peers.py"))
            .arg(&binary)
            .arg(&tables)
            .arg("--cache")
            .arg(root.join("target/tables-peers.json"))
            .arg("--markdown")
            .arg(root.join("target/tables-bench.md"));
    } else {
        println!(
            "no tables folder ({} missing; give --tables DIR or {TABLES_ENV}): benchmarking on generated tables",
            tables.display()
        );
        cmd.arg(root.join("xtask/bench/sklearn_tables.py"))
            .arg(&binary)
            .arg("--generate");
    }
    let status = cmd.status()?;
    if !status.success() {
        return Err(
            "the tables comparison failed (it needs numpy, pandas, scikit-learn and lightgbm)"
                .into(),
        );
    }
    Ok(())
}
