//! Helpers shared by the GPU test files: the two backends, seeded random data, comparisons
//! and a CPU backend that runs the fused operations as their default compositions.

#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, BinaryOp, Gemm, ReduceOp, Result, Shape, UnaryOp};
use tensor_cpu::CpuBackend;
use tensor_cuda::CudaBackend;

/// Device 0, or a panic that says why (these tests only run with `--include-ignored`).
pub fn gpu() -> CudaBackend {
    CudaBackend::new(0).unwrap_or_else(|e| panic!("these tests need a CUDA GPU: {e}"))
}

/// The reference backend.
pub fn cpu() -> CpuBackend {
    CpuBackend::new()
}

/// A generator seeded from the test's name, so every test draws its own fixed data.
pub fn rng(name: &str) -> ChaCha8Rng {
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    ChaCha8Rng::seed_from_u64(seed)
}

/// `n` values drawn uniformly from `[lo, hi)`.
pub fn uniform(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

/// `n` small integers in `0..levels` as floats (for ties and equality).
pub fn levels(rng: &mut ChaCha8Rng, n: usize, levels: u32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(0..levels) as f32).collect()
}

/// Element counts that catch off-by-one and grid-size mistakes: single elements, less than a
/// warp, just over a warp, a few blocks, and more than one grid-stride round on any GPU.
pub const SIZES: [usize; 6] = [1, 7, 33, 1000, 4099, (1 << 20) + 3];

/// Whether `got` matches `want` within `atol + rtol * |want|` (NaN matches NaN, infinities
/// match themselves).
pub fn close(got: f32, want: f32, rtol: f64, atol: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if got.is_infinite() || want.is_infinite() {
        return got == want;
    }
    let (g, w) = (f64::from(got), f64::from(want));
    (g - w).abs() <= atol + rtol * w.abs()
}

/// Panics with the worst mismatches when `got` and `want` differ beyond the tolerance.
pub fn assert_close(what: &str, got: &[f32], want: &[f32], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| !close(got[i], want[i], rtol, atol))
        .collect();
    if !bad.is_empty() {
        let shown: Vec<String> = bad
            .iter()
            .take(8)
            .map(|&i| format!("[{i}] gpu {:e} cpu {:e}", got[i], want[i]))
            .collect();
        panic!(
            "{what}: {} of {} elements differ (rtol {rtol:e}, atol {atol:e}):\n  {}",
            bad.len(),
            got.len(),
            shown.join("\n  ")
        );
    }
}

/// Uploads `data` to both backends.
pub fn both(g: &CudaBackend, c: &CpuBackend, data: &[f32]) -> (tensor_cuda::CudaStorage, Vec<f32>) {
    let gs = g.upload(data).expect("upload");
    let cs = c.upload(data).expect("upload");
    (gs, c.download(&cs).expect("download"))
}

/// Runs one unary op on the CPU backend.
pub fn cpu_unary(c: &CpuBackend, op: UnaryOp, x: &[f32]) -> Vec<f32> {
    let xs = c.upload(x).unwrap();
    let mut out = c.alloc(x.len()).unwrap();
    c.unary(op, &xs, &mut out).unwrap();
    c.download(&out).unwrap()
}

/// Runs one broadcast binary op on the CPU backend.
pub fn cpu_binary(
    c: &CpuBackend,
    op: BinaryOp,
    a: &[f32],
    sa: &Shape,
    b: &[f32],
    sb: &Shape,
) -> Vec<f32> {
    let out_shape = sa.broadcast(sb, "test").unwrap();
    let (xa, xb) = (c.upload(a).unwrap(), c.upload(b).unwrap());
    let mut out = c.alloc(out_shape.numel()).unwrap();
    c.binary(op, &xa, sa, &xb, sb, &mut out, &out_shape)
        .unwrap();
    c.download(&out).unwrap()
}

/// Runs one reduction on the CPU backend.
pub fn cpu_reduce(
    c: &CpuBackend,
    op: ReduceOp,
    x: &[f32],
    outer: usize,
    len: usize,
    inner: usize,
) -> Vec<f32> {
    let xs = c.upload(x).unwrap();
    let mut out = c.alloc(outer * inner).unwrap();
    c.reduce(op, &xs, outer, len, inner, &mut out).unwrap();
    c.download(&out).unwrap()
}

