//! `cargo xtask test-aarch64`: the tests of the CPU backend and of `nn`, cross-compiled for
//! 64-bit ARM Linux and run under qemu's user-mode emulator, so that the NEON kernels are
//! checked on an x86-64 machine.
//!
//! A test that trains a network for a second or two natively takes minutes under emulation;
//! the few listed in [`SLOW_UNDER_EMULATION`] are skipped, by name, unless `--all` is given
//! (each is a training-quality test whose kernels the other tests check under qemu too, and
//! which the x86 runs execute in full).
//!
//! Needs the Rust target (`rustup target add aarch64-unknown-linux-gnu`), a cross linker
//! (Debian's `gcc-aarch64-linux-gnu`) and qemu (Debian's `qemu-user`); says which is missing
//! and how to install it otherwise.

use std::process::Command;

/// The one-line description shown by `cargo xtask help`.
pub const ABOUT: &str = "run the tensor-cpu and nn tests for aarch64 under qemu \
     (options: -p PACKAGE, --all to include the tests too slow for emulation, -- TEST ARGS)";

/// The Rust target.
const TARGET: &str = "aarch64-unknown-linux-gnu";
/// The cross linker.
const LINKER: &str = "aarch64-linux-gnu-gcc";
/// The emulator, and the folder of the aarch64 C library it loads programs with.
const QEMU: &str = "qemu-aarch64";
const SYSROOT: &str = "/usr/aarch64-linux-gnu";
/// The packages tested when none is named.
const PACKAGES: [&str; 2] = ["iron-learn-tensor-cpu", "iron-learn-nn"];
/// Tests skipped under emulation unless `--all`: their package, names and why.
const SLOW_UNDER_EMULATION: [(&str, &str, &str); 1] = [(
    "iron-learn-nn",
    "siren::siren_fits_a_drawing_far_better_than_relu",
    "trains two 3x64 networks for 300 steps on 4096 pixels: over 5 minutes under qemu",
)];

/// What the command line asks for.
#[derive(Debug, PartialEq)]
struct Request {
    /// The packages to test.
    packages: Vec<String>,
    /// Whether the tests of [`SLOW_UNDER_EMULATION`] run too.
    all: bool,
    /// Arguments for the test binaries.
    test_args: Vec<String>,
}

impl Request {
    /// The slow tests of the packages tested, unless `all`: names and why.
    fn skipped(&self) -> Vec<(&'static str, &'static str)> {
        SLOW_UNDER_EMULATION
            .into_iter()
            .filter(|(package, ..)| !self.all && self.packages.iter().any(|p| p == package))
            .map(|(_, name, why)| (name, why))
            .collect()
    }

    /// The test binaries' arguments: the user's, then a `--skip` per skipped test.
    fn binary_args(&self) -> Vec<String> {
        let mut args = self.test_args.clone();
        for (name, _) in self.skipped() {
            args.extend(["--skip".to_string(), name.to_string()]);
        }
        args
    }
}

/// Runs the task.
pub fn run(args: &[String]) -> crate::TaskResult {
    let request = parse(args)?;
    check_tools()?;
    let runner = format!("{QEMU} -L {SYSROOT}");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args(["test", "--profile", "ci", "--target", TARGET])
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", LINKER)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", &runner);
    for p in &request.packages {
        cargo.args(["-p", p]);
    }
    let binary_args = request.binary_args();
    if !binary_args.is_empty() {
        cargo.arg("--").args(&binary_args);
    }
    println!(
        "testing {} for {TARGET} under {runner}",
        request.packages.join(", ")
    );
    for (name, why) in request.skipped() {
        println!("skipped under emulation (--all runs it): {name} ({why})");
    }
    let status = cargo.status()?;
    if !status.success() {
        return Err(format!("the aarch64 tests failed ({status})").into());
    }
    Ok(())
}

/// The request: packages (`-p NAME`, repeatable; [`PACKAGES`] when none), `--all`, and the
/// arguments after `--`, passed to the test binaries.
fn parse(args: &[String]) -> Result<Request, String> {
    let mut packages = Vec::new();
    let mut all = false;
    let mut it = args.iter();
    let mut test_args = Vec::new();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" | "--package" => match it.next() {
                Some(p) => packages.push(p.clone()),
                None => return Err(format!("{a} needs a package name")),
            },
            "--all" => all = true,
            "--" => {
                test_args = it.cloned().collect();
                break;
            }
            "-h" | "--help" => {
                return Err(format!(
                    "usage: cargo xtask test-aarch64 [-p PACKAGE]... [--all] [-- TEST ARGS]; {ABOUT}"
                ));
            }
            other => return Err(format!("unknown option `{other}` (see --help)")),
        }
    }
    Ok(Request {
        packages: or_default(packages),
        all,
        test_args,
    })
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
        let r = parse(&[]).unwrap();
        assert_eq!(r.packages, strings(&PACKAGES));
        assert!(r.test_args.is_empty() && !r.all);
        let r = parse(&strings(&[
            "-p",
            "iron-learn-nn",
            "--",
            "mlp",
            "--nocapture",
        ]))
        .unwrap();
        assert_eq!(r.packages, strings(&["iron-learn-nn"]));
        assert_eq!(r.test_args, strings(&["mlp", "--nocapture"]));
    }

    #[test]
    fn slow_tests_are_skipped_by_name_unless_all() {
        let r = parse(&strings(&["--", "--nocapture"])).unwrap();
        let args = r.binary_args();
        assert_eq!(args[0], "--nocapture");
        for (_, name, _) in SLOW_UNDER_EMULATION {
            let at = args.iter().position(|a| a == name).expect("skipped");
            assert_eq!(args[at - 1], "--skip");
        }
        let r = parse(&strings(&["--all", "--", "--nocapture"])).unwrap();
        assert!(r.all);
        assert_eq!(r.binary_args(), strings(&["--nocapture"]));
        let r = parse(&strings(&["-p", "iron-learn-tensor-cpu"])).unwrap();
        assert!(r.skipped().is_empty() && r.binary_args().is_empty());
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
