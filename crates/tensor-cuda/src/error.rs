//! The backend's own errors ([`CudaError`], [`CublasStatus`]) and their mapping into
//! [`tensor_core::Error`], where they are kept as typed sources.

use cudarc::driver::{DriverError, sys::CUresult};
use std::sync::atomic::{AtomicBool, Ordering};
use tensor_core::{Error, UnavailableKind};

/// A failure of the CUDA driver, of cuBLAS or of loading one of them. It is the source of
/// the [`tensor_core::Error`] an operation returns; reach it with
/// `std::error::Error::source` and `downcast_ref::<CudaError>()`, or through the `source`
/// field of [`Error::Device`] and [`Error::DeviceUnavailable`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CudaError {
    /// A driver call returned an error code.
    #[error("{call} failed: {text}")]
    Driver {
        /// The driver call or action ("cuMemAllocAsync", "loading the kernels of fill.cu").
        call: String,
        /// The code the driver returned.
        code: CUresult,
        /// The code's name and the driver's description of it.
        text: String,
    },
    /// A cuBLAS call returned a status other than success.
    #[error("{call} returned {status}")]
    Cublas {
        /// The cuBLAS function.
        call: &'static str,
        /// The status it returned.
        status: CublasStatus,
    },
    /// An NCCL call returned an error code (`ncclResult_t`).
    #[error("{call} returned NCCL error {code}")]
    Nccl {
        /// The NCCL function.
        call: &'static str,
        /// The code it returned.
        code: i32,
    },
    /// A library file could not be opened, or lacks an entry point the backend needs.
    #[error("{library}: {message}")]
    Library {
        /// The file or library name.
        library: String,
        /// What went wrong.
        message: String,
    },
}

impl CudaError {
    /// A failed driver call `call`.
    pub(crate) fn driver(call: impl Into<String>, e: DriverError) -> Self {
        CudaError::Driver {
            call: call.into(),
            code: e.0,
            text: describe(&e),
        }
    }

    /// The driver's code, for a driver failure.
    pub fn driver_code(&self) -> Option<CUresult> {
        match self {
            CudaError::Driver { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// A cuBLAS status code (`cublasStatus_t`), displayed with its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CublasStatus(pub i32);

impl CublasStatus {
    /// The status's name in the cuBLAS headers.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "CUBLAS_STATUS_SUCCESS",
            1 => "CUBLAS_STATUS_NOT_INITIALIZED",
            3 => "CUBLAS_STATUS_ALLOC_FAILED",
            7 => "CUBLAS_STATUS_INVALID_VALUE",
            8 => "CUBLAS_STATUS_ARCH_MISMATCH",
            11 => "CUBLAS_STATUS_MAPPING_ERROR",
            13 => "CUBLAS_STATUS_EXECUTION_FAILED",
            14 => "CUBLAS_STATUS_INTERNAL_ERROR",
            15 => "CUBLAS_STATUS_NOT_SUPPORTED",
            16 => "CUBLAS_STATUS_LICENSE_ERROR",
            _ => "unknown cuBLAS status",
        }
    }
}

impl std::fmt::Display for CublasStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name(), self.0)
    }
}

/// Set once the driver library is known to load: only then may an error code be described by
/// the driver (cudarc panics when it cannot load the library).
static DRIVER_LOADED: AtomicBool = AtomicBool::new(false);

/// Records that the driver library loads.
pub(crate) fn driver_loaded() {
    DRIVER_LOADED.store(true, Ordering::Relaxed);
}

