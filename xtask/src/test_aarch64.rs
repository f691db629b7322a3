//! `cargo xtask test-aarch64`: the tests of the CPU backend and of `nn`, cross-compiled for
//! 64-bit ARM Linux and run under qemu's user-mode emulator, so that the NEON kernels are
//! checked on an x86-64 machine.
//!
//! Needs the Rust target (`rustup target add aarch64-unknown-linux-gnu`), a cross linker
//! (Debian's `gcc-aarch64-linux-gnu`) and qemu (Debian's `qemu-user`); says which is missing
//! and how to install it otherwise.

use std::process::Command;

/// The one-line description shown by `cargo xtask help`.
pub const ABOUT: &str =
    "run the tensor-cpu and nn tests for aarch64 under qemu (options: -p PACKAGE, -- TEST ARGS)";

/// The Rust target.
const TARGET: &str = "aarch64-unknown-linux-gnu";
/// The cross linker.
const LINKER: &str = "aarch64-linux-gnu-gcc";
/// The emulator, and the folder of the aarch64 C library it loads programs with.
const QEMU: &str = "qemu-aarch64";
const SYSROOT: &str = "/usr/aarch64-linux-gnu";
/// The packages tested when none is named.
const PACKAGES: [&str; 2] = ["iron-learn-tensor-cpu", "iron-learn-nn"];

/// Runs the task.
pub fn run(args: &[String]) -> crate::TaskResult {
    let (packages, test_args) = parse(args)?;
    check_tools()?;
    let runner = format!("{QEMU} -L {SYSROOT}");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args(["test", "--profile", "ci", "--target", TARGET])
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", LINKER)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", &runner);
    for p in &packages {
        cargo.args(["-p", p]);
    }
    if !test_args.is_empty() {
        cargo.arg("--").args(&test_args);
    }
    println!(
        "testing {} for {TARGET} under {runner}",
        packages.join(", ")
    );
    let status = cargo.status()?;
    if !status.success() {
        return Err(format!("the aarch64 tests failed ({status})").into());
    }
    Ok(())
}

/// The packages (`-p NAME`, repeatable; [`PACKAGES`] when none) and the arguments after
/// `--`, passed to the test binaries.
fn parse(args: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut packages = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" | "--package" => match it.next() {
                Some(p) => packages.push(p.clone()),
                None => return Err(format!("{a} needs a package name")),
            },
            "--" => return Ok((or_default(packages), it.cloned().collect())),
            "-h" | "--help" => {
                return Err(format!(
                    "usage: cargo xtask test-aarch64 [-p PACKAGE]... [-- TEST ARGS]; {ABOUT}"
                ));
            }
            other => return Err(format!("unknown option `{other}` (see --help)")),
        }
    }
    Ok((or_default(packages), Vec::new()))
}

fn or_default(packages: Vec<String>) -> Vec<String> {
    if packages.is_empty() {
        PACKAGES.iter().map(|p| p.to_string()).collect()
    } else {
        packages
    }
}

/// An error naming the first missing tool and how to get it.
fn check_tools() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.trim() == TARGET)
        })
        .unwrap_or(false);
    if !installed {
        return Err(format!(
            "the Rust target {TARGET} is not installed: run `rustup target add {TARGET}`"
        ));
    }
    for (tool, package) in [(LINKER, "gcc-aarch64-linux-gnu"), (QEMU, "qemu-user")] {
        let found = Command::new(tool).arg("--version").output().is_ok();
        if !found {
            return Err(format!(
                "`{tool}` not found: install it (Debian and Ubuntu: `apt-get install {package}`)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn packages_default_to_the_backend_and_nn_and_test_args_pass_through() {
        let (p, t) = parse(&[]).unwrap();
        assert_eq!(p, strings(&PACKAGES));
        assert!(t.is_empty());
        let (p, t) = parse(&strings(&[
            "-p",
            "iron-learn-nn",
            "--",
            "mlp",
            "--nocapture",
        ]))
        .unwrap();
        assert_eq!(p, strings(&["iron-learn-nn"]));
        assert_eq!(t, strings(&["mlp", "--nocapture"]));
    }

    #[test]
    fn bad_options_are_refused() {
        assert!(
            parse(&strings(&["-p"]))
                .unwrap_err()
                .contains("needs a package")
        );
        assert!(
            parse(&strings(&["--fast"]))
                .unwrap_err()
                .contains("unknown option")
        );
    }
}
