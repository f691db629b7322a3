//! The check that a wrapper backend hands every fused operation to the backend it wraps,
//! run on wrappers whose answer is known: one that forwards everything, and `Composed`,
//! which gives every fused operation to its default composition instead.

use tensor_core::testing::Composed;
use tensor_core::testing::forwarding::{FUSED_OPS, unforwarded_ops};
use tensor_cpu::CpuBackend;

/// The fused operations for which the CPU backend has a kernel of its own (all of them, on
/// every architecture and vector path), so that a wrapper falling back to the default
/// composition can be told apart from it.
fn cpu_kernels() -> Vec<&'static str> {
    FUSED_OPS.to_vec()
}

#[test]
fn a_wrapper_on_the_default_compositions_is_caught_for_every_kernel() {
    let cpu = CpuBackend::new();
    assert_eq!(unforwarded_ops(&Composed(cpu.clone()), &cpu), cpu_kernels());
}

#[test]
fn the_backend_itself_forwards_everything() {
    let cpu = CpuBackend::new();
    assert_eq!(unforwarded_ops(&cpu.clone(), &cpu), Vec::<&str>::new());
}
