//! Finding the CUDA libraries at run time, so that a missing driver or cuBLAS is an error
//! and never a panic.
//!
//! cudarc loads `libcuda` lazily and panics when it cannot, so [`probe_driver`] first opens
//! the same candidates cudarc will try (`cudarc::get_lib_name_candidates("cuda")`:
//! `libcuda.so`, ..., `libcuda.so.1`). cuBLAS is bound here directly (see `blas.rs`) rather
//! than through cudarc, whose candidate names for a CUDA 12.4 build stop at
//! `libcublas.so.12`: [`CublasLibrary::load`] tries `$IRON_LEARN_CUBLAS`, then
//! `libcublas.so.13`, `libcublas.so.12` and `libcublas.so` on the loader's search path, then
//! the same names under `$CUDA_HOME`, `$CUDA_PATH` and `/usr/local/cuda`.

use crate::error::USE_CPU;
use libloading::Library;
use std::ffi::{c_int, c_void};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Driver entry points the backend needs; cudarc panics on a missing one, so they are
/// checked up front.
const DRIVER_SYMBOLS: [&str; 20] = [
    "cuInit",
    "cuGetErrorString",
    "cuGetErrorName",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDevicePrimaryCtxRetain",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuDeviceGetDefaultMemPool",
    "cuMemPoolSetAttribute",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuLaunchKernel",
];

/// Checks that the CUDA driver library opens under the first name cudarc will try that
/// opens (`cudarc::get_lib_name_candidates("cuda")`), and that it has the entry points the
/// backend uses.
pub(crate) fn probe_driver() -> Result<(), String> {
    let mut names = cudarc::get_lib_name_candidates("cuda");
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    for name in &names {
        // SAFETY: opening the driver library runs its initialisers, which have no
        // preconditions; the handle is closed again at once.
        let Ok(lib) = (unsafe { Library::new(name) }) else {
            continue;
        };
        let missing: Vec<&str> = DRIVER_SYMBOLS
            .iter()
            .copied()
            // SAFETY: the symbol is only looked up, never called.
            .filter(|sym| unsafe { lib.get::<*const c_void>(sym.as_bytes()) }.is_err())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        return Err(format!(
            "{name} is not a usable CUDA driver: it lacks {}; install an NVIDIA driver for \
             CUDA 12.4 or later, or {USE_CPU}",
            missing.join(", ")
        ));
    }
    Err(format!(
        "no NVIDIA driver found: could not load the CUDA driver library (tried {}); \
         install the NVIDIA driver, or {USE_CPU}",
        names.join(", ")
    ))
}

/// The environment variable that names the cuBLAS library file to use.
pub const CUBLAS_ENV: &str = "IRON_LEARN_CUBLAS";

/// The cuBLAS library names tried, newest first.
const CUBLAS_NAMES: [&str; 3] = ["libcublas.so.13", "libcublas.so.12", "libcublas.so"];

/// Every place cuBLAS is looked for, in order.
pub(crate) fn cublas_candidates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os(CUBLAS_ENV) {
        out.push(PathBuf::from(p));
    }
    out.extend(CUBLAS_NAMES.map(PathBuf::from));
    let roots = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .chain([PathBuf::from("/usr/local/cuda")]);
    for root in roots {
        for sub in ["lib64", "targets/x86_64-linux/lib", "lib"] {
            out.extend(CUBLAS_NAMES.map(|n| root.join(sub).join(n)));
        }
    }
    out
}

/// A cuBLAS handle.
pub(crate) type CublasHandle = *mut c_void;

