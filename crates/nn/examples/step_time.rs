//! Times one full-batch training step (forward, loss, backward, Adam) of a SIREN on a
//! 200 x 200 coordinate grid (40,000 rows), and shows where the time goes.
//!
//! `cargo run -p iron-learn-nn --release --example step_time [-- STEPS]`; its test (that the
//! timing wrapper forwards every fused operation) runs with `cargo test -p iron-learn-nn`.
//!
//! The breakdown comes from running the same steps on a backend wrapper that times every
//! backend call by kind (GEMM, fused bias+activation, activation backward, reductions, ...).
//! Reference on the same kind of 2-core machine: PyTorch 2.x (CPU) takes 931 ms per step for
//! 3 x 256 and 279 ms for 3 x 128.

use nn::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tensor_core::params::{
    BinaryAssignSpec, BinarySpec, BlockCopy, GatherSpec, ReduceSpec, SliceCopy,
};
use tensor_core::{BackendWrapper, Counters, Gemm, Primitives, Result as TResult, UnaryOp};
use tensor_cpu::CpuBackend;

/// A backend that delegates every call to the CPU backend and adds up the time of each kind
/// of call. Every fused operation goes to the CPU's kernel (the test below checks it), so
/// the profile is that of the real training step.
#[derive(Debug, Clone)]
struct Timed {
    inner: CpuBackend,
    times: Arc<Mutex<BTreeMap<String, (f64, u64)>>>,
}

impl Timed {
    fn new(inner: CpuBackend) -> Self {
        Timed {
            inner,
            times: Arc::default(),
        }
    }

    fn time<R>(&self, what: &str, f: impl FnOnce() -> R) -> R {
        let t = Instant::now();
        let r = f();
        let mut m = self.times.lock().expect("timer lock");
        let e = m.entry(what.to_string()).or_insert((0.0, 0));
        e.0 += t.elapsed().as_secs_f64() * 1e3;
        e.1 += 1;
        r
    }

    fn take(&self) -> BTreeMap<String, (f64, u64)> {
        std::mem::take(&mut *self.times.lock().expect("timer lock"))
    }
}

impl Primitives for Timed {
    type Storage = Vec<f32>;
    type Index = Vec<u32>;
    fn name(&self) -> String {
        self.inner.name()
    }
    fn counters(&self) -> Counters {
        self.inner.counters()
    }
    fn synchronize(&self) -> TResult<()> {
        self.inner.synchronize()
    }
    fn alloc(&self, len: usize) -> TResult<Vec<f32>> {
        self.time("alloc", || self.inner.alloc(len))
    }
    fn storage_len(&self, s: &Vec<f32>) -> usize {
        self.inner.storage_len(s)
    }
    fn upload(&self, data: &[f32]) -> TResult<Vec<f32>> {
        self.inner.upload(data)
    }
    fn upload_into(&self, data: &[f32], dst: &mut Vec<f32>) -> TResult<()> {
        self.inner.upload_into(data, dst)
    }
    fn download(&self, s: &Vec<f32>) -> TResult<Vec<f32>> {
        self.inner.download(s)
    }
    fn upload_indices(&self, i: &[u32]) -> TResult<Vec<u32>> {
        self.inner.upload_indices(i)
    }
    fn index_len(&self, i: &Vec<u32>) -> usize {
        self.inner.index_len(i)
    }
    fn fill(&self, dst: &mut Vec<f32>, v: f32) -> TResult<()> {
        self.time("fill", || self.inner.fill(dst, v))
    }
    fn copy_slice(&self, r: SliceCopy, src: &Vec<f32>, dst: &mut Vec<f32>) -> TResult<()> {
        self.time("copy", || self.inner.copy_slice(r, src, dst))
    }
    fn copy_block(&self, b: BlockCopy, src: &Vec<f32>, dst: &mut Vec<f32>) -> TResult<()> {
        self.time("copy", || self.inner.copy_block(b, src, dst))
    }
    fn transpose(&self, s: &Vec<f32>, r: usize, c: usize, d: &mut Vec<f32>) -> TResult<()> {
        self.time("transpose", || self.inner.transpose(s, r, c, d))
    }
    fn gemm(&self, spec: Gemm, a: &Vec<f32>, b: &Vec<f32>, c: &mut Vec<f32>) -> TResult<()> {
        let kind = format!("{} {}", gemm_kind(&spec), dims(&spec));
        self.time(&kind, || self.inner.gemm(spec, a, b, c))
    }
    fn unary(&self, op: UnaryOp, x: &Vec<f32>, out: &mut Vec<f32>) -> TResult<()> {
        self.time("unary", || self.inner.unary(op, x, out))
    }
    fn unary_assign(&self, op: UnaryOp, x: &mut Vec<f32>) -> TResult<()> {
        self.time("unary", || self.inner.unary_assign(op, x))
    }
    fn binary(
        &self,
        s: BinarySpec<'_>,
        a: &Vec<f32>,
        b: &Vec<f32>,
        out: &mut Vec<f32>,
    ) -> TResult<()> {
        self.time("binary", || self.inner.binary(s, a, b, out))
    }
    fn binary_assign(
        &self,
        s: BinaryAssignSpec<'_>,
        a: &mut Vec<f32>,
        b: &Vec<f32>,
    ) -> TResult<()> {
        self.time("binary", || self.inner.binary_assign(s, a, b))
    }
    fn reduce(&self, s: ReduceSpec, x: &Vec<f32>, out: &mut Vec<f32>) -> TResult<()> {
        self.time("reduce (bias grad)", || self.inner.reduce(s, x, out))
    }
    fn gather_rows(
        &self,
        s: GatherSpec,
        src: &Vec<f32>,
        index: &Vec<u32>,
        dst: &mut Vec<f32>,
    ) -> TResult<()> {
        self.time("gather", || self.inner.gather_rows(s, src, index, dst))
    }
}

