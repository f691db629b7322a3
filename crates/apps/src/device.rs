//! Picking the backend once, at the top, and running a generic job on it.

use crate::cli::DeviceArg;
use anyhow::{Result, bail};
use tensor_core::Backend;
use tensor_cpu::CpuBackend;
use tensor_cuda::CudaBackend;

/// A job that runs on any backend (monomorphised per backend: no `dyn` in the hot path).
pub trait Job {
    /// What the job returns.
    type Output;
    /// Runs the job on `backend`.
    fn run<B: Backend>(self, backend: &B) -> Result<Self::Output>;
}

/// Runs `job` on the device the user asked for. `auto` uses CUDA when a GPU is usable and
/// otherwise the CPU, saying so in one line on stderr.
pub fn dispatch<J: Job>(device: DeviceArg, tf32: bool, job: J) -> Result<J::Output> {
    match device {
        DeviceArg::Cpu => job.run(&CpuBackend::new()),
        DeviceArg::Cuda => match CudaBackend::new(0) {
            Ok(gpu) => {
                gpu.set_tf32(tf32);
                job.run(&gpu)
            }
            // The backend's error may already suggest the CPU; say it once.
            Err(e) if e.to_string().contains("--device cpu") => bail!("{e}"),
            Err(e) => bail!("{e} (use --device cpu to train on the CPU)"),
        },
        DeviceArg::Auto => match CudaBackend::new(0) {
            Ok(gpu) => {
                gpu.set_tf32(tf32);
                job.run(&gpu)
            }
            Err(e) => {
                // The first clause of the reason is enough for a notice; --device cuda
                // shows all of it.
                let reason = e.to_string();
                let reason = reason.trim_start_matches("device unavailable: ");
                let short = reason.split([':', ';']).next().unwrap_or(reason).trim();
                eprintln!("note: no usable CUDA GPU ({short}); using the CPU");
                job.run(&CpuBackend::new())
            }
        },
    }
}
