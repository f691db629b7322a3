//! When to split work over threads, and helpers that do it.

use rayon::prelude::*;

/// Element count above which element-wise work is spread over threads.
pub(crate) const PAR_THRESHOLD: usize = 1 << 15;
/// Elements per parallel task.
pub(crate) const CHUNK: usize = 1 << 13;

/// Runs `f(chunk_start, chunk)` over `data` in chunks, in parallel when large.
pub(crate) fn for_chunks_mut<F>(data: &mut [f32], f: F)
where
    F: Fn(usize, &mut [f32]) + Send + Sync,
{
    if data.len() < PAR_THRESHOLD {
        f(0, data);
    } else {
        data.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(i, c)| f(i * CHUNK, c));
    }
}
