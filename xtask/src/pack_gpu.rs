//! `cargo xtask pack-gpu`: builds what is checked on a machine with an NVIDIA GPU (which has
//! no Rust toolchain) and puts it in `.gpu/`: the test binaries of the CUDA backend (and of
//! any other package named), the CPU test binaries of `tensor-cpu` and `nn` (the GPU host is
//! also an x86 CPU, usually one with AVX-512, where every vector path can be forced and
//! tested), the `iron-learn` binary, the PyTorch reference scripts, the vector-path benchmark
//! and the check script `xtask/gpu/check.sh`. Copy `.gpu/` there and run `.gpu/check.sh`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The one-line description shown by `cargo xtask help`.
pub const ABOUT: &str =
    "build the GPU test binaries, iron-learn and the check script into .gpu/ (options: -p PACKAGE)";

/// Where the pack goes, under the workspace root.
const PACK: &str = ".gpu";
/// The profile the test binaries are built with (the tensor kernels optimised, quick to
/// build); `iron-learn`, which the check script times, is a release build.
const PROFILE: &str = "ci";
/// The packages whose tests `check.sh cpu` runs under each vector path the host has.
const CPU_PACKAGES: [&str; 2] = ["iron-learn-tensor-cpu", "iron-learn-nn"];

/// Runs the task.
pub fn run(args: &[String]) -> crate::TaskResult {
    let mut packages = vec!["iron-learn-tensor-cuda".to_string()];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" | "--package" => {
                packages.push(it.next().ok_or("-p needs a package name")?.clone())
            }
            "-h" | "--help" => {
                return Err(format!("usage: cargo xtask pack-gpu [-p PACKAGE]...; {ABOUT}").into());
            }
            other => return Err(format!("unknown option `{other}` (see --help)").into()),
        }
    }
    let root = workspace_root();
    let pack = root.join(PACK);
    if pack.exists() {
        std::fs::remove_dir_all(&pack)?;
    }
    std::fs::create_dir_all(pack.join("tests"))?;
    std::fs::create_dir_all(pack.join("cpu-tests"))?;
    std::fs::create_dir_all(pack.join("bench"))?;
    copy_tests(&test_binaries(&root, &packages)?, &pack.join("tests"))?;
    let cpu_packages = CPU_PACKAGES.map(String::from);
    copy_tests(
        &test_binaries(&root, &cpu_packages)?,
        &pack.join("cpu-tests"),
    )?;
    cargo(&root, &["build", "--release", "--bin", "iron-learn"])?;
    let bin = root.join("target").join("release").join("iron-learn");
    copy(&bin, &pack.join("iron-learn"))?;
    for script in [
        "torch_gpu.py",
        "torch_train.py",
        "torch_hashgrid.py",
        "simd_paths.sh",
        "tables_peers.py",
    ] {
        copy(
            &root.join("xtask/bench").join(script),
            &pack.join("bench").join(script),
        )?;
    }
    copy(&root.join("xtask/gpu/check.sh"), &pack.join("check.sh"))?;
    exclude_from_git(&root)?;
    println!(
        "packed into {}: copy it to the GPU machine and run .gpu/check.sh",
        pack.display()
    );
    Ok(())
}

/// The workspace root (the parent of this crate's folder).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// Runs cargo with `args` in `root`, failing on a non-zero exit.
fn cargo(root: &Path, args: &[&str]) -> crate::TaskResult {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(root)
        .status()?;
    if !status.success() {
        return Err(format!("cargo {} failed ({status})", args.join(" ")).into());
    }
    Ok(())
}

/// Builds the test binaries of `packages` and returns their paths (from cargo's JSON
/// messages).
fn test_binaries(
    root: &Path,
    packages: &[String],
) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args([
        "test",
        "--profile",
        PROFILE,
        "--no-run",
        "--message-format=json",
    ])
    .current_dir(root)
    .stderr(Stdio::inherit());
    for p in packages {
        cmd.args(["-p", p]);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!("building the test binaries failed ({})", out.status).into());
    }
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        // Test harnesses only: examples built alongside (`cargo test` builds them) are not tests.
        let is_example = msg["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "example"));
        let is_test = msg["profile"]["test"].as_bool() == Some(true) && !is_example;
        if msg["reason"] == "compiler-artifact"
            && is_test
            && let Some(exe) = msg["executable"].as_str()
        {
            found.push(PathBuf::from(exe));
        }
    }
    Ok(found)
}

/// Copies the test binaries `exes` into `dir`, each under its name without cargo's hash.
fn copy_tests(exes: &[PathBuf], dir: &Path) -> crate::TaskResult {
    for exe in exes {
        let name = exe.file_name().and_then(|n| n.to_str()).unwrap_or("test");
        // Cargo names test binaries NAME-HASH; the pack keeps NAME.
        let short = name.rsplit_once('-').map_or(name, |(n, _)| n);
        copy(exe, &dir.join(short))?;
    }
    Ok(())
}

/// Copies `from` to `to`, naming both on failure.
fn copy(from: &Path, to: &Path) -> crate::TaskResult {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()).into())
}

/// Adds the pack folder to the repository's exclude file, so that it is never committed.
fn exclude_from_git(root: &Path) -> crate::TaskResult {
    let out = Command::new("git")
        .args(["rev-parse", "--git-path", "info/exclude"])
        .current_dir(root)
        .output()?;
    if !out.status.success() {
        return Ok(()); // not a git checkout: nothing to exclude from
    }
    let path = root.join(String::from_utf8_lossy(&out.stdout).trim());
    let line = format!("/{PACK}/");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if !old.lines().any(|l| l == line) {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, format!("{old}{line}\n"))?;
    }
    Ok(())
}
