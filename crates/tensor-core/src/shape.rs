//! Shapes of any rank and numpy broadcasting.

use crate::{Error, Result};
use std::fmt;

/// The dimensions of a tensor, outermost first (row-major).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape(Vec<usize>);

impl Shape {
    /// A shape from its dimensions.
    pub fn new(dims: impl Into<Vec<usize>>) -> Self {
        Shape(dims.into())
    }

    /// The shape of a scalar (rank 0, one element).
    pub fn scalar() -> Self {
        Shape(Vec::new())
    }

    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// The total number of elements (1 for a scalar).
    pub fn numel(&self) -> usize {
        self.0.iter().product()
    }

    /// The size of dimension `axis`, or an error naming `op`.
    pub fn dim(&self, axis: usize, op: &'static str) -> Result<usize> {
        self.0.get(axis).copied().ok_or(Error::BadAxis {
            op,
            axis,
            rank: self.rank(),
        })
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut strides = vec![1; self.rank()];
        for i in (0..self.rank().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * self.0[i + 1];
        }
        strides
    }

    /// Rows and columns of a rank-2 shape, or an error naming `op`.
    pub fn as_matrix(&self, op: &'static str) -> Result<(usize, usize)> {
        match self.0.as_slice() {
            [r, c] => Ok((*r, *c)),
            _ => Err(Error::Rank {
                op,
                expected: 2,
                shape: self.clone(),
            }),
        }
    }

    /// Splits the shape around `axis` into (outer, axis length, inner) element counts.
    pub fn split_at_axis(&self, axis: usize, op: &'static str) -> Result<(usize, usize, usize)> {
        let len = self.dim(axis, op)?;
        let outer = self.0[..axis].iter().product();
        let inner = self.0[axis + 1..].iter().product();
        Ok((outer, len, inner))
    }

    /// The shape left after reducing `axis` (removed, or kept as 1 when `keep_dim`).
    pub fn reduced(&self, axis: usize, keep_dim: bool, op: &'static str) -> Result<Shape> {
        self.dim(axis, op)?;
        let mut dims = self.0.clone();
        if keep_dim {
            dims[axis] = 1;
        } else {
            dims.remove(axis);
        }
        Ok(Shape(dims))
    }

    /// The broadcast shape of `self` and `other` under numpy rules.
    pub fn broadcast(&self, other: &Shape, op: &'static str) -> Result<Shape> {
        let rank = self.rank().max(other.rank());
        let mut dims = vec![0; rank];
        for (i, d) in dims.iter_mut().enumerate() {
            let a = self.dim_from_right(rank - 1 - i);
            let b = other.dim_from_right(rank - 1 - i);
            *d = match (a, b) {
                (a, b) if a == b => a,
                (1, b) => b,
                (a, 1) => a,
                _ => {
                    return Err(Error::Broadcast {
                        op,
                        lhs: self.clone(),
                        rhs: other.clone(),
                    });
                }
            };
        }
        Ok(Shape(dims))
    }

    /// Strides to read this shape as if broadcast to `target` (0 on broadcast axes).
    /// `target` must be a valid broadcast of `self`.
    pub fn broadcast_strides(&self, target: &Shape) -> Vec<usize> {
        let own = self.strides();
        let offset = target.rank() - self.rank();
        (0..target.rank())
            .map(|i| {
                if i < offset || self.0[i - offset] == 1 {
                    0
                } else {
                    own[i - offset]
                }
            })
            .collect()
    }

    fn dim_from_right(&self, k: usize) -> usize {
        if k < self.rank() {
            self.0[self.rank() - 1 - k]
        } else {
            1
        }
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{d}")?;
        }
        write!(f, "]")
    }
}

impl From<&[usize]> for Shape {
    fn from(dims: &[usize]) -> Self {
        Shape(dims.to_vec())
    }
}

impl From<Vec<usize>> for Shape {
    fn from(dims: Vec<usize>) -> Self {
        Shape(dims)
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(dims: [usize; N]) -> Self {
        Shape(dims.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        let a = Shape::new([4, 1, 3]);
        let b = Shape::new([5, 1]);
        assert_eq!(a.broadcast(&b, "t").unwrap(), Shape::new([4, 5, 3]));
        assert_eq!(
            Shape::scalar().broadcast(&a, "t").unwrap(),
            Shape::new([4, 1, 3])
        );
        let err = Shape::new([2, 3]).broadcast(&Shape::new([4]), "add");
        assert!(matches!(err, Err(Error::Broadcast { .. })));
        assert!(err.unwrap_err().to_string().contains("[2, 3]"));
    }

    #[test]
    fn strides_and_splits() {
        let s = Shape::new([2, 3, 4]);
        assert_eq!(s.strides(), vec![12, 4, 1]);
        assert_eq!(s.split_at_axis(1, "t").unwrap(), (2, 3, 4));
        assert_eq!(s.reduced(2, false, "t").unwrap(), Shape::new([2, 3]));
        assert!(s.split_at_axis(3, "t").is_err());
        assert_eq!(
            Shape::new([3, 1]).broadcast_strides(&Shape::new([2, 3, 4])),
            vec![0, 1, 0]
        );
    }
}
