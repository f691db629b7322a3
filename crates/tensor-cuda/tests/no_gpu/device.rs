//! Without a driver or a device, opening the backend is an error that says so, never a panic.

use std::error::Error as _;
use tensor_core::{Error, UnavailableKind};
use tensor_cuda::{CudaBackend, CudaError};

/// Checks that a "device unavailable" error explains itself in one line: what was looked for
/// and, where the driver or cuBLAS reported something, that error as a typed source. Advice
/// about other devices is the program's to give, so the reason gives none.
fn assert_explains(e: &Error) -> UnavailableKind {
    let Error::DeviceUnavailable {
        kind,
        reason,
        source,
    } = e
    else {
        panic!("expected DeviceUnavailable, got {e:?}")
    };
    assert!(reason.len() > 20, "too terse: {reason}");
    assert!(!reason.contains('\n'), "{reason}");
    assert!(
        !reason.contains("--device"),
        "advice belongs to the program: {reason}"
    );
    if let Some(source) = source {
        assert!(source.downcast_ref::<CudaError>().is_some(), "{source:?}");
        assert_eq!(e.source().map(|s| s.to_string()), Some(source.to_string()));
    }
    *kind
}

#[test]
fn opening_device_0_succeeds_or_says_why() {
    match CudaBackend::new(0) {
        Ok(gpu) => assert_eq!(gpu.ordinal(), 0),
        Err(e) => {
            assert_explains(&e);
            assert!(!CudaBackend::is_available());
        }
    }
}

#[test]
fn a_device_that_does_not_exist_is_unavailable() {
    let e = CudaBackend::new(10_000).expect_err("no machine has 10001 GPUs");
    let kind = assert_explains(&e);
    if CudaBackend::device_count().is_ok() {
        // A working driver: the ordinal is what is wrong.
        assert_eq!(kind, UnavailableKind::NoDevice, "{e}");
        assert!(e.to_string().contains("10000"), "{e}");
    }
}

#[test]
fn the_error_displays_as_one_line() {
    let text = CudaBackend::new(10_000).unwrap_err().to_string();
    assert!(text.starts_with("device unavailable: "), "{text}");
    assert!(!text.contains('\n'), "{text}");
}

#[test]
fn device_count_agrees_with_availability() {
    match CudaBackend::device_count() {
        Ok(n) => assert_eq!(CudaBackend::is_available(), n > 0),
        Err(e) => {
            assert_explains(&e);
            assert!(!CudaBackend::is_available());
        }
    }
}

/// On a machine without the NVIDIA driver (like the one CI runs on), the kind says so and
/// the reason lists `libcuda.so.1` first among the names tried.
#[test]
fn without_a_driver_the_kind_is_no_driver() {
    let driver_installed = ["libcuda.so.1", "libcuda.so"].iter().any(|name| {
        // SAFETY: opening the driver library runs its initialisers, which have no
        // preconditions.
        unsafe { libloading::Library::new(*name) }.is_ok()
    });
    if driver_installed {
        eprintln!("a CUDA driver library is installed: nothing to check");
        return;
    }
    let e = CudaBackend::new(0).unwrap_err();
    assert_eq!(assert_explains(&e), UnavailableKind::NoDriver);
    let Error::DeviceUnavailable { reason, .. } = &e else {
        unreachable!()
    };
    assert!(
        reason.contains("tried libcuda.so.1, libcuda.so"),
        "{reason}"
    );
}
