//! `cargo xtask bench <name>`: micro-benchmarks of the CPU backend, printed as tables.
//!
//! Each benchmark warms up, then reports the median of its repetitions (timed with
//! [`std::time::Instant`]). Where PyTorch is installed, the GEMM benchmark runs the same
//! shapes in PyTorch in the same run, with the same thread count, and prints the ratio.

mod elementwise;
mod gemm;
mod hashgrid;
mod hashgrid_train;
mod image_fit;
mod options;
mod tables;
mod torch;
mod train;

use options::Options;
use std::time::Instant;

/// What a benchmark returns: a value, or an error to print.
pub(crate) type BenchResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// The one-line description shown by `cargo xtask help`.
pub const ABOUT: &str = "run a benchmark (gemm, elementwise, hashgrid, hashgrid-train, image-fit, tables, train); no name lists them";

/// A benchmark: its name, what it measures, and the function that runs it.
struct Bench {
    name: &'static str,
    about: &'static str,
    run: fn(&Options) -> BenchResult,
}

const BENCHES: &[Bench] = &[
    Bench {
        name: "gemm",
        about: "Tensor::matmul_into GFLOP/s on square and MLP-shaped products, vs PyTorch",
        run: gemm::run,
    },
    Bench {
        name: "elementwise",
        about: "GB/s of copy, add, exp, sin, bias_act, ... on 10M elements",
        run: elementwise::run,
    },
    Bench {
        name: "hashgrid",
        about: "hash-grid encoding forward + backward, 2^16 points, 16 levels, T = 2^18",
        run: hashgrid::run,
    },
    Bench {
        name: "hashgrid-train",
        about: "one hash-grid training step (2^16 points, L16 F2 T2^18, MLP 64x2, Adam), vs PyTorch",
        run: hashgrid_train::run,
    },
    Bench {
        name: "image-fit",
        about: "seconds to 30/35/40 dB on --image PHOTO: hash grid, SIREN, PyTorch hash grid",
        run: image_fit::run,
    },
    Bench {
        name: "tables",
        about: "iron-learn mlp with its defaults vs linear, HistGradientBoosting, LightGBM on 13 tables x 3 splits",
        run: tables::run,
    },
    Bench {
        name: "train",
        about: "one SIREN training step (forward, backward, Adam) on 40,000 points, vs PyTorch",
        run: train::run,
    },
];

fn list() {
    println!("usage: cargo xtask bench <name> [--threads N] [--reps N]\n\nbenchmarks:");
    for b in BENCHES {
        println!("  {:<15} {}", b.name, b.about);
    }
    println!("\n{}", options::HELP);
}

/// Runs the benchmark named by the first argument, or lists them when there is none.
pub fn run(args: &[String]) -> BenchResult {
    let Some(name) = args.first() else {
        list();
        return Ok(());
    };
    if matches!(name.as_str(), "--help" | "-h" | "help" | "list") {
        list();
        return Ok(());
    }
    let Some(bench) = BENCHES.iter().find(|b| b.name == name) else {
        list();
        return Err(format!("unknown benchmark `{name}`").into());
    };
    let opts = Options::parse(&args[1..])?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()?;
    pool.install(|| (bench.run)(&opts).map_err(|e| e.to_string()))?;
    Ok(())
}

/// Median seconds of `reps` timed calls of `f`, after `warmup` untimed ones.
pub(crate) fn median_secs<F>(warmup: usize, reps: usize, mut f: F) -> BenchResult<f64>
where
    F: FnMut() -> BenchResult,
{
    for _ in 0..warmup {
        f()?;
    }
    let mut times = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}
