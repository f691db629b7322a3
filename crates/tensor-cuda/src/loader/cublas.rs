//! cuBLAS, bound here directly rather than through cudarc (whose names for a CUDA 12.4 build
//! stop at `libcublas.so.12`): opening one library file, and finding the first candidate
//! that opens, has every entry point and creates a working handle.

use super::{Attempt, SearchEnv, Tried, first_working};
use crate::error::CudaError;
use libloading::Library;
use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
fn preload_lt(cublas: &Path) -> Option<Library> {
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

/// Whether `path` names a file by path rather than a name for the loader to search.
fn is_path(path: &Path) -> bool {
    path.components().count() > 1
}

impl CublasLibrary {
    /// Opens the cuBLAS at `path` (a file, or a name the loader searches for). A library
    /// opened once stays loaded for the life of the process and is shared.
    pub(crate) fn open(path: &Path) -> Attempt<Arc<CublasLibrary>> {
        static OPENED: Mutex<Vec<(PathBuf, Arc<CublasLibrary>)>> = Mutex::new(Vec::new());
        let mut opened = OPENED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, lib)) = opened.iter().find(|(p, _)| p == path) {
            return Attempt::Works(lib.clone());
        }
        if is_path(path) && !path.is_file() {
            return Attempt::Absent;
        }
        let lt = preload_lt(path);
        // SAFETY: cuBLAS's initialisers have no preconditions.
        let lib = match unsafe { Library::new(path) } {
            Ok(lib) => lib,
            // A name the loader does not find is simply not installed.
            Err(_) if !is_path(path) => return Attempt::Absent,
            Err(e) => {
                return Attempt::Fails(CudaError::Library {
                    library: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        };
        match Self::resolve(lib, lt, path.display().to_string()) {
            Ok(lib) => {
                let lib = Arc::new(lib);
                opened.push((path.to_path_buf(), lib.clone()));
                Attempt::Works(lib)
            }
            Err(message) => Attempt::Fails(CudaError::Library {
                library: path.display().to_string(),
                message,
            }),
        }
    }

    fn resolve(lib: Library, lt: Option<Library>, path: String) -> Result<CublasLibrary, String> {
        // SAFETY: each symbol is read with the signature of the cuBLAS C API.
        unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .map_err(|_| format!("not a cuBLAS library: it lacks {}", $name))?
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

/// The first of `env`'s candidates that `open` loads and `make` turns into a `T` (a working
/// handle); a candidate that fails either step is passed over for the next. `ldconfig` is
/// consulted only after every other candidate failed.
pub(crate) fn find_cublas<L, T>(
    env: &SearchEnv,
    open: impl Fn(&Path) -> Attempt<L>,
    mut make: impl FnMut(L) -> Result<T, CudaError>,
) -> Result<T, Tried> {
    let candidates = env
        .candidates()
        .into_iter()
        .chain(std::iter::once_with(|| env.ldconfig_candidates()).flatten());
    first_working(candidates, |path| match open(path) {
        Attempt::Works(lib) => match make(lib) {
            Ok(t) => Attempt::Works(t),
            Err(e) => Attempt::Fails(e),
        },
        Attempt::Absent => Attempt::Absent,
        Attempt::Fails(e) => Attempt::Fails(e),
    })
}

#[cfg(test)]
#[path = "cublas_tests.rs"]
mod tests;
