//! `cargo xtask bench gemm`: `Tensor::matmul_into` throughput, side by side with PyTorch.

use super::options::Options;
use super::{BenchResult, median_secs, torch};
use tensor_core::Tensor;
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_cpu::CpuBackend;

/// One product `op(A) (m x k) * op(B) (k x n)`.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Rows of the result.
    pub m: usize,
    /// The shared dimension.
    pub k: usize,
    /// Columns of the result.
    pub n: usize,
    /// Whether A is stored `k x m`.
    pub trans_a: bool,
    /// Whether B is stored `n x k`.
    pub trans_b: bool,
    /// Timed repetitions.
    pub reps: usize,
}

impl Case {
    fn new(m: usize, k: usize, n: usize, trans_a: bool, opts: &Options) -> Self {
        let flops = 2.0 * (m * k * n) as f64;
        // About two seconds of work per case on this kind of machine, at least 7 runs.
        let reps = opts
            .reps
            .unwrap_or((2e10 / flops).clamp(7.0, 200.0) as usize);
        Case {
            m,
            k,
            n,
            trans_a,
            trans_b: false,
            reps,
        }
    }

    fn flops(&self) -> f64 {
        2.0 * (self.m * self.k * self.n) as f64
    }

    fn label(&self) -> String {
        let op = if self.trans_a { "A^T B" } else { "A B" };
        format!("{}x{}x{} ({op})", self.m, self.k, self.n)
    }
}

/// The shapes (m x k x n): square products, and an MLP layer of 40000 rows and width 256
/// forward (`X W`) and its weight gradient (`X^T dY`, read transposed in place).
fn cases(opts: &Options) -> Vec<Case> {
    vec![
        Case::new(256, 256, 256, false, opts),
        Case::new(1024, 1024, 1024, false, opts),
        Case::new(2048, 2048, 2048, false, opts),
        Case::new(40000, 256, 256, false, opts),
        Case::new(256, 40000, 256, true, opts),
    ]
}

fn time_ours(cpu: &CpuBackend, c: &Case, rng: &mut ChaCha8Rng) -> BenchResult<f64> {
    let a_dims = if c.trans_a { [c.k, c.m] } else { [c.m, c.k] };
    let b_dims = if c.trans_b { [c.n, c.k] } else { [c.k, c.n] };
    let a = Tensor::rand_uniform(cpu, a_dims, -1.0, 1.0, rng)?;
    let b = Tensor::rand_uniform(cpu, b_dims, -1.0, 1.0, rng)?;
    let mut out = Tensor::zeros(cpu, [c.m, c.n])?;
    median_secs(3, c.reps, || {
        Ok(Tensor::matmul_into(
            &a, &b, &mut out, c.trans_a, c.trans_b, 1.0, 0.0,
        )?)
    })
}

/// Prints the GEMM table.
pub fn run(opts: &Options) -> BenchResult {
    let cpu = CpuBackend::new();
    let cases = cases(opts);
    let torch_version = torch::version();
    println!("GEMM, f32, {}", tensor_core::Primitives::name(&cpu));
    match &torch_version {
        Some(v) => println!("PyTorch {v}, torch.set_num_threads({})", opts.threads),
        None => println!(
            "PyTorch not found (`{} -c \"import torch\"` failed): no comparison",
            torch::python()
        ),
    }
    // Each case runs in PyTorch right after running here, so both see the same load.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ours = Vec::new();
    let mut theirs = torch_version.as_ref().map(|_| Vec::new());
    for c in &cases {
        ours.push(time_ours(&cpu, c, &mut rng)?);
        if let Some(t) = theirs.as_mut() {
            t.extend(torch::time_cases(std::slice::from_ref(c), opts.threads)?);
        }
    }
    println!();
    println!(
        "| {:<24} | {:>5} | {:>9} | {:>12} | {:>12} | {:>10} |",
        "m x k x n", "reps", "ours ms", "ours GFLOP/s", "torch GFLOP/s", "ours/torch"
    );
    println!(
        "|{:-<26}|{:->7}|{:->11}|{:->14}|{:->15}|{:->12}|",
        "", "", "", "", "", ""
    );
    for (i, c) in cases.iter().enumerate() {
        let ours_gf = c.flops() / ours[i] / 1e9;
        let (torch_gf, ratio) = match &theirs {
            Some(t) => {
                let g = c.flops() / t[i] / 1e9;
                (format!("{g:.1}"), format!("{:.2}", ours_gf / g))
            }
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {:<24} | {:>5} | {:>9.3} | {:>12.1} | {:>13} | {:>10} |",
            c.label(),
            c.reps,
            ours[i] * 1e3,
            ours_gf,
            torch_gf,
            ratio
        );
    }
    Ok(())
}
