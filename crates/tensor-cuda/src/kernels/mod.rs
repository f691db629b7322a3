//! The PTX modules built from `kernels/*.cu` (the files of the manifest), the table of their
//! kernels with parameter types, and the checked launch of one kernel.

mod args;
mod table;

pub(crate) use args::{Arg, BLOCK, Cfg, MAX_DIMS, MAX_GRID_YZ, NdLayout, u};
pub(crate) use table::{Functions, K, Param, Spec};

use crate::counters::CounterCells;
use crate::error::{CudaError, unavailable};
use crate::manifest::{self, PTX_ISA_MIN_CUDA, PTX_ISA_VERSION};
use cudarc::driver::{CudaContext, CudaModule, CudaStream, result, sys::CUresult};
use cudarc::nvrtc::Ptx;
use std::ffi::c_void;
use std::sync::Arc;
use tensor_core::{Error, Result, UnavailableKind};

/// Expands to `[(stem, PTX text), ...]` for the given kernel file stems.
macro_rules! embed_ptx {
    ($($stem:literal),* $(,)?) => {
        [$(($stem, include_str!(concat!("../../kernels/ptx/", $stem, ".ptx")))),*]
    };
}

/// The PTX of every kernel file of the manifest, embedded at compile time:
/// `(file stem, PTX text)`.
pub(crate) const MODULES: &[(&str, &str)] = &manifest::kernel_files!(embed_ptx);

/// The loaded modules' kernels.
pub(crate) struct Kernels {
    functions: Functions,
}

/// The error for a kernel file the driver would not load.
fn module_error(stem: &str, e: cudarc::driver::DriverError) -> Error {
    let kind = match e.0 {
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
        | CUresult::CUDA_ERROR_INVALID_PTX
        | CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU => UnavailableKind::DriverTooOld,
        _ => UnavailableKind::DriverFailed,
    };
    unavailable(
        kind,
        format!(
            "the CUDA driver could not load the kernels of {stem}.cu (PTX ISA \
             {PTX_ISA_VERSION} for compute_70, which drivers from CUDA {PTX_ISA_MIN_CUDA} on \
             load on any GPU from sm_70 on)"
        ),
        CudaError::driver(format!("loading the PTX of {stem}.cu"), e),
    )
}

impl Kernels {
    /// Loads every PTX module into `ctx` (the driver compiles PTX for the device here) and
    /// looks up every kernel.
    pub(crate) fn load(ctx: &Arc<CudaContext>) -> Result<Kernels> {
        let mut modules: Vec<(&str, Arc<CudaModule>)> = Vec::with_capacity(MODULES.len());
        for &(stem, ptx) in MODULES {
            let module = ctx
                .load_module(Ptx::from_src(ptx))
                .map_err(|e| module_error(stem, e))?;
            modules.push((stem, module));
        }
        let find = |stem: &str| {
            modules
                .iter()
                .find(|(s, _)| *s == stem)
                .map(|(_, m)| m.clone())
        };
        let functions = Functions::load(find).map_err(|(spec, e)| {
            let reason = format!(
                "the embedded PTX has no kernel {} in {}.cu",
                spec.name, spec.module
            );
            match e {
                Some(e) => unavailable(
                    UnavailableKind::DriverFailed,
                    reason,
                    CudaError::driver(format!("looking up kernel {}", spec.name), e),
                ),
                None => Error::unavailable(UnavailableKind::DriverFailed, reason),
            }
        })?;
        Ok(Kernels { functions })
    }

    /// Launches `k` on `stream` after checking the arguments against its parameter list;
    /// `op` names the backend operation in errors.
    pub(crate) fn launch(
        &self,
        stream: &CudaStream,
        counters: &CounterCells,
        op: &'static str,
        k: K,
        cfg: Cfg,
        args: &[Arg<'_>],
    ) -> Result<()> {
        let spec = k.spec();
        check_args(spec, args).map_err(|message| Error::device(op, message))?;
        let mut params = [std::ptr::null_mut::<c_void>(); 16];
        for (slot, arg) in params.iter_mut().zip(args) {
            *slot = arg.as_param();
        }
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| crate::error::driver(op, "binding the CUDA context", e))?;
        // SAFETY: the argument kinds match the kernel's parameters (checked above, and the
        // table is checked against the PTX by a test); every pointer argument comes from a
        // live buffer whose length the caller checked against the sizes passed.
        unsafe {
            result::launch_kernel(
                self.functions.get(k).cu_function(),
                cfg.grid,
                cfg.block,
                0,
                stream.cu_stream(),
                &mut params[..args.len()],
            )
        }
        .map_err(|e| crate::error::driver(op, &format!("launching kernel {}", spec.name), e))?;
        counters.launch();
        Ok(())
    }
}

/// Checks that `args` have the kinds of `spec`'s parameters, at most 16 of them.
fn check_args(spec: Spec, args: &[Arg<'_>]) -> std::result::Result<(), String> {
    let kinds_match = args.len() == spec.params.len()
        && args.len() <= 16
        && args.iter().zip(spec.params).all(|(a, p)| a.kind() == *p);
    if kinds_match {
        Ok(())
    } else {
        Err(format!(
            "internal error: wrong arguments for kernel {}",
            spec.name
        ))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
