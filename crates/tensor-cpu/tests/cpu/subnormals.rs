//! Subnormal floats are flushed to zero inside the backend's operations, on the calling
//! thread and on the worker threads, and the calling thread's own float mode is left as it
//! was.

use crate::common::with_threads;
use std::hint::black_box;
use tensor_core::Tensor;
use tensor_cpu::{CpuBackend, flushing_subnormals};

/// `1e-30 * 1e-10` is the subnormal 1e-40 in IEEE arithmetic.
const TINY: f32 = 1e-30;
const SMALL: f32 = 1e-10;

/// Products whose exact results are subnormal come out as zero, on one thread (7 elements)
/// and split over the pool (past the parallel threshold); a subnormal input reads as zero
/// even where the result would be a normal number.
fn check_products_flush(n: usize) {
    let cpu = CpuBackend::new();
    let a = Tensor::from_slice(&cpu, &vec![TINY; n], [n]).unwrap();
    let b = Tensor::from_slice(&cpu, &vec![SMALL; n], [n]).unwrap();
    let product = (&a * &b).unwrap().to_vec().unwrap();
    assert!(
        product.iter().all(|v| *v == 0.0),
        "{n}: {:e}",
        product[n - 1]
    );
    let subnormal = Tensor::from_slice(&cpu, &vec![1e-39f32; n], [n]).unwrap();
    let large = Tensor::from_slice(&cpu, &vec![1e30f32; n], [n]).unwrap();
    let scaled = (&subnormal * &large).unwrap().to_vec().unwrap();
    assert!(scaled.iter().all(|v| *v == 0.0), "{n}: {:e}", scaled[n - 1]);
}

#[test]
fn subnormal_results_and_inputs_are_zero_on_every_thread() {
    assert!(
        black_box(TINY) * black_box(SMALL) != 0.0,
        "IEEE arithmetic keeps the subnormal: the check below would prove nothing"
    );
    for n in [7, 100_003] {
        check_products_flush(n);
        with_threads(2, || check_products_flush(n));
    }
}

#[test]
fn the_calling_threads_float_mode_is_restored() {
    assert!(!flushing_subnormals());
    let cpu = CpuBackend::new();
    let a = Tensor::from_slice(&cpu, &[TINY, 2.0], [2]).unwrap();
    let b = (&a * &a).unwrap();
    b.to_vec().unwrap();
    assert!(!flushing_subnormals());
    assert_eq!(black_box(TINY) * black_box(SMALL), 1e-40);
}

/// A matrix product with subnormal weights (what weight decay leaves of dead units) gives
/// the product of the weights read as zero, on a product large enough to be split.
#[test]
fn matrix_products_read_subnormal_weights_as_zero() {
    let cpu = CpuBackend::new();
    let (m, k, n) = (512, 64, 64);
    let x = Tensor::from_slice(&cpu, &vec![1e20f32; m * k], [m, k]).unwrap();
    let mut w = vec![1e-39f32; k * n];
    w[0] = 1.0;
    let w = Tensor::from_slice(&cpu, &w, [k, n]).unwrap();
    let y = x.matmul(&w).unwrap().to_vec().unwrap();
    for (i, v) in y.iter().enumerate() {
        let want = if i % n == 0 { 1e20 } else { 0.0 };
        assert_eq!(*v, want, "element {i}");
    }
}
