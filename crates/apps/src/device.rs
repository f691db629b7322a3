//! Picking the backend once, at the top, and running a generic job on it.

use crate::cli::DeviceArg;
use anyhow::{Result, anyhow};
use tensor_core::{Backend, Error, UnavailableKind};
use tensor_cpu::CpuBackend;
use tensor_cuda::CudaBackend;

/// A job that runs on any backend (monomorphised per backend: no `dyn` in the hot path).
pub trait Job {
    /// Runs the job on `backend`.
    fn run<B: Backend>(self, backend: &B) -> Result<()>;
}

/// The advice for a GPU that cannot be used.
pub const USE_CPU: &str = "run on the CPU with `--device cpu`";

/// `e` and its causes on one line, each cause once ("a: b: c").
pub fn one_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = c.source();
    }
    line
}

/// The error `--device cuda` ends with when the GPU could not be opened: a device that is
/// unavailable (no driver, no device, no cuBLAS, a driver too old) gets the advice to use the
/// CPU; any other failure is reported as it is.
pub fn cuda_open_error(e: Error) -> anyhow::Error {
    match e {
        Error::DeviceUnavailable { .. } => anyhow!("{}; {USE_CPU}", one_line(&e)),
        other => anyhow::Error::new(other).context("cannot use CUDA device 0"),
    }
}

/// The one-line notice of `--device auto` when it falls back to the CPU.
pub fn fallback_notice(e: &Error) -> String {
    let why = match e {
        Error::DeviceUnavailable { kind, .. } => kind.to_string(),
        other => one_line(other),
    };
    format!("note: no usable CUDA GPU ({why}); using the CPU")
}

/// The GPU of this process (device 0; with several processes on a machine, the one of its
/// local rank, one process per GPU) with TF32 set as asked, its warnings printed to stderr.
fn open_gpu(tf32: bool) -> std::result::Result<CudaBackend, Error> {
    let local = train::ranks::world().local_rank();
    let ordinal = match local {
        0 => 0,
        _ => local % CudaBackend::device_count()?.max(1),
    };
    let gpu = CudaBackend::new(ordinal)?;
    gpu.set_tf32(tf32);
    for warning in gpu.warnings() {
        eprintln!("warning: {warning}");
    }
    Ok(gpu)
}

/// Whether `--device auto` should say why it uses the CPU: not on a machine with no GPU
/// driver or no GPU (the usual case, where a notice on every command is noise), but when a
/// GPU is there and cannot be used (a missing library, an old or failing driver).
fn worth_a_notice(e: &Error) -> bool {
    !matches!(
        e,
        Error::DeviceUnavailable {
            kind: UnavailableKind::NoDriver | UnavailableKind::NoDevice,
            ..
        }
    )
}

/// Runs `job` on the device the user asked for. `auto` uses CUDA when a GPU is usable and
/// otherwise the CPU, saying so in one line on stderr when a GPU is present but unusable
/// (the run record's `device` says which device ran in every case).
pub fn dispatch<J: Job>(device: DeviceArg, tf32: bool, job: J) -> Result<()> {
    match device {
        DeviceArg::Cpu => on_cpu(job),
        DeviceArg::Cuda => on_gpu(open_gpu(tf32).map_err(cuda_open_error)?, job),
        DeviceArg::Auto => match open_gpu(tf32) {
            Ok(gpu) => on_gpu(gpu, job),
            Err(e) => {
                if worth_a_notice(&e) {
                    eprintln!("{}", fallback_notice(&e));
                }
                on_cpu(job)
            }
        },
    }
}

/// Runs `job` on the CPU (in a run over several processes, their sums go through MPI).
fn on_cpu<J: Job>(job: J) -> Result<()> {
    #[cfg(feature = "nccl")]
    train::ranks::sum_between_gpus(None)?;
    job.run(&CpuBackend::try_new()?)
}

/// Runs `job` on `gpu` (in a run over several processes that all have a GPU, their sums go
/// through NCCL, with the `nccl` feature).
fn on_gpu<J: Job>(gpu: CudaBackend, job: J) -> Result<()> {
    #[cfg(feature = "nccl")]
    train::ranks::sum_between_gpus(Some(&gpu))?;
    job.run(&gpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver's own error, as a backend keeps it.
    #[derive(Debug)]
    struct DriverSaid;

    impl std::fmt::Display for DriverSaid {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("cuInit failed: CUDA_ERROR_NO_DEVICE")
        }
    }

    impl std::error::Error for DriverSaid {}

    fn unavailable(kind: UnavailableKind) -> Error {
        Error::unavailable(kind, "the CUDA driver did not initialise").with_source(DriverSaid)
    }

    #[test]
    fn an_unavailable_device_gets_the_advice_after_the_reason_and_its_cause() {
        let text = format!(
            "{:#}",
            cuda_open_error(unavailable(UnavailableKind::NoDevice))
        );
        assert_eq!(
            text,
            "device unavailable: the CUDA driver did not initialise: cuInit failed: \
             CUDA_ERROR_NO_DEVICE; run on the CPU with `--device cpu`"
        );
    }

    #[test]
    fn the_advice_follows_the_variant_not_the_words() {
        // Every kind of unavailability gets it, whatever the reason says.
        let e = Error::unavailable(UnavailableKind::MissingLibrary, "x");
        assert!(format!("{:#}", cuda_open_error(e)).ends_with(USE_CPU));
        // A device failure is not a missing device: no advice, even if its text mentions
        // the CPU flag.
        let e = Error::device("load kernels", "see --device cpu").with_source(DriverSaid);
        let text = format!("{:#}", cuda_open_error(e));
        assert!(!text.contains(USE_CPU), "{text}");
        assert!(
            text.starts_with("cannot use CUDA device 0: device error"),
            "{text}"
        );
        assert!(text.contains("CUDA_ERROR_NO_DEVICE"), "{text}");
    }

    #[test]
    fn the_fallback_notice_names_the_kind_in_a_few_words() {
        assert_eq!(
            fallback_notice(&unavailable(UnavailableKind::NoDriver)),
            "note: no usable CUDA GPU (no usable driver); using the CPU"
        );
        // No driver or no GPU is the usual case and not worth a notice; a GPU that is there
        // but unusable is.
        assert!(!worth_a_notice(&unavailable(UnavailableKind::NoDriver)));
        assert!(!worth_a_notice(&unavailable(UnavailableKind::NoDevice)));
        assert!(worth_a_notice(&unavailable(
            UnavailableKind::MissingLibrary
        )));
        let other = Error::device("alloc", "allocating 4 floats");
        assert_eq!(
            fallback_notice(&other),
            "note: no usable CUDA GPU (device error in alloc: allocating 4 floats); using the CPU"
        );
    }
}
