//! Running a whole job on a thread of rayon's pool.

/// Runs `work` on a worker of a new pool of rayon's default thread count
/// (`RAYON_NUM_THREADS`, or one per core), and returns what it returns.
///
/// An operation started from a thread outside the pool is handed to a worker and waited
/// for; from a worker, its first part runs in place and only the rest is handed on. For a
/// job of many small operations (a small network's training steps) the hand-over costs
/// more than the work, most of all with one thread: on the churn table of
/// docs/BENCHMARKS.md, the default model with `RAYON_NUM_THREADS=1` took 17 s from a
/// worker against 20 s from the main thread. Results do not depend on where an operation
/// starts. When no pool can be started, `work` runs on this thread.
///
/// ```
/// let sum: f32 = tensor_cpu::on_pool_worker(|| {
///     let cpu = tensor_cpu::CpuBackend::new();
///     let t = tensor_core::Tensor::from_slice(&cpu, &[1.0, 2.0, 3.0], [3])?;
///     t.sum(None)?.to_vec().map(|v| v[0])
/// })?;
/// assert_eq!(sum, 6.0);
/// # Ok::<(), tensor_core::Error>(())
/// ```
pub fn on_pool_worker<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}
