//! Writing blocks of rows or columns into a tensor, reducing and repeating groups of rows,
//! and dot products accumulated on the device.

use super::Tensor;
use crate::params::{BlockCopy, ReduceSpec, SliceCopy};
use crate::{Backend, Error, Gemm, ReduceOp, Result};

impl<B: Backend> Tensor<B> {
    /// Copies every row of `src` into rows `start..start + src.rows` of `self` (the inverse
    /// of [`slice_rows_into`](Self::slice_rows_into)); the other dimensions must agree.
    pub fn copy_rows_from(&mut self, start: usize, src: &Tensor<B>) -> Result<()> {
        let rows = self.shape.dim(0, "copy_rows_from")?;
        let count = src.shape.dim(0, "copy_rows_from")?;
        if self.dims()[1..] != src.dims()[1..] {
            return Err(Error::ShapeMismatch {
                op: "copy_rows_from",
                lhs: self.shape.clone(),
                rhs: src.shape.clone(),
            });
        }
        if start.saturating_add(count) > rows {
            return Err(Error::OutOfBounds {
                op: "copy_rows_from",
                index: start.saturating_add(count),
                len: rows,
            });
        }
        let row_len = self.numel().checked_div(rows).unwrap_or(0);
        if count * row_len == 0 {
            return Ok(());
        }
        let range = SliceCopy {
            src_offset: 0,
            dst_offset: start * row_len,
            len: count * row_len,
        };
        self.backend
            .copy_slice(range, &src.storage, &mut self.storage)
    }

    /// Copies every element of `src`, whatever its shape, into elements
    /// `offset..offset + src.numel()` of `self`, both read as flat arrays (many tensors laid
    /// end to end in one buffer, such as a step's gradients for one sum between processes).
    pub fn copy_flat_from(&mut self, offset: usize, src: &Tensor<B>) -> Result<()> {
        let len = src.numel();
        check_flat_range("copy_flat_from", offset, len, self.numel())?;
        if len == 0 {
            return Ok(());
        }
        let range = SliceCopy {
            src_offset: 0,
            dst_offset: offset,
            len,
        };
        self.backend
            .copy_slice(range, &src.storage, &mut self.storage)
    }

    /// Copies elements `offset..offset + dst.numel()` of `self` into every element of `dst`,
    /// both read as flat arrays: the inverse of [`copy_flat_from`](Self::copy_flat_from).
    pub fn copy_flat_into(&self, offset: usize, dst: &mut Tensor<B>) -> Result<()> {
        let len = dst.numel();
        check_flat_range("copy_flat_into", offset, len, self.numel())?;
        if len == 0 {
            return Ok(());
        }
        let range = SliceCopy {
            src_offset: offset,
            dst_offset: 0,
            len,
        };
        self.backend
            .copy_slice(range, &self.storage, &mut dst.storage)
    }

    /// Copies the matrix `src` (`[rows, k]`) into columns `col_offset..col_offset + k` of
    /// `self` (`[rows, n]`), leaving the other columns as they are.
    pub fn copy_columns_from(&mut self, col_offset: usize, src: &Tensor<B>) -> Result<()> {
        let (rows, cols) = self.shape.as_matrix("copy_columns_from")?;
        let (src_rows, src_cols) = src.shape.as_matrix("copy_columns_from")?;
        if src_rows != rows {
            return Err(Error::ShapeMismatch {
                op: "copy_columns_from",
                lhs: self.shape.clone(),
                rhs: src.shape.clone(),
            });
        }
        if col_offset.saturating_add(src_cols) > cols {
            return Err(Error::OutOfBounds {
                op: "copy_columns_from",
                index: col_offset.saturating_add(src_cols),
                len: cols,
            });
        }
        if rows == 0 || src_cols == 0 {
            return Ok(());
        }
        let block = BlockCopy {
            rows,
            src_cols,
            dst_cols: cols,
            col_offset,
        };
        self.backend
            .copy_block(block, &src.storage, &mut self.storage)
    }

    /// Reduces each group of `group` consecutive rows of `self` (`[groups * group, cols]`)
    /// to one row of `out` (`[groups, cols]`), e.g. the mean of the sub-samples of a pixel.
    pub fn reduce_row_groups_into(
        &self,
        op: ReduceOp,
        group: usize,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let (rows, cols) = self.shape.as_matrix("reduce_row_groups")?;
        if group == 0 || !rows.is_multiple_of(group) {
            return Err(Error::InvalidArgument {
                op: "reduce_row_groups",
                reason: format!("{} rows are not a whole number of groups of {group}", rows),
            });
        }
        let groups = rows / group;
        if out.dims() != [groups, cols] {
            return Err(Error::ShapeMismatch {
                op: "reduce_row_groups",
                lhs: self.shape.clone(),
                rhs: out.shape.clone(),
            });
        }
        if groups * cols == 0 {
            return Ok(());
        }
        self.backend.reduce(
            ReduceSpec {
                op,
                outer: groups,
                len: group,
                inner: cols,
            },
            &self.storage,
            &mut out.storage,
        )
    }

    /// Writes each row of `self` (`[groups, cols]`) `times` times in a row into `out`
    /// (`[groups * times, cols]`): the gradient of a group mean spreads this way (after a
    /// division by `times`).
    pub fn repeat_rows_into(&self, times: usize, out: &mut Tensor<B>) -> Result<()> {
        let (groups, cols) = self.shape.as_matrix("repeat_rows")?;
        if times == 0 {
            return Err(Error::InvalidArgument {
                op: "repeat_rows",
                reason: "rows must be repeated at least once".into(),
            });
        }
        if out.dims() != [groups.saturating_mul(times), cols] {
            return Err(Error::ShapeMismatch {
                op: "repeat_rows",
                lhs: self.shape.clone(),
                rhs: out.shape.clone(),
            });
        }
        if groups * cols == 0 {
            return Ok(());
        }
        // `out` seen as `[groups, times * cols]`: copy `self` into each block of columns.
        for k in 0..times {
            let block = BlockCopy {
                rows: groups,
                src_cols: cols,
                dst_cols: times * cols,
                col_offset: k * cols,
            };
            self.backend
                .copy_block(block, &self.storage, &mut out.storage)?;
        }
        Ok(())
    }

    /// `out = sum(self * other) + beta * out`: the dot product of two tensors with as many
    /// elements (read as flat vectors) into the one-element `out`, accumulated on the device
    /// when `beta` is 1 (with `beta` 0 the old value of `out` is ignored, NaN included).
    pub fn dot_into(&self, other: &Tensor<B>, out: &mut Tensor<B>, beta: f32) -> Result<()> {
        if self.numel() != other.numel() {
            return Err(Error::ShapeMismatch {
                op: "dot",
                lhs: self.shape.clone(),
                rhs: other.shape.clone(),
            });
        }
        if out.numel() != 1 {
            return Err(Error::ElementCount {
                op: "dot (output)",
                shape: out.shape.clone(),
                expected: 1,
                got: out.numel(),
            });
        }
        let spec = Gemm {
            m: 1,
            n: 1,
            k: self.numel(),
            trans_a: false,
            trans_b: false,
            alpha: 1.0,
            beta,
        };
        self.backend
            .gemm(spec, &self.storage, &other.storage, &mut out.storage)
    }
}

/// Refuses a flat range `offset..offset + len` past the `numel` elements of a tensor.
fn check_flat_range(op: &'static str, offset: usize, len: usize, numel: usize) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= numel => Ok(()),
        _ => Err(Error::OutOfBounds {
            op,
            index: offset.saturating_add(len),
            len: numel,
        }),
    }
}
