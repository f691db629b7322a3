//! Argument checks shared by the backends, so that every backend reports the same bad call
//! with the same [`Error`] (see the contract in [`Backend`](crate::Backend)).

use crate::{Error, Result};

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
