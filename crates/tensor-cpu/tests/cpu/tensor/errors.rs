//! Bad input gives the right `Error` variant, with a message that names the operation and
//! the shapes involved, and never a panic.

use crate::common::*;
use tensor_core::{BinaryOp, Error, Primitives, ReduceOp, Tensor, UnaryOp};

/// Asserts that `err`'s message mentions every one of `parts`.
#[track_caller]
fn mentions(err: &Error, parts: &[&str]) {
    let msg = err.to_string();
    for p in parts {
        assert!(msg.contains(p), "`{msg}` does not mention `{p}`");
    }
}

fn t(dims: &[usize]) -> Tensor<tensor_cpu::CpuBackend> {
    Tensor::zeros(&cpu(), dims).unwrap()
}

#[test]
fn mismatched_shapes() {
    let err = t(&[2, 3]).binary(BinaryOp::Add, &t(&[4])).unwrap_err();
    assert!(matches!(err, Error::Broadcast { .. }), "{err}");
    mentions(&err, &["[2, 3]", "[4]", "binary"]);
    let err = (&t(&[2, 3]) * &t(&[3, 2])).unwrap_err();
    mentions(&err, &["[2, 3]", "[3, 2]"]);
    let err = t(&[2, 3])
        .binary_into(BinaryOp::Mul, &t(&[3]), &mut t(&[3, 2]))
        .unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[2, 3]", "[3, 2]", "binary_into"]);
    let err = t(&[2, 3])
        .unary_into(UnaryOp::Exp, &mut t(&[6]))
        .unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[2, 3]", "[6]", "unary_into"]);
    let err = t(&[3]).add_assign(&t(&[2, 3])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[3]", "[2, 3]", "binary_assign"]);
    let err = t(&[2, 2]).copy_from(&t(&[5])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[2, 2]", "[5]", "copy_from"]);
    let err = t(&[2, 3]).reshape([4, 2]).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[2, 3]", "[4, 2]", "reshape"]);
    let err = t(&[2, 3])
        .reduce_into(ReduceOp::Sum, Some(0), &mut t(&[2]))
        .unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[3]", "[2]", "reduce_into"]);
    let err = t(&[4, 3]).slice_rows_into(0, &mut t(&[2, 2])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[4, 3]", "[2, 2]", "slice_rows"]);
}

#[test]
fn bad_axes() {
    for axis in [2, 7] {
        let err = t(&[2, 3]).sum(Some(axis)).unwrap_err();
        assert!(
            matches!(err, Error::BadAxis { axis: a, rank: 2, .. } if a == axis),
            "{err}"
        );
        mentions(&err, &["reduce", &axis.to_string()]);
    }
    let err = t(&[]).argmax(Some(0)).unwrap_err();
    assert!(matches!(err, Error::BadAxis { rank: 0, .. }), "{err}");
    let err = Tensor::concat(&[&t(&[2, 3]), &t(&[2, 3])], 2).unwrap_err();
    assert!(matches!(err, Error::BadAxis { .. }), "{err}");
    mentions(&err, &["concat"]);
}

#[test]
fn wrong_element_counts() {
    let cpu = cpu();
    let err = Tensor::from_slice(&cpu, &[1.0; 5], [2, 3]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::ElementCount {
                expected: 6,
                got: 5,
                ..
            }
        ),
        "{err}"
    );
    mentions(&err, &["from_slice", "[2, 3]", "6", "5"]);
    let err = Tensor::from_storage(&cpu, vec![0.0; 3], [2, 2]).unwrap_err();
    assert!(matches!(err, Error::ElementCount { .. }), "{err}");
    mentions(&err, &["from_storage", "[2, 2]"]);
    let err = t(&[2]).upload(&[1.0; 3]).unwrap_err();
    assert!(matches!(err, Error::ElementCount { .. }), "{err}");
    mentions(&err, &["upload", "[2]"]);
    let err = t(&[2]).to_scalar().unwrap_err();
    assert!(matches!(err, Error::ElementCount { .. }), "{err}");
    mentions(&err, &["to_scalar", "[2]"]);
    let err = Tensor::rand_uniform(&cpu, [2], 1.0, 1.0, &mut rng(1)).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    for (mean, std) in [(0.0, -1.0), (0.0, f32::NAN), (f32::INFINITY, 1.0)] {
        let err = Tensor::rand_normal(&cpu, [2], mean, std, &mut rng(1)).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        mentions(&err, &["rand_normal"]);
    }
}

#[test]
fn out_of_range_gathers_and_slices() {
    let cpu = cpu();
    let x = t(&[7, 3]);
    let index = cpu.upload_indices(&[0, 7, 2]).unwrap();
    let err = x.gather_rows(&index, 0, 3).unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 7,
                len: 7,
                ..
            }
        ),
        "{err}"
    );
    mentions(&err, &["gather_rows", "7"]);
    let err = x.gather_rows(&index, 2, 2).unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 4,
                len: 3,
                ..
            }
        ),
        "{err}"
    );
    let err = x.gather_rows_into(&index, 0, &mut t(&[1, 4])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["[7, 3]", "[1, 4]"]);
    let err = t(&[2, 3, 1]).gather_rows(&index, 0, 1).unwrap_err();
    assert!(matches!(err, Error::Rank { expected: 2, .. }), "{err}");
    let err = x.slice_rows(5, 3).unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 8,
                len: 7,
                ..
            }
        ),
        "{err}"
    );
    mentions(&err, &["slice_rows"]);
    // A start so large that `start + count` would overflow is still just out of bounds.
    let err = x.slice_rows(usize::MAX, 2).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { len: 7, .. }), "{err}");
    let err = x.gather_rows(&index, usize::MAX, 1).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { len: 3, .. }), "{err}");
    let err = t(&[]).slice_rows(0, 1).unwrap_err();
    assert!(matches!(err, Error::Rank { .. }), "{err}");
}

#[test]
fn matmul_needs_matrices_that_fit() {
    let err = t(&[2, 3, 4]).matmul(&t(&[4, 2])).unwrap_err();
    assert!(matches!(err, Error::Rank { expected: 2, .. }), "{err}");
    mentions(&err, &["matmul", "[2, 3, 4]"]);
    let err = t(&[4]).matmul(&t(&[4, 2])).unwrap_err();
    assert!(matches!(err, Error::Rank { .. }), "{err}");
    let err = t(&[2, 3]).matmul(&t(&[4, 2])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["matmul", "[2, 3]", "[4, 2]"]);
    let err = t(&[2, 3]).matmul_t(&t(&[2, 3]), false, false).unwrap_err();
    mentions(&err, &["[2, 3]"]);
    assert!(t(&[2, 3]).matmul_t(&t(&[2, 3]), false, true).is_ok());
    let err = t(&[2, 3, 1]).transpose().unwrap_err();
    assert!(matches!(err, Error::Rank { .. }), "{err}");
    mentions(&err, &["transpose", "[2, 3, 1]"]);
}

#[test]
fn concat_of_mismatched_shapes() {
    let err = Tensor::concat(&[&t(&[2, 3]), &t(&[2, 4])], 0).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    mentions(&err, &["concat", "[2, 3]", "[2, 4]"]);
    let err = Tensor::concat(&[&t(&[2, 3]), &t(&[2, 3, 1])], 1).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    let err = Tensor::<tensor_cpu::CpuBackend>::concat(&[], 0).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    mentions(&err, &["concat"]);
}
