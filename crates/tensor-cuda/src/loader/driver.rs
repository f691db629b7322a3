//! Finding the CUDA driver library before cudarc does.
//!
//! cudarc opens the driver itself, on first use, trying its own list of names in a fixed
//! order that starts with `libcuda.so` and ends with `libcuda.so.1`; it panics when none
//! opens or an entry point is missing. The driver package installs `libcuda.so.1`, while a
//! CUDA toolkit also ships a link-time stub named `libcuda.so`, whose every call fails with
//! `CUDA_ERROR_STUB_LIBRARY`. So the probe looks for the driver under `libcuda.so.1` first,
//! checks its entry points, and then checks that the library cudarc will open is that same
//! driver; when it is another one that turns out to be a stub, the device is unavailable with
//! a reason that names both files and the fix, rather than a failure deep in cudarc.

use super::{Attempt, first_working};
use crate::error::{CudaError, driver_loaded};
use libloading::Library;
use std::ffi::{c_int, c_uint, c_void};
use tensor_core::{Error, Result, UnavailableKind};

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

/// `CUDA_ERROR_STUB_LIBRARY`: what every call of a toolkit's stub `libcuda.so` returns.
const STUB_LIBRARY: c_int = 34;

/// The names cudarc tries for the driver, in its order.
fn cudarc_names() -> Vec<String> {
    let mut names = cudarc::get_lib_name_candidates("cuda");
    names.extend(cudarc::get_lib_name_candidates("nvcuda"));
    names
}

/// The names the probe tries: `libcuda.so.1` first, then cudarc's names, each once.
pub(crate) fn driver_names(cudarc: &[String]) -> Vec<String> {
    let mut names = vec!["libcuda.so.1".to_string()];
    for n in cudarc {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

/// An opened candidate driver library, as the probe sees it.
pub(crate) trait DriverLibrary {
    /// Identifies the loaded object: two handles of the same file give the same value.
    fn identity(&self) -> usize;
    /// The entry points of [`DRIVER_SYMBOLS`] it lacks.
    fn missing(&self) -> Vec<&'static str>;
    /// What `cuInit(0)` returns.
    fn init(&self) -> c_int;
    /// The file it was loaded from, when known.
    fn file(&self) -> Option<String>;
}

/// Picks the driver from `preferred` (opened with `open`) and checks it against the first of
/// `cudarc` that opens, the library cudarc will use.
pub(crate) fn choose<L: DriverLibrary>(
    preferred: &[String],
    cudarc: &[String],
    open: impl Fn(&str) -> Option<L>,
) -> Result<()> {
    let driver = first_working(preferred, |name| match open(name) {
        None => Attempt::Absent,
        Some(lib) => match lib.missing() {
            missing if missing.is_empty() => Attempt::Works((name.to_string(), lib)),
            missing => Attempt::Fails(CudaError::Library {
                library: name.to_string(),
                message: format!("lacks {}", missing.join(", ")),
            }),
        },
    });
    let (name, driver) = driver.map_err(|tried| {
        let found = if tried.failures.is_empty() {
            "could not load the CUDA driver library"
        } else {
            "found no usable CUDA driver library"
        };
        let error = Error::unavailable(
            UnavailableKind::NoDriver,
            format!(
                "no NVIDIA driver: {found} ({}); install the NVIDIA driver (CUDA 12.0 or later)",
                tried.describe_first(3)
            ),
        );
        match tried.last_error() {
            Some(e) => error.with_source(e),
            None => error,
        }
    })?;
    let Some((used_name, used)) = cudarc
        .iter()
        .find_map(|n| open(n).map(|lib| (n.clone(), lib)))
    else {
        return Ok(());
    };
    if used.identity() == driver.identity() {
        return Ok(());
    }
    let where_ = |lib: &L, n: &str| lib.file().map_or(n.to_string(), |f| format!("{n} ({f})"));
    let hidden = || {
        format!(
            "the CUDA bindings open {} before the driver {}",
            where_(&used, &used_name),
            where_(&driver, &name)
        )
    };
    let missing = used.missing();
    if !missing.is_empty() {
        return Err(Error::unavailable(
            UnavailableKind::NoDriver,
            format!(
                "{}, and it lacks {}; remove its folder from LD_LIBRARY_PATH",
                hidden(),
                missing.join(", ")
            ),
        ));
    }
    match used.init() {
        STUB_LIBRARY => Err(Error::unavailable(
            UnavailableKind::NoDriver,
            format!(
                "{}, and it is the CUDA toolkit's stub (cuInit returns CUDA_ERROR_STUB_LIBRARY); \
                 remove the toolkit's `stubs` folder from LD_LIBRARY_PATH",
                hidden()
            ),
        )),
        // Another working driver: cudarc uses it.
        _ => Ok(()),
    }
}

/// A driver library opened with libloading. It is never closed: the probe may have called
/// `cuInit` through it, after which unloading a driver (with its threads) is not safe, and
/// cudarc opens the same library again anyway.
struct Opened(std::mem::ManuallyDrop<Library>);

impl Opened {
    fn address(&self, symbol: &str) -> Option<*const c_void> {
        // SAFETY: the symbol is only looked up, never called through this pointer.
        unsafe { self.0.get::<*const c_void>(symbol.as_bytes()) }
            .ok()
            .map(|s| *s)
    }
}

impl DriverLibrary for Opened {
    fn identity(&self) -> usize {
        self.address("cuInit").map_or(0, |p| p as usize)
    }

    fn missing(&self) -> Vec<&'static str> {
        DRIVER_SYMBOLS
            .iter()
            .copied()
            .filter(|s| self.address(s).is_none())
            .collect()
    }

    fn init(&self) -> c_int {
        // SAFETY: `cuInit` has this C signature in every CUDA release; it takes a flags word
        // that must be 0, and may be called any number of times.
        unsafe {
            match self
                .0
                .get::<unsafe extern "C" fn(c_uint) -> c_int>(b"cuInit")
            {
                Ok(f) => f(0),
                Err(_) => -1,
            }
        }
    }

    fn file(&self) -> Option<String> {
        library_file(self.address("cuInit")?)
    }
}

/// The file of the loaded library that holds `address`.
#[cfg(unix)]
fn library_file(address: *const c_void) -> Option<String> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: `dladdr` only reads the loader's tables and fills `info`; the file name it
    // returns points into a loaded library, which stays loaded while we copy it.
    unsafe {
        if libc::dladdr(address, info.as_mut_ptr()) == 0 {
            return None;
        }
        let info = info.assume_init();
        (!info.dli_fname.is_null()).then(|| {
            std::ffi::CStr::from_ptr(info.dli_fname)
                .to_string_lossy()
                .into_owned()
        })
    }
}

#[cfg(not(unix))]
fn library_file(_address: *const c_void) -> Option<String> {
    None
}

/// Checks that a usable CUDA driver will be opened by cudarc: found under `libcuda.so.1`
/// first, with the entry points the backend uses, and not hidden by a toolkit stub.
pub(crate) fn probe_driver() -> Result<()> {
    let cudarc = cudarc_names();
    choose(&driver_names(&cudarc), &cudarc, |name| {
        // SAFETY: opening the driver library runs its initialisers, which have no
        // preconditions.
        unsafe { Library::new(name) }
            .ok()
            .map(|lib| Opened(std::mem::ManuallyDrop::new(lib)))
    })?;
    driver_loaded();
    Ok(())
}

#[cfg(test)]
#[path = "driver_tests.rs"]
mod tests;
