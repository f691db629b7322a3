//! Helpers shared by the GPU tests: the two backends and seeded random data.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tensor_cpu::CpuBackend;
use tensor_cuda::CudaBackend;

/// Device 0, or a panic that says why (these tests only run with `--include-ignored`).
pub fn gpu() -> CudaBackend {
    CudaBackend::new(0).unwrap_or_else(|e| panic!("these tests need a CUDA GPU: {e}"))
}

/// The CPU backend, to compare whole training runs with.
pub fn cpu() -> CpuBackend {
    CpuBackend::new()
}

/// A generator seeded from the test's name, so every test draws its own fixed data.
pub fn rng(name: &str) -> ChaCha8Rng {
    tensor_core::testing::data::rng(name)
}

/// `n` values drawn uniformly from `[lo, hi)`.
pub fn uniform(rng: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}
