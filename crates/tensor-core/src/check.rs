//! Argument checks shared by the backends, so that every backend reports the same bad call
//! with the same [`Error`] (see the contract in [`Backend`]).

use crate::{Backend, Error, Gemm, Result};

/// Checks that buffer `buffer` of `op` holds exactly `expected` elements; otherwise
/// [`Error::BufferLength`].
#[inline]
pub fn buffer_len(
    op: &'static str,
    buffer: &'static str,
    got: usize,
    expected: usize,
) -> Result<()> {
    if got == expected {
        Ok(())
    } else {
        Err(Error::BufferLength {
            op,
            buffer,
            expected,
            got,
        })
    }
}

/// `a * b` (an element count), or [`Error::InvalidArgument`] when it overflows `usize`.
#[inline]
pub fn elements(op: &'static str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::InvalidArgument {
        op,
        reason: format!("{a} x {b} elements overflow the address space"),
    })
}

/// Checks that the range `offset..offset + len` lies within `0..total` and returns its end;
/// otherwise [`Error::OutOfBounds`] with `index` the end of the range (saturated when the
/// sum overflows) and `len` the total.
#[inline]
pub fn range(op: &'static str, offset: usize, len: usize, total: usize) -> Result<usize> {
    offset
        .checked_add(len)
        .filter(|&end| end <= total)
        .ok_or(Error::OutOfBounds {
            op,
            index: offset.saturating_add(len),
            len: total,
        })
}

/// Refuses a fused product whose `beta` is not 0.
pub fn check_no_beta(op: &'static str, spec: &Gemm) -> Result<()> {
    if spec.beta != 0.0 {
        return Err(Error::InvalidArgument {
            op,
            reason: format!("beta must be 0, got {}", spec.beta),
        });
    }
    Ok(())
}

/// Checks the buffers of a fused product with a row vector (`[n]`) or a matrix of the
/// result's shape beside it; returns the result's element count.
pub fn check_fused_gemm<B: Backend>(
    b: &B,
    op: &'static str,
    spec: &Gemm,
    (name, side, side_len): (&'static str, &B::Storage, usize),
    c: &B::Storage,
) -> Result<usize> {
    check_no_beta(op, spec)?;
    let n = elements(op, spec.m, spec.n)?;
    buffer_len(op, "c", b.storage_len(c), n)?;
    buffer_len(op, name, b.storage_len(side), side_len)?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_ranges_and_products() {
        assert_eq!(buffer_len("unary", "out", 3, 3), Ok(()));
        let err = buffer_len("unary", "out", 3, 4).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unary: buffer `out` holds 3 elements but 4 are required"
        );
        assert_eq!(elements("alloc", 3, 4), Ok(12));
        assert!(matches!(
            elements("alloc", usize::MAX, 2),
            Err(Error::InvalidArgument { .. })
        ));
        assert_eq!(range("copy_slice", 2, 3, 5), Ok(5));
        assert_eq!(
            range("copy_slice", 3, 3, 5),
            Err(Error::OutOfBounds {
                op: "copy_slice",
                index: 6,
                len: 5
            })
        );
        assert_eq!(
            range("copy_slice", usize::MAX, 2, 5),
            Err(Error::OutOfBounds {
                op: "copy_slice",
                index: usize::MAX,
                len: 5
            })
        );
    }
}
