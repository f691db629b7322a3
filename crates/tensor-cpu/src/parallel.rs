//! When to split work over threads, and helpers that do it.

use rayon::prelude::*;

/// Element count above which element-wise work is spread over threads.
pub(crate) const PAR_THRESHOLD: usize = 1 << 15;
/// Elements per parallel task of a sum: fixed, so that partial sums, added in order, give
/// the same result whatever the number of threads.
pub(crate) const SUM_CHUNK: usize = 1 << 13;
/// Fewest elements per parallel task of element-wise work.
const MIN_CHUNK: usize = 1 << 13;
/// Most elements per parallel task of element-wise work (256 KiB of `f32`: long runs keep
/// the hardware prefetchers streaming, and few tasks keep rayon's overhead small).
const MAX_CHUNK: usize = 1 << 16;

/// Elements per parallel task for element-wise work on `len` elements: about four tasks per
/// thread, within [`MIN_CHUNK`, `MAX_CHUNK`], a multiple of 256. Element-wise results do not
/// depend on it.
pub(crate) fn chunk_len(len: usize) -> usize {
    let per_task = len.div_ceil(4 * rayon::current_num_threads());
    per_task.clamp(MIN_CHUNK, MAX_CHUNK).next_multiple_of(256)
}

/// Runs `f(chunk_start, chunk)` over `data` in chunks, in parallel when large.
pub(crate) fn for_chunks_mut<F>(data: &mut [f32], f: F)
where
    F: Fn(usize, &mut [f32]) + Send + Sync,
{
    if data.len() < PAR_THRESHOLD {
        f(0, data);
    } else {
        let chunk = chunk_len(data.len());
        data.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| f(i * chunk, c));
    }
}
