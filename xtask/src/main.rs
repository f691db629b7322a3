//! Project tasks, run as `cargo xtask <task> [options]` (an alias for
//! `cargo run --release --package xtask --`).
//!
//! Each task lives in its own module with an `ABOUT` line and a `run` function taking the
//! arguments that follow the task name; adding a task means adding a module and a row to
//! [`TASKS`].

mod bench;
mod build_kernels;
mod pack_gpu;
#[cfg(test)]
mod readme_tables;
mod test_aarch64;

use std::process::ExitCode;

/// What a task returns: success, or an error to print before exiting non-zero.
pub type TaskResult = Result<(), Box<dyn std::error::Error>>;

/// One subcommand.
struct Task {
    /// The name given on the command line.
    name: &'static str,
    /// One line shown by `cargo xtask help`.
    about: &'static str,
    /// Runs the task with the arguments after its name.
    run: fn(&[String]) -> TaskResult,
}

/// Every task, in the order `help` lists them.
const TASKS: &[Task] = &[
    Task {
        name: "build-kernels",
        about: build_kernels::ABOUT,
        run: build_kernels::run,
    },
    Task {
        name: "bench",
        about: bench::ABOUT,
        run: bench::run,
    },
    Task {
        name: "pack-gpu",
        about: pack_gpu::ABOUT,
        run: pack_gpu::run,
    },
    Task {
        name: "test-aarch64",
        about: test_aarch64::ABOUT,
        run: test_aarch64::run,
    },
];

fn print_help() {
    println!("usage: cargo xtask <task> [options]\n\ntasks:");
    for task in TASKS {
        println!("  {:<16} {}", task.name, task.about);
    }
    println!("\n`cargo xtask <task> --help` describes a task's options.");
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        print_help();
        return ExitCode::FAILURE;
    };
    if matches!(name.as_str(), "help" | "--help" | "-h") {
        print_help();
        return ExitCode::SUCCESS;
    }
    let Some(task) = TASKS.iter().find(|t| t.name == name) else {
        eprintln!("error: unknown task `{name}`");
        print_help();
        return ExitCode::FAILURE;
    };
    match (task.run)(&args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
