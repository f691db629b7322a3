//! `cargo xtask bench elementwise`: memory throughput of element-wise operations.
//!
//! Every operation runs on 10M elements (40 MB per operand, far beyond the caches), writing
//! into preallocated outputs. Throughput counts the bytes an operation must move (operands
//! read plus outputs written), and "vs copy" is its time over the time a plain copy takes to
//! move as many bytes, the copy being timed in alternation with the operation: 1.0 is
//! memory speed.

use super::options::Options;
use super::{BenchResult, median_secs};
use tensor_core::fused::traits::*;
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Activation, BiasAct, BinaryOp, Primitives, Tensor, UnaryOp};
use tensor_cpu::CpuBackend;

const N: usize = 10_000_000;
/// Columns of the matrix view used by `bias_act` (an MLP layer of width 256).
const COLS: usize = 256;

/// Operands of the benchmark, allocated once.
struct Data {
    cpu: CpuBackend,
    x: Tensor<CpuBackend>,
    y: Tensor<CpuBackend>,
    bias: Tensor<CpuBackend>,
    out: Tensor<CpuBackend>,
}

/// One timed operation: its name, the `f32`s it moves per element, and its body.
type Case = (&'static str, usize, fn(&mut Data) -> BenchResult);

fn unary(d: &mut Data, op: UnaryOp) -> BenchResult {
    Ok(d.x.unary_into(op, &mut d.out)?)
}

fn bias_act(d: &mut Data, act: Activation) -> BenchResult {
    let rows = N / COLS;
    let (z, out) = (d.y.storage_mut(), d.out.storage_mut());
    Ok(d.cpu.bias_act(
        BiasAct {
            bias: d.bias.storage(),
            rows,
            cols: COLS,
            act,
        },
        z,
        out,
    )?)
}

fn act_backward(d: &mut Data, act: Activation) -> BenchResult {
    let out = d.out.storage_mut();
    Ok(d.cpu.act_backward(d.y.storage(), d.x.storage(), act, out)?)
}

const SINE: Activation = Activation::Sine { w0: 30.0 };

const CASES: &[Case] = &[
    ("copy", 2, |d| Ok(d.out.copy_from(&d.x)?)),
    ("add (a + b)", 3, |d| {
        Ok(d.x.binary_into(BinaryOp::Add, &d.y, &mut d.out)?)
    }),
    ("mul (a * b)", 3, |d| {
        Ok(d.x.binary_into(BinaryOp::Mul, &d.y, &mut d.out)?)
    }),
    ("affine (2x + 1)", 2, |d| {
        unary(
            d,
            UnaryOp::Affine {
                scale: 2.0,
                shift: 1.0,
            },
        )
    }),
    ("relu", 2, |d| unary(d, UnaryOp::Act(Activation::Relu))),
    ("exp", 2, |d| unary(d, UnaryOp::Exp)),
    ("sigmoid", 2, |d| {
        unary(d, UnaryOp::Act(Activation::Sigmoid))
    }),
    ("tanh", 2, |d| unary(d, UnaryOp::Act(Activation::Tanh))),
    ("sin", 2, |d| unary(d, UnaryOp::Sin)),
    ("cos", 2, |d| unary(d, UnaryOp::Cos)),
    ("bias_act relu", 3, |d| bias_act(d, Activation::Relu)),
    ("bias_act sine", 3, |d| bias_act(d, SINE)),
    ("act_backward relu", 3, |d| {
        act_backward(d, Activation::Relu)
    }),
    ("act_backward sine", 3, |d| act_backward(d, SINE)),
];

/// Median seconds of `body` and of a plain copy of `x`, timed in alternation so that both
/// see the same load on the memory system.
fn interleaved(
    d: &mut Data,
    reps: usize,
    body: fn(&mut Data) -> BenchResult,
) -> BenchResult<(f64, f64)> {
    let (mut op, mut copy) = (Vec::new(), Vec::new());
    for r in 0..reps + 2 {
        let t = median_secs(0, 1, || body(d))?;
        let c = median_secs(0, 1, || Ok(d.out.copy_from(&d.x)?))?;
        if r >= 2 {
            op.push(t);
            copy.push(c);
        }
    }
    op.sort_by(f64::total_cmp);
    copy.sort_by(f64::total_cmp);
    Ok((op[op.len() / 2], copy[copy.len() / 2]))
}

/// Prints the element-wise table.
pub fn run(opts: &Options) -> BenchResult {
    let cpu = CpuBackend::new();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut d = Data {
        x: Tensor::rand_uniform(&cpu, [N / COLS, COLS], -3.0, 3.0, &mut rng)?,
        y: Tensor::rand_uniform(&cpu, [N / COLS, COLS], -3.0, 3.0, &mut rng)?,
        bias: Tensor::rand_uniform(&cpu, [COLS], -1.0, 1.0, &mut rng)?,
        out: Tensor::zeros(&cpu, [N / COLS, COLS])?,
        cpu: cpu.clone(),
    };
    let reps = opts.reps.unwrap_or(21);
    println!(
        "element-wise, f32, {N} elements, {}, median of {reps}",
        cpu.name()
    );
    println!();
    println!(
        "| {:<20} | {:>8} | {:>8} | {:>8} | {:>7} |",
        "operation", "bytes/el", "ms", "GB/s", "vs copy"
    );
    println!(
        "|{:-<22}|{:->10}|{:->10}|{:->10}|{:->9}|",
        "", "", "", "", ""
    );
    for &(name, moved, body) in CASES {
        let (secs, copy_secs) = interleaved(&mut d, reps, body)?;
        // Time per f32 moved, relative to a copy timed alongside (same memory conditions).
        let vs_copy = (secs / moved as f64) / (copy_secs / 2.0);
        println!(
            "| {:<20} | {:>8} | {:>8.3} | {:>8.1} | {:>7.2} |",
            name,
            moved * 4,
            secs * 1e3,
            (moved * N * 4) as f64 / secs / 1e9,
            vs_copy
        );
    }
    Ok(())
}
