//! Turning driver and cuBLAS failures into [`tensor_core::Error`].

use cudarc::driver::DriverError;
use tensor_core::Error;

/// What the driver says about an error: "CUDA_ERROR_NAME: description".
pub(crate) fn describe(e: &DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// A failure of `what` (a driver call or a kernel) while running `op`.
pub(crate) fn driver(op: &'static str, what: &str, e: DriverError) -> Error {
    Error::Device {
        op,
        message: format!("{what} failed: {}", describe(&e)),
    }
}

/// A cuBLAS status as its name.
pub(crate) fn cublas_status_name(status: i32) -> &'static str {
    match status {
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

/// A failed cuBLAS call `what` while running `op`.
pub(crate) fn cublas(op: &'static str, what: &str, status: i32) -> Error {
    Error::Device {
        op,
        message: format!("{what} returned {} ({status})", cublas_status_name(status)),
    }
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

/// The advice every "no GPU" message ends with.
pub(crate) const USE_CPU: &str = "run on the CPU with `--device cpu`";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_op_and_the_problem() {
        let e = cublas("gemm", "cublasSgemm_v2", 7);
        assert_eq!(
            e.to_string(),
            "device error in gemm: cublasSgemm_v2 returned CUBLAS_STATUS_INVALID_VALUE (7)"
        );
        let e = check_len("unary", "out", 3, 4).unwrap_err();
        assert!(matches!(e, Error::BufferLength { op: "unary", .. }), "{e}");
        assert!(product("alloc", usize::MAX, 2).is_err());
        assert_eq!(product("alloc", 3, 4), Ok(12));
    }
}
