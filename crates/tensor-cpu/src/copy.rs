//! Copies: slices, column blocks, transposes and row gathers.

use crate::parallel::PAR_THRESHOLD;
use rayon::prelude::*;
use tensor_core::check::{buffer_len, elements, range};
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
    let src_end = range("copy_slice", src_offset, len, src.len())?;
    let dst_end = range("copy_slice", dst_offset, len, dst.len())?;
    let (src, dst) = (&src[src_offset..src_end], &mut dst[dst_offset..dst_end]);
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
    let op = "copy_block";
    buffer_len(op, "src", src.len(), elements(op, rows, src_cols)?)?;
    buffer_len(op, "dst", dst.len(), elements(op, rows, dst_cols)?)?;
    range(op, col_offset, src_cols, dst_cols)?;
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
    let n = elements("transpose", rows, cols)?;
    buffer_len("transpose", "src", src.len(), n)?;
    buffer_len("transpose", "dst", dst.len(), n)?;
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
    let op = "gather_rows";
    buffer_len(op, "src", src.len(), elements(op, src_rows, cols)?)?;
    buffer_len(op, "dst", dst.len(), elements(op, count, cols)?)?;
    let index = &index[start..range(op, start, count, index.len())?];
    if let Some(&bad) = index.iter().find(|&&i| i as usize >= src_rows) {
        return Err(Error::OutOfBounds {
            op,
            index: bad as usize,
            len: src_rows,
        });
    }
    if cols == 0 {
        return Ok(());
    }
    for (d, &i) in dst.chunks_exact_mut(cols).zip(index) {
        let i = i as usize;
        d.copy_from_slice(&src[i * cols..(i + 1) * cols]);
    }
    Ok(())
}
