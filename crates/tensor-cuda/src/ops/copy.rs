//! Copies that rearrange: a block of columns, the transpose, and row gathers.

use crate::backend::Inner;
use crate::error::{check_len, product};
use crate::kernels::{Arg, Cfg, K, MAX_GRID_YZ, u};
use crate::storage::{CudaIndex, CudaStorage};
use tensor_core::{Error, Result};

/// Side of the square tiles of the transpose kernel (`TILE` in copy.cu).
const TILE: usize = 32;
/// Rows of threads per transpose block (`TILE_ROWS` in copy.cu).
const TILE_ROWS: u32 = 8;

impl Inner {
    pub(crate) fn copy_block(
        &self,
        src: &CudaStorage,
        src_cols: usize,
        dst: &mut CudaStorage,
        dst_cols: usize,
        col_offset: usize,
        rows: usize,
    ) -> Result<()> {
        let n = product("copy_block", rows, src_cols)?;
        check_len("copy_block", "src", src.len, n)?;
        check_len(
            "copy_block",
            "dst",
            dst.len,
            product("copy_block", rows, dst_cols)?,
        )?;
        let end = col_offset.checked_add(src_cols).filter(|&e| e <= dst_cols);
        if end.is_none() {
            return Err(Error::OutOfBounds {
                op: "copy_block",
                index: col_offset.saturating_add(src_cols),
                len: dst_cols,
            });
        }
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "copy_block",
            K::CopyBlock,
            self.linear(n),
            &[
                Arg::Ptr(src.ptr()),
                u(src_cols),
                Arg::Ptr(dst.ptr()),
                u(dst_cols),
                u(col_offset),
                u(rows),
            ],
        )
    }

    pub(crate) fn transpose(
        &self,
        src: &CudaStorage,
        rows: usize,
        cols: usize,
        dst: &mut CudaStorage,
    ) -> Result<()> {
        let n = product("transpose", rows, cols)?;
        check_len("transpose", "src", src.len, n)?;
        check_len("transpose", "dst", dst.len, n)?;
        if n == 0 {
            return Ok(());
        }
        let tiles_c = cols.div_ceil(TILE).min(1 << 30) as u32;
        let tiles_r = (rows.div_ceil(TILE) as u64).min(MAX_GRID_YZ) as u32;
        self.launch(
            "transpose",
            K::Transpose,
            Cfg {
                grid: (tiles_c, tiles_r, 1),
                block: (TILE as u32, TILE_ROWS, 1),
            },
            &[Arg::Ptr(src.ptr()), u(rows), u(cols), Arg::Ptr(dst.ptr())],
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gather_rows(
        &self,
        src: &CudaStorage,
        src_rows: usize,
        cols: usize,
        index: &CudaIndex,
        start: usize,
        count: usize,
        dst: &mut CudaStorage,
    ) -> Result<()> {
        check_len(
            "gather_rows",
            "src",
            src.len,
            product("gather_rows", src_rows, cols)?,
        )?;
        let n = product("gather_rows", count, cols)?;
        check_len("gather_rows", "dst", dst.len, n)?;
        let end = start.checked_add(count).filter(|&e| e <= index.len);
        if end.is_none() {
            return Err(Error::OutOfBounds {
                op: "gather_rows",
                index: start.saturating_add(count),
                len: index.len,
            });
        }
        if let Some(bad) = index.first_out_of_range(start, count, src_rows) {
            return Err(Error::OutOfBounds {
                op: "gather_rows",
                index: bad as usize,
                len: src_rows,
            });
        }
        if n == 0 {
            return Ok(());
        }
        self.launch(
            "gather_rows",
            K::GatherRows,
            self.linear(n),
            &[
                Arg::Ptr(src.ptr()),
                u(src_rows),
                u(cols),
                Arg::Ptr(index.ptr()),
                u(start),
                u(count),
                Arg::Ptr(dst.ptr()),
            ],
        )
    }
}
