//! The tests of the CPU backend, in one binary (each test binary is linked separately, which
//! dominates the build time):
//! - `conformance`: the backend conformance suite of `tensor-core`, one test per check;
//! - what is particular to this backend: bit-identical results whatever the thread count
//!   (`determinism`, and `hashgrid` for the encoding), and the accuracy of its fast math
//!   functions;
//! - `tensor`: `Tensor`'s methods (shapes, named methods, operators, error messages) on it;
//! - property tests of broadcasting and reductions;
//! - `simd`: the vector path that runs is the one `IRON_LEARN_SIMD` forces;
//! - `subnormals`: subnormal floats flushed inside operations on every thread, and only there.

mod common;
mod determinism;
mod hashgrid;
mod math;
mod proptest_broadcast;
mod proptest_reduce;
mod simd;
mod subnormals;
mod tensor;

mod conformance {
    tensor_core::conformance_tests!(tensor_cpu::CpuBackend::new());
}
