//! Without a driver or a device, opening the backend is an error that says so, never a panic.

use tensor_core::Error;
use tensor_cuda::CudaBackend;

/// Checks that a "device unavailable" message explains itself and suggests the CPU.
fn assert_helpful(message: &str) {
    assert!(message.contains("--device cpu"), "no advice in: {message}");
    assert!(message.len() > 40, "too terse: {message}");
}

#[test]
fn opening_device_0_succeeds_or_says_why() {
    match CudaBackend::new(0) {
        Ok(gpu) => assert_eq!(gpu.ordinal(), 0),
        Err(Error::DeviceUnavailable(message)) => {
            assert_helpful(&message);
            assert!(!CudaBackend::is_available());
        }
        Err(other) => panic!("expected DeviceUnavailable, got {other:?}"),
    }
}

#[test]
fn a_device_that_does_not_exist_is_unavailable() {
    match CudaBackend::new(10_000) {
        Err(Error::DeviceUnavailable(message)) => assert_helpful(&message),
        other => panic!("expected DeviceUnavailable, got {other:?}"),
    }
}

#[test]
fn the_error_displays_as_one_line() {
    if let Err(e) = CudaBackend::new(10_000) {
        let text = e.to_string();
        assert!(text.starts_with("device unavailable: "), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
}

#[test]
fn device_count_agrees_with_availability() {
    match CudaBackend::device_count() {
        Ok(n) => assert_eq!(CudaBackend::is_available(), n > 0),
        Err(Error::DeviceUnavailable(message)) => {
            assert_helpful(&message);
            assert!(!CudaBackend::is_available());
        }
        Err(other) => panic!("expected DeviceUnavailable, got {other:?}"),
    }
}