/// Runs one GEMM on the CPU backend.
pub fn cpu_gemm(c: &CpuBackend, spec: Gemm, a: &[f32], b: &[f32], c0: &[f32]) -> Vec<f32> {
    let (xa, xb) = (c.upload(a).unwrap(), c.upload(b).unwrap());
    let mut out = c.upload(c0).unwrap();
    c.gemm(spec, &xa, &xb, &mut out).unwrap();
    c.download(&out).unwrap()
}

/// The CPU backend with every fused operation left to its default composition of
/// primitives (the reference the fused kernels must match).
#[derive(Debug, Clone, Default)]
pub struct Composed(pub CpuBackend);

type S = <CpuBackend as Backend>::Storage;
type I = <CpuBackend as Backend>::Index;

impl Backend for Composed {
    type Storage = S;
    type Index = I;

    fn name(&self) -> String {
        format!("{} (default compositions)", self.0.name())
    }
    fn counters(&self) -> tensor_core::Counters {
        self.0.counters()
    }
    fn alloc(&self, len: usize) -> Result<S> {
        self.0.alloc(len)
    }
    fn storage_len(&self, s: &S) -> usize {
        self.0.storage_len(s)
    }
    fn upload(&self, data: &[f32]) -> Result<S> {
        self.0.upload(data)
    }
    fn upload_into(&self, data: &[f32], dst: &mut S) -> Result<()> {
        self.0.upload_into(data, dst)
    }
    fn download(&self, s: &S) -> Result<Vec<f32>> {
        self.0.download(s)
    }
    fn upload_indices(&self, indices: &[u32]) -> Result<I> {
        self.0.upload_indices(indices)
    }
    fn index_len(&self, index: &I) -> usize {
        self.0.index_len(index)
    }
    fn fill(&self, dst: &mut S, value: f32) -> Result<()> {
        self.0.fill(dst, value)
    }
    fn copy_slice(&self, src: &S, so: usize, dst: &mut S, d_o: usize, len: usize) -> Result<()> {
        self.0.copy_slice(src, so, dst, d_o, len)
    }
    fn copy_block(
        &self,
        src: &S,
        sc: usize,
        dst: &mut S,
        dc: usize,
        off: usize,
        rows: usize,
    ) -> Result<()> {
        self.0.copy_block(src, sc, dst, dc, off, rows)
    }
    fn transpose(&self, src: &S, rows: usize, cols: usize, dst: &mut S) -> Result<()> {
        self.0.transpose(src, rows, cols, dst)
    }
    fn gemm(&self, spec: Gemm, a: &S, b: &S, c: &mut S) -> Result<()> {
        self.0.gemm(spec, a, b, c)
    }
    fn unary(&self, op: UnaryOp, x: &S, out: &mut S) -> Result<()> {
        self.0.unary(op, x, out)
    }
    fn unary_assign(&self, op: UnaryOp, x: &mut S) -> Result<()> {
        self.0.unary_assign(op, x)
    }
    fn binary(
        &self,
        op: BinaryOp,
        a: &S,
        sa: &Shape,
        b: &S,
        sb: &Shape,
        out: &mut S,
        so: &Shape,
    ) -> Result<()> {
        self.0.binary(op, a, sa, b, sb, out, so)
    }
    fn binary_assign(&self, op: BinaryOp, a: &mut S, sa: &Shape, b: &S, sb: &Shape) -> Result<()> {
        self.0.binary_assign(op, a, sa, b, sb)
    }
    fn reduce(
        &self,
        op: ReduceOp,
        x: &S,
        outer: usize,
        len: usize,
        inner: usize,
        out: &mut S,
    ) -> Result<()> {
        self.0.reduce(op, x, outer, len, inner, out)
    }
    fn gather_rows(
        &self,
        src: &S,
        rows: usize,
        cols: usize,
        index: &I,
        start: usize,
        count: usize,
        dst: &mut S,
    ) -> Result<()> {
        self.0
            .gather_rows(src, rows, cols, index, start, count, dst)
    }
}
