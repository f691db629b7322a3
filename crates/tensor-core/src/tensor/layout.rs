//! Reshaping, row slicing, gathers and concatenation.

use super::Tensor;
use crate::params::{BlockCopy, GatherSpec, SliceCopy};
use crate::{Backend, Error, Result, Shape};

impl<B: Backend> Tensor<B> {
    /// The same data under another shape with as many elements (no copy).
    pub fn reshape(self, shape: impl Into<Shape>) -> Result<Tensor<B>> {
        let shape = shape.into();
        if shape.numel() != self.numel() {
            return Err(Error::ShapeMismatch {
                op: "reshape",
                lhs: self.shape,
                rhs: shape,
            });
        }
        Ok(Tensor { shape, ..self })
    }

    /// Rows `start..start + count` (along the first axis), copied into a new tensor.
    pub fn slice_rows(&self, start: usize, count: usize) -> Result<Tensor<B>> {
        let mut dims = self.dims().to_vec();
        if dims.is_empty() {
            return Err(Error::Rank {
                op: "slice_rows",
                expected: 1,
                shape: self.shape.clone(),
            });
        }
        dims[0] = count;
        let mut out = Tensor::uninit(&self.backend, dims)?;
        self.slice_rows_into(start, &mut out)?;
        Ok(out)
    }

    /// Rows `start..start + out.rows` copied into `out`.
    pub fn slice_rows_into(&self, start: usize, out: &mut Tensor<B>) -> Result<()> {
        let rows = self.shape.dim(0, "slice_rows")?;
        let count = out.shape.dim(0, "slice_rows")?;
        if self.dims()[1..] != out.dims()[1..] {
            return Err(Error::ShapeMismatch {
                op: "slice_rows",
                lhs: self.shape.clone(),
                rhs: out.shape.clone(),
            });
        }
        // `saturating_add`: a huge `start` must give an error, not an overflow panic.
        if start.saturating_add(count) > rows {
            return Err(Error::OutOfBounds {
                op: "slice_rows",
                index: start.saturating_add(count),
                len: rows,
            });
        }
        let row_len = self.numel().checked_div(rows).unwrap_or(0);
        let range = SliceCopy {
            src_offset: start * row_len,
            dst_offset: 0,
            len: count * row_len,
        };
        self.backend
            .copy_slice(range, &self.storage, &mut out.storage)
    }

    /// Rows picked by `index[start..start + count]` from a rank-2 tensor.
    pub fn gather_rows(&self, index: &B::Index, start: usize, count: usize) -> Result<Tensor<B>> {
        let (_, cols) = self.shape.as_matrix("gather_rows")?;
        let mut out = Tensor::uninit(&self.backend, [count, cols])?;
        self.gather_rows_into(index, start, &mut out)?;
        Ok(out)
    }

    /// Rows picked by `index[start..start + out.rows]` written into `out`.
    pub fn gather_rows_into(
        &self,
        index: &B::Index,
        start: usize,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let (rows, cols) = self.shape.as_matrix("gather_rows")?;
        let (count, out_cols) = out.shape.as_matrix("gather_rows")?;
        if cols != out_cols {
            return Err(Error::ShapeMismatch {
                op: "gather_rows",
                lhs: self.shape.clone(),
                rhs: out.shape.clone(),
            });
        }
        let len = self.backend.index_len(index);
        if start.saturating_add(count) > len {
            return Err(Error::OutOfBounds {
                op: "gather_rows",
                index: start.saturating_add(count),
                len,
            });
        }
        let spec = GatherSpec {
            src_rows: rows,
            cols,
            start,
            count,
        };
        self.backend
            .gather_rows(spec, &self.storage, index, &mut out.storage)
    }

    /// Joins tensors along `axis`; every other dimension must agree.
    pub fn concat(tensors: &[&Tensor<B>], axis: usize) -> Result<Tensor<B>> {
        let first = tensors.first().ok_or_else(|| Error::InvalidArgument {
            op: "concat",
            reason: "no tensors to join".into(),
        })?;
        let rank = first.shape.rank();
        first.shape.dim(axis, "concat")?;
        let mut total = 0;
        for t in tensors {
            let same_rest = t.shape.rank() == rank
                && (0..rank).all(|i| i == axis || t.dims()[i] == first.dims()[i]);
            if !same_rest {
                return Err(Error::ShapeMismatch {
                    op: "concat",
                    lhs: first.shape.clone(),
                    rhs: t.shape.clone(),
                });
            }
            total += t.dims()[axis];
        }
        let mut dims = first.dims().to_vec();
        dims[axis] = total;
        let out_shape = Shape::new(dims);
        let (outer, _, inner) = out_shape.split_at_axis(axis, "concat")?;
        let mut out = Tensor::uninit(&first.backend, out_shape)?;
        let dst_cols = total * inner;
        let mut offset = 0;
        for t in tensors {
            let cols = t.dims()[axis] * inner;
            if cols > 0 && outer > 0 {
                let block = BlockCopy {
                    rows: outer,
                    src_cols: cols,
                    dst_cols,
                    col_offset: offset,
                };
                first
                    .backend
                    .copy_block(block, &t.storage, &mut out.storage)?;
            }
            offset += cols;
        }
        Ok(out)
    }
}
