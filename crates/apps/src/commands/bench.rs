//! `iron-learn bench train`: the time of one full training step (forward, loss, backward,
//! Adam) on a device, of SIRENs or of hash-grid models. The timing is the library's
//! ([`jobs::bench::bench_training`]); this converts the flags and prints a table or JSON
//! lines.

use crate::cli::BenchTrainArgs;
use crate::device::Job;
use anyhow::Result;
use jobs::bench::{BenchOptions, bench_training, check_bench};
use jobs::timing::StepTimes;
use serde_json::json;
use tensor_core::Backend;

/// Times training steps of SIRENs.
pub struct BenchTrain(pub BenchTrainArgs);

impl Job for BenchTrain {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let networks = args
            .hidden
            .iter()
            .map(|spec| crate::cli_values::hidden_arg(spec))
            .collect::<Result<_>>()?;
        let options = BenchOptions {
            networks,
            points: args.points.max(1),
            reps: args.reps,
            hashgrid: args.hashgrid,
        };
        check_bench::<B>(&options)?;
        if !args.json {
            print_header(backend)?;
        }
        let print = |i: usize, t: &StepTimes| print_times(backend, args, &args.hidden[i], t);
        bench_training(backend, &options, &mut { print })?;
        Ok(())
    }
}

/// One network's line: JSON with `--json`, else a row of the table.
fn print_times<B: Backend>(backend: &B, args: &BenchTrainArgs, spec: &str, t: &StepTimes) {
    let n = args.points.max(1);
    let [launches, allocs, up, down] = t.per_step;
    if args.json {
        println!(
            "{}",
            json!({"network": spec, "points": n, "device": backend.name(), "median_ms": t.median, "min_ms": t.min, "parameters": t.params, "reps": args.reps.max(1), "hashgrid_log2_table": args.hashgrid, "clock": t.clock, "launches_per_step": launches, "allocations_per_step": allocs, "bytes_up_per_step": up, "bytes_down_per_step": down})
        );
    } else {
        println!(
            "{spec:<10} {n:>9} {:>12.3} {:>12.3} {:>12} {launches:>9.1} {allocs:>7.1} {up:>6.0} {down:>6.0}",
            t.median, t.min, t.params
        );
    }
}

/// The device, the clock and the columns of the table of timings.
fn print_header<B: Backend>(backend: &B) -> Result<()> {
    println!("device: {}", backend.name());
    println!(
        "(per step: milliseconds on the {} clock; kernel launches, pool allocations and bytes moved)",
        if backend.device_time_ms(&mut || Ok(()))?.is_some() {
            "device's (CUDA events)"
        } else {
            "host's"
        }
    );
    println!(
        "{:<10} {:>9} {:>12} {:>12} {:>12} {:>9} {:>7} {:>6} {:>6}",
        "network",
        "points",
        "median ms",
        "min ms",
        "parameters",
        "launches",
        "allocs",
        "up B",
        "down B"
    );
    Ok(())
}