/// The cuBLAS entry points this crate uses, resolved from the loaded library. Their C
/// signatures are the same in cuBLAS 12 and 13.
pub(crate) struct CublasLibrary {
    /// `cublasCreate_v2`.
    pub create: unsafe extern "C" fn(*mut CublasHandle) -> c_int,
    /// `cublasDestroy_v2`.
    pub destroy: unsafe extern "C" fn(CublasHandle) -> c_int,
    /// `cublasSetStream_v2` (the stream is a `CUstream`).
    pub set_stream: unsafe extern "C" fn(CublasHandle, *mut c_void) -> c_int,
    /// `cublasSetMathMode`.
    pub set_math_mode: unsafe extern "C" fn(CublasHandle, c_int) -> c_int,
    /// `cublasGetVersion_v2`.
    pub get_version: unsafe extern "C" fn(CublasHandle, *mut c_int) -> c_int,
    /// `cublasSgemm_v2` (column-major).
    #[allow(clippy::type_complexity)]
    pub sgemm: unsafe extern "C" fn(
        CublasHandle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> c_int,
    /// Where the library was found.
    pub path: String,
    // Keeps the code behind the function pointers loaded (cuBLAS, then cuBLASLt).
    _lib: Library,
    _lt: Option<Library>,
}

/// Opens cuBLASLt from the folder of a cuBLAS given by path, so that cuBLAS finds its
/// dependency even when that folder is not on the loader's search path (the loader matches
/// the already-loaded library by name).
fn preload_lt(cublas: &std::path::Path) -> Option<Library> {
    let dir = cublas.parent().filter(|d| !d.as_os_str().is_empty())?;
    let name = cublas
        .file_name()?
        .to_str()?
        .replacen("libcublas.", "libcublasLt.", 1);
    let lt = dir.join(name);
    // SAFETY: cuBLASLt's initialisers have no preconditions.
    lt.is_file()
        .then(|| unsafe { Library::new(&lt) }.ok())
        .flatten()
}

impl CublasLibrary {
    /// Loads cuBLAS once per process; later calls share the result.
    pub(crate) fn get() -> Result<Arc<CublasLibrary>, String> {
        static LIB: OnceLock<Result<Arc<CublasLibrary>, String>> = OnceLock::new();
        LIB.get_or_init(|| Self::load().map(Arc::new)).clone()
    }

    fn load() -> Result<CublasLibrary, String> {
        let tried = cublas_candidates();
        let mut errors = Vec::new();
        for path in &tried {
            let lt = preload_lt(path);
            // SAFETY: cuBLAS's initialisers have no preconditions.
            match unsafe { Library::new(path) } {
                Ok(lib) => {
                    return Self::resolve(lib, lt, path.display().to_string())
                        .map_err(|e| format!("{} is not a usable cuBLAS: {e}", path.display()));
                }
                Err(e) if path.is_absolute() && path.exists() => errors.push(e.to_string()),
                Err(_) => {}
            }
        }
        let detail = if errors.is_empty() {
            String::new()
        } else {
            format!(" ({})", errors.join("; "))
        };
        Err(format!(
            "the CUDA driver works but cuBLAS could not be loaded (tried {}){detail}; install \
             cuBLAS from CUDA 12 or 13, add its folder to LD_LIBRARY_PATH or set {CUBLAS_ENV} to \
             the library file, or {USE_CPU}",
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    fn resolve(lib: Library, lt: Option<Library>, path: String) -> Result<CublasLibrary, String> {
        // SAFETY: each symbol is read with the signature of the cuBLAS C API.
        unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("missing {}: {e}", $name))?
                };
            }
            Ok(CublasLibrary {
                create: sym!("cublasCreate_v2"),
                destroy: sym!("cublasDestroy_v2"),
                set_stream: sym!("cublasSetStream_v2"),
                set_math_mode: sym!("cublasSetMathMode"),
                get_version: sym!("cublasGetVersion_v2"),
                sgemm: sym!("cublasSgemm_v2"),
                path,
                _lib: lib,
                _lt: lt,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cublas_is_looked_for_under_both_major_versions() {
        let c = cublas_candidates();
        let names: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        assert!(names.iter().any(|n| n == "libcublas.so.13"));
        assert!(names.iter().any(|n| n == "libcublas.so.12"));
        assert!(
            names
                .iter()
                .any(|n| n == "/usr/local/cuda/lib64/libcublas.so.13")
        );
    }

    #[test]
    fn driver_candidates_include_the_versioned_name() {
        assert!(
            cudarc::get_lib_name_candidates("cuda")
                .iter()
                .any(|n| n == "libcuda.so.1")
        );
    }
}