/// Which product of a dense layer a GEMM is, from its transpose flags.
fn gemm_kind(spec: &Gemm) -> &'static str {
    match (spec.trans_a, spec.trans_b) {
        (false, false) => "gemm forward (x W)",
        (true, false) => "gemm weight grad (x^T dz)",
        (false, true) => "gemm input grad (dz W^T)",
        (true, true) => "gemm (t, t)",
    }
}

fn dims(spec: &Gemm) -> String {
    format!("{}x{}x{}", spec.m, spec.n, spec.k)
}

impl BackendWrapper for Timed {
    type Inner = CpuBackend;

    fn inner(&self) -> &CpuBackend {
        &self.inner
    }

    fn around<R>(
        &self,
        op: &'static str,
        detail: std::fmt::Arguments<'_>,
        run: impl FnOnce(&CpuBackend) -> R,
    ) -> R {
        let kind = format!("{op} {detail}");
        self.time(kind.trim_end(), || run(&self.inner))
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn grid(n: usize) -> Vec<f32> {
    let c = |i: usize| -1.0 + 2.0 * i as f32 / (n - 1) as f32;
    (0..n * n).flat_map(|k| [c(k % n), c(k / n)]).collect()
}

/// Median step time in ms of `steps` full-batch steps after 2 warm-up steps.
fn step_time<B: Backend>(backend: &B, width: usize, steps: usize) -> nn::Result<f64> {
    let n = 200;
    let rows = n * n;
    let coords = grid(n);
    let x = Tensor::from_slice(backend, &coords, [rows, 2])?;
    let target: Vec<f32> = coords
        .chunks(2)
        .map(|p| ((p[0] * 9.0).sin() * (p[1] * 7.0).cos() > 0.3) as u8 as f32)
        .collect();
    let y = Tensor::from_slice(backend, &target, [rows, 1])?;
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[width; 3], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(backend, 0)?;
    let mut adam = Adam::new(AdamConfig::new(1e-4))?;
    let mut grad = Tensor::uninit(backend, [rows, 1])?;
    let mut loss = Tensor::uninit(backend, [1])?;
    let mut times = Vec::new();
    for i in 0..steps + 2 {
        let t = Instant::now();
        let pred = model.forward(&x)?;
        Loss::Mse.compute_into(pred, &y, &mut grad, &mut loss)?;
        model.backward_params(&x, &grad)?;
        adam.step(&mut model)?;
        backend.synchronize()?;
        if i >= 2 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok(median(times))
}

fn main() -> nn::Result<()> {
    let steps = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let cpu = CpuBackend::new();
    println!(
        "{}; median of {steps} full-batch steps after 2 warm-up steps",
        cpu.name()
    );
    for (width, pytorch) in [(128, 279.0), (256, 931.0)] {
        let before = cpu.counters().allocations;
        let ms = step_time(&cpu, width, steps)?;
        println!(
            "SIREN 2 -> 3x{width} -> 1 on 40,000 rows: {ms:.1} ms per step \
             (PyTorch: {pytorch} ms, ratio {:.2}); {} buffers allocated in total (setup)",
            pytorch / ms,
            cpu.counters().allocations - before
        );
        let timed = Timed::new(cpu.clone());
        let timed_steps = steps.max(2);
        let t = Instant::now();
        let _ = step_time(&timed, width, timed_steps)?;
        let wall = t.elapsed().as_secs_f64() * 1e3;
        let per_step = (timed_steps + 2) as f64;
        let times = timed.take();
        let accounted: f64 = times.values().map(|v| v.0).sum();
        println!("  where the time goes (per step, averaged, timed backend):");
        let mut rows: Vec<_> = times.into_iter().collect();
        rows.sort_by(|a, b| b.1.0.total_cmp(&a.1.0));
        for (k, (ms, calls)) in rows {
            println!(
                "    {k:<44} {:>8.1} ms  {:>5.1}%  ({:.0} calls)",
                ms / per_step,
                100.0 * ms / accounted,
                calls as f64 / per_step
            );
        }
        println!(
            "    {:<44} {:>8.1} ms  (setup, timers and nn bookkeeping)",
            "outside backend calls",
            (wall - accounted) / per_step
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensor_core::testing::forwarding::unforwarded_ops;

    #[test]
    fn every_fused_op_reaches_the_cpu_backend() {
        let cpu = CpuBackend::new();
        let timed = Timed::new(cpu.clone());
        assert_eq!(unforwarded_ops(&timed, &cpu), Vec::<&str>::new());
    }
}
