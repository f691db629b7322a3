//! Assembling the PTX for a real GPU with ptxas, to catch errors and report resource use.

use super::wheel;
use std::path::{Path, PathBuf};
use std::process::Command;

/// ptxas from a toolkit (`PATH`, `$CUDA_HOME`) or from the `nvidia-cuda-nvcc-cu12` wheel.
pub fn find() -> Option<PathBuf> {
    wheel::toolkit_program("ptxas").or_else(|| {
        wheel::first_existing(wheel::package_dir("cuda_nvcc").map(|d| d.join("bin").join("ptxas")))
    })
}

/// What ptxas reported for one kernel.
#[derive(Default)]
struct Usage {
    name: String,
    registers: u32,
    stack: u32,
    spill_stores: u32,
    spill_loads: u32,
    shared: u32,
}

/// The first number in `text` after `key`.
fn number_after(text: &str, key: &str) -> Option<u32> {
    let rest = &text[text.find(key)? + key.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The number just before `key` in `text` ("12 bytes spill stores").
fn number_before(text: &str, key: &str) -> Option<u32> {
    let head = &text[..text.find(key)?];
    head.split_whitespace().last()?.parse().ok()
}

fn parse(report: &str) -> Vec<Usage> {
    let mut kernels: Vec<Usage> = Vec::new();
    for line in report.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            kernels.push(Usage {
                name: rest.trim().to_string(),
                ..Usage::default()
            });
        } else if let Some(k) = kernels.last_mut() {
            if line.contains("stack frame") {
                k.stack = number_before(line, "bytes stack frame").unwrap_or(0);
                k.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                k.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used") && line.contains("registers") {
                k.registers = number_after(line, "Used").unwrap_or(0);
                k.shared = number_before(line, "bytes smem").unwrap_or(0);
            }
        }
    }
    kernels
}

/// Assembles each file for `arch`, printing registers, stack, spills and shared memory per
/// kernel; fails when ptxas rejects a file.
pub fn check_all(ptxas: &Path, arch: &str, files: &[PathBuf]) -> Result<(), String> {
    println!("ptxas check ({}, -arch={arch}):", ptxas.display());
    println!(
        "  {:<22} {:>4} {:>6} {:>7} {:>7} {:>6}",
        "kernel", "regs", "stack", "spill-s", "spill-l", "smem"
    );
    let mut spilled = Vec::new();
    for file in files {
        let out = Command::new(ptxas)
            .args([&format!("-arch={arch}"), "-v", "-o", "/dev/null"])
            .arg(file)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
        let report = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            let hint = if report.contains("requires PTX ISA") {
                format!(
                    "\nthe kernels need a newer PTX ISA than the {} declared: raise \
                     PTX_ISA_VERSION (and PTX_ISA_MIN_CUDA) in crates/tensor-cuda/src/manifest.rs",
                    super::manifest::PTX_ISA_VERSION
                )
            } else {
                String::new()
            };
            return Err(format!(
                "ptxas rejected {}:\n{report}{hint}",
                file.display()
            ));
        }
        for k in parse(&report) {
            println!(
                "  {:<22} {:>4} {:>6} {:>7} {:>7} {:>6}",
                k.name, k.registers, k.stack, k.spill_stores, k.spill_loads, k.shared
            );
            if k.spill_stores > 0 || k.spill_loads > 0 {
                spilled.push(k.name);
            }
        }
    }
    if !spilled.is_empty() {
        println!("warning: register spills in {}", spilled.join(", "));
    }
    Ok(())
}
