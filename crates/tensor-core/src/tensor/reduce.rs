//! Reductions along one axis or over every element.

use super::Tensor;
use crate::params::ReduceSpec;
use crate::{Backend, ReduceOp, Result, Shape};

impl<B: Backend> Tensor<B> {
    /// Reduces along `axis` (or over everything when `None`); the axis is removed unless
    /// `keep_dim`. A full reduction gives a rank-0 tensor (or `[1, .., 1]` with `keep_dim`).
    pub fn reduce(&self, op: ReduceOp, axis: Option<usize>, keep_dim: bool) -> Result<Tensor<B>> {
        let shape = self.reduced_shape(axis, keep_dim)?;
        let mut out = Tensor::uninit(&self.backend, shape)?;
        self.reduce_into(op, axis, &mut out)?;
        Ok(out)
    }

    /// Reduces along `axis` (or over everything) into `out`, whose element count must match.
    pub fn reduce_into(
        &self,
        op: ReduceOp,
        axis: Option<usize>,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let (outer, len, inner) = match axis {
            Some(a) => self.shape.split_at_axis(a, "reduce")?,
            None => (1, self.numel(), 1),
        };
        let expected = self.reduced_shape(axis, false)?;
        if expected.numel() != out.numel() {
            return Err(crate::Error::ShapeMismatch {
                op: "reduce_into",
                lhs: expected,
                rhs: out.shape.clone(),
            });
        }
        if len == 0 && !matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
            return Err(crate::Error::InvalidArgument {
                op: "reduce",
                reason: format!("{op:?} of an empty axis of {} is undefined", self.shape),
            });
        }
        self.backend.reduce(
            ReduceSpec {
                op,
                outer,
                len,
                inner,
            },
            &self.storage,
            &mut out.storage,
        )
    }

    fn reduced_shape(&self, axis: Option<usize>, keep_dim: bool) -> Result<Shape> {
        match axis {
            Some(a) => self.shape.reduced(a, keep_dim, "reduce"),
            None if keep_dim => Ok(Shape::new(vec![1; self.shape.rank()])),
            None => Ok(Shape::scalar()),
        }
    }

    /// Sum along `axis`, or of everything.
    pub fn sum(&self, axis: Option<usize>) -> Result<Tensor<B>> {
        self.reduce(ReduceOp::Sum, axis, false)
    }

    /// Mean along `axis`, or of everything (NaN over an empty axis, as in PyTorch).
    pub fn mean(&self, axis: Option<usize>) -> Result<Tensor<B>> {
        self.reduce(ReduceOp::Mean, axis, false)
    }

    /// Maximum along `axis`, or of everything.
    pub fn max(&self, axis: Option<usize>) -> Result<Tensor<B>> {
        self.reduce(ReduceOp::Max, axis, false)
    }

    /// Minimum along `axis`, or of everything.
    pub fn min(&self, axis: Option<usize>) -> Result<Tensor<B>> {
        self.reduce(ReduceOp::Min, axis, false)
    }

    /// Position of the maximum along `axis` (or in the flattened tensor), as f32.
    pub fn argmax(&self, axis: Option<usize>) -> Result<Tensor<B>> {
        self.reduce(ReduceOp::ArgMax, axis, false)
    }

    /// Position of the minimum along `axis` (or in the flattened tensor), as f32.
    pub fn argmin(&self, axis: Option<usize>) -> Result<Tensor<B>> {
        self.reduce(ReduceOp::ArgMin, axis, false)
    }
}
