//! Inference over inputs of any size in chunks of rows, so that intermediate buffers stay
//! bounded: the usual way to implement [`Model::predict`](crate::Model::predict).

use crate::Result;
use tensor_core::{Backend, Tensor};

/// Elements per intermediate buffer that chunked inference aims for (16 MiB of f32).
pub const PREDICT_BUDGET: usize = 1 << 22;

/// Rows per chunk such that a buffer `widest` columns wide holds about [`PREDICT_BUDGET`]
/// elements (at least one row).
pub fn chunk_rows_for(widest: usize) -> usize {
    (PREDICT_BUDGET / widest.max(1)).max(1)
}

/// Runs `infer(x_chunk, out_chunk)` over `x` (`[rows, input]`) in chunks of `chunk_rows`
/// rows and returns the `[rows, output]` result. `infer` sees matrices of at most
/// `chunk_rows` rows (fewer for the last chunk); input of at most `chunk_rows` rows is
/// passed whole, without a copy.
pub fn predict_in_chunks<B: Backend>(
    x: &Tensor<B>,
    output: usize,
    chunk_rows: usize,
    mut infer: impl FnMut(&Tensor<B>, &mut Tensor<B>) -> Result<()>,
) -> Result<Tensor<B>> {
    let (rows, input) = x.shape().as_matrix("predict")?;
    let backend = x.backend();
    let mut out = Tensor::uninit(backend, [rows, output])?;
    let chunk = chunk_rows.clamp(1, rows.max(1));
    if rows <= chunk {
        infer(x, &mut out)?;
        return Ok(out);
    }
    let mut x_chunk = Tensor::uninit(backend, [chunk, input])?;
    let mut out_chunk = Tensor::uninit(backend, [chunk, output])?;
    let mut start = 0;
    while start < rows {
        let count = chunk.min(rows - start);
        if count != x_chunk.dims()[0] {
            x_chunk = Tensor::uninit(backend, [count, input])?;
            out_chunk = Tensor::uninit(backend, [count, output])?;
        }
        x.slice_rows_into(start, &mut x_chunk)?;
        infer(&x_chunk, &mut out_chunk)?;
        out.copy_rows_from(start, &out_chunk)?;
        start += count;
    }
    Ok(out)
}