/// What the driver says about an error, "CUDA_ERROR_NAME: description", or only the name
/// when the driver has not been loaded.
pub(crate) fn describe(e: &DriverError) -> String {
    let name = format!("{:?}", e.0);
    if !DRIVER_LOADED.load(Ordering::Relaxed) {
        return name;
    }
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// A failure of `what` (a driver call or a kernel) while running `op`.
pub(crate) fn driver(op: &'static str, what: &str, e: DriverError) -> Error {
    Error::device(op, format!("{what} failed")).with_source(CudaError::driver(what, e))
}

/// A failed cuBLAS call `call` while running `op`.
pub(crate) fn cublas(op: &'static str, call: &'static str, status: i32) -> Error {
    Error::device(op, format!("{call} failed")).with_source(CudaError::Cublas {
        call,
        status: CublasStatus(status),
    })
}

/// The device cannot be used: `reason`, caused by `source`.
pub(crate) fn unavailable(kind: UnavailableKind, reason: String, source: CudaError) -> Error {
    Error::unavailable(kind, reason).with_source(source)
}

/// The device cannot be used: `what` went wrong when the driver call `call` failed. A code
/// that says the library is a stand-in (a toolkit's link-time stub) means there is no usable
/// driver.
pub(crate) fn driver_unavailable(what: &str, call: &str, e: DriverError) -> Error {
    let kind = match e.0 {
        CUresult::CUDA_ERROR_STUB_LIBRARY => UnavailableKind::NoDriver,
        CUresult::CUDA_ERROR_NO_DEVICE => UnavailableKind::NoDevice,
        _ => UnavailableKind::DriverFailed,
    };
    let hint = if kind == UnavailableKind::NoDriver {
        "; the library opened as the CUDA driver is the CUDA toolkit's stub: remove the \
         toolkit's `stubs` folder from LD_LIBRARY_PATH"
    } else {
        ""
    };
    unavailable(kind, format!("{what}{hint}"), CudaError::driver(call, e))
}

/// Checks `got == expected` for a buffer named `what` ([`Error::BufferLength`] otherwise,
/// as the backend contract asks).
pub(crate) fn check_len(
    op: &'static str,
    what: &'static str,
    got: usize,
    expected: usize,
) -> Result<(), Error> {
    tensor_core::check::buffer_len(op, what, got, expected)
}

/// `a * b`, or an error naming `op` when it overflows.
pub(crate) fn product(op: &'static str, a: usize, b: usize) -> Result<usize, Error> {
    a.checked_mul(b).ok_or_else(|| Error::InvalidArgument {
        op,
        reason: format!("{a} x {b} elements overflow the address space"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    /// The `CudaError` an error carries.
    fn cuda_source(e: &Error) -> &CudaError {
        e.source()
            .and_then(|s| match e {
                Error::Device {
                    source: Some(b), ..
                }
                | Error::DeviceUnavailable {
                    source: Some(b), ..
                } => {
                    assert_eq!(s.to_string(), b.to_string());
                    b.downcast_ref::<CudaError>()
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no CudaError in {e:?}"))
    }

    #[test]
    fn cublas_failures_keep_the_status() {
        let e = cublas("gemm", "cublasSgemm_v2", 7);
        assert_eq!(e.to_string(), "device error in gemm: cublasSgemm_v2 failed");
        let source = cuda_source(&e);
        assert_eq!(
            source,
            &CudaError::Cublas {
                call: "cublasSgemm_v2",
                status: CublasStatus(7)
            }
        );
        assert_eq!(
            source.to_string(),
            "cublasSgemm_v2 returned CUBLAS_STATUS_INVALID_VALUE (7)"
        );
        assert_eq!(source.driver_code(), None);
        assert_eq!(CublasStatus(99).to_string(), "unknown cuBLAS status (99)");
    }

    #[test]
    fn driver_failures_keep_the_code() {
        let e = driver(
            "alloc",
            "cuMemAllocAsync",
            DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        );
        let Error::Device { op, message, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!((*op, message.as_str()), ("alloc", "cuMemAllocAsync failed"));
        let source = cuda_source(&e);
        assert_eq!(
            source.driver_code(),
            Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
        );
        assert!(
            source.to_string().contains("CUDA_ERROR_OUT_OF_MEMORY"),
            "{source}"
        );
    }

    #[test]
    fn driver_codes_map_to_kinds() {
        let kind = |code| match driver_unavailable("no init", "cuInit", DriverError(code)) {
            Error::DeviceUnavailable { kind, .. } => kind,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            kind(CUresult::CUDA_ERROR_STUB_LIBRARY),
            UnavailableKind::NoDriver
        );
        assert_eq!(
            kind(CUresult::CUDA_ERROR_NO_DEVICE),
            UnavailableKind::NoDevice
        );
        assert_eq!(
            kind(CUresult::CUDA_ERROR_UNKNOWN),
            UnavailableKind::DriverFailed
        );
        let stub = driver_unavailable(
            "the CUDA driver did not initialise",
            "cuInit",
            DriverError(CUresult::CUDA_ERROR_STUB_LIBRARY),
        );
        assert!(
            stub.to_string()
                .starts_with("device unavailable: the CUDA driver did not")
        );
        assert!(stub.to_string().contains("stubs"), "{stub}");
        assert_eq!(
            cuda_source(&stub).driver_code(),
            Some(CUresult::CUDA_ERROR_STUB_LIBRARY)
        );
    }

    #[test]
    fn length_checks_name_the_buffer() {
        let e = check_len("unary", "out", 3, 4).unwrap_err();
        assert!(matches!(e, Error::BufferLength { op: "unary", .. }), "{e}");
        assert_eq!(check_len("unary", "out", 4, 4), Ok(()));
        assert!(product("alloc", usize::MAX, 2).is_err());
        assert_eq!(product("alloc", 3, 4), Ok(12));
    }
}
