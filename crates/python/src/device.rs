//! The device a job runs on, as the command line's `--device` picks it: `cpu`, `cuda` (the
//! first GPU; an error when none is usable), or `auto` (a usable GPU, else the CPU).

use crate::failure::{Failure, Result};
use tensor_core::Backend;
use tensor_cpu::CpuBackend;
use tensor_cuda::CudaBackend;

/// A job that runs on any backend and hands back something that does not depend on it.
pub trait OnDevice {
    /// What it hands back.
    type Output;

    /// Runs the job on `backend`.
    fn run<B: Backend>(self, backend: &B) -> Result<Self::Output>;
}

/// Runs `job` on `device` (`cpu`, `cuda` or `auto`).
pub fn run_on<J: OnDevice>(device: &str, job: J) -> Result<J::Output> {
    match device {
        "cpu" => job.run(&CpuBackend::try_new()?),
        "cuda" => job.run(&CudaBackend::new(0)?),
        "auto" => match CudaBackend::new(0) {
            Ok(gpu) => job.run(&gpu),
            Err(_) => job.run(&CpuBackend::try_new()?),
        },
        other => Err(Failure::value(format!(
            "device must be 'cpu', 'cuda' or 'auto', not {other:?}"
        ))),
    }
}
