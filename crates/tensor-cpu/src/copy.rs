//! Copies: slices, column blocks, transposes and row gathers.

use crate::backend::{check_equal, check_len};
use crate::parallel::PAR_THRESHOLD;
use rayon::prelude::*;
use tensor_core::{Error, Result};

/// Elements per parallel task of a large copy (256 KiB: long enough for the hardware
/// prefetcher to run at full speed).
const COPY_CHUNK: usize = 1 << 16;

pub(crate) fn copy_slice(
    src: &[f32],
    src_offset: usize,
    dst: &mut [f32],
    dst_offset: usize,
    len: usize,
) -> Result<()> {
    check_len("copy_slice", src.len(), src_offset + len)?;
    check_len("copy_slice", dst.len(), dst_offset + len)?;
    let (src, dst) = (
        &src[src_offset..src_offset + len],
        &mut dst[dst_offset..dst_offset + len],
    );
    if len < PAR_THRESHOLD {
        dst.copy_from_slice(src);
    } else {
        dst.par_chunks_mut(COPY_CHUNK)
            .zip(src.par_chunks(COPY_CHUNK))
            .for_each(|(d, s)| d.copy_from_slice(s));
    }
    Ok(())
}

pub(crate) fn copy_block(
    src: &[f32],
    src_cols: usize,
    dst: &mut [f32],
    dst_cols: usize,
    col_offset: usize,
    rows: usize,
) -> Result<()> {
    check_len("copy_block", src.len(), rows * src_cols)?;
    check_len("copy_block", dst.len(), rows * dst_cols)?;
    check_len("copy_block", dst_cols, col_offset + src_cols)?;
    if src_cols == 0 {
        return Ok(());
    }
    for (s, d) in src
        .chunks_exact(src_cols)
        .zip(dst.chunks_exact_mut(dst_cols))
        .take(rows)
    {
        d[col_offset..col_offset + src_cols].copy_from_slice(s);
    }
    Ok(())
}

pub(crate) fn transpose(src: &[f32], rows: usize, cols: usize, dst: &mut [f32]) -> Result<()> {
    check_equal("transpose", src.len(), rows * cols)?;
    check_equal("transpose", dst.len(), rows * cols)?;
    const TILE: usize = 32;
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                for c in c0..(c0 + TILE).min(cols) {
                    dst[c * rows + r] = src[r * cols + c];
                }
            }
        }
    }
    Ok(())
}

pub(crate) fn gather_rows(
    src: &[f32],
    src_rows: usize,
    cols: usize,
    index: &[u32],
    start: usize,
    count: usize,
    dst: &mut [f32],
) -> Result<()> {
    check_len("gather_rows", src.len(), src_rows * cols)?;
    check_len("gather_rows", index.len(), start + count)?;
    check_len("gather_rows", dst.len(), count * cols)?;
    if cols == 0 {
        return Ok(());
    }
    for (d, &i) in dst.chunks_exact_mut(cols).zip(&index[start..start + count]) {
        let i = i as usize;
        if i >= src_rows {
            return Err(Error::OutOfBounds {
                op: "gather_rows",
                index: i,
                len: src_rows,
            });
        }
        d.copy_from_slice(&src[i * cols..(i + 1) * cols]);
    }
    Ok(())
}
