//! The multiresolution hash-grid encoding on the CPU.
//!
//! - **Forward**: points are cut into fixed chunks spread over threads; within a chunk the
//!   loop runs level by level, so one level's constants stay in registers and its table in
//!   cache while the chunk's points look it up.
//! - **Backward**: each level's table gradient is owned by one task, which adds the
//!   contributions of every point in point order. No two tasks write the same entry and no
//!   sum depends on how levels are spread over threads, so the result is bit-identical for
//!   any thread count, without atomics.
//!
//! Both are monomorphised over the dimension `D` and the features per level `F`; the
//! per-level constants live on the stack, so a call allocates nothing.

use rayon::prelude::*;
use tensor_core::hashgrid::{LevelConsts, MAX_LEVELS};
use tensor_core::{HashGridSpec, Result};

/// Points per parallel task of the forward pass.
const CHUNK_POINTS: usize = 512;
/// Point-level lookups below which a call stays on the calling thread.
const PAR_LOOKUPS: usize = 1 << 14;

/// The constants of every level, on the stack, and the level count.
fn level_consts(spec: &HashGridSpec) -> ([LevelConsts; MAX_LEVELS], usize) {
    let mut consts = [LevelConsts::default(); MAX_LEVELS];
    for (c, level) in consts.iter_mut().zip(spec.levels()) {
        *c = LevelConsts::new(level);
    }
    (consts, spec.levels().len())
}

/// Calls `$run::<D, F>($args)` for the spec's dimension and feature count.
macro_rules! dispatch {
    ($spec:expr, $run:ident ( $($arg:expr),* )) => {
        match $spec.dims() {
            1 => dispatch!(@f 1, $spec, $run($($arg),*)),
            2 => dispatch!(@f 2, $spec, $run($($arg),*)),
            _ => dispatch!(@f 3, $spec, $run($($arg),*)),
        }
    };
    (@f $d:literal, $spec:expr, $run:ident ( $($arg:expr),* )) => {
        match $spec.features() {
            1 => $run::<$d, 1>($($arg),*),
            2 => $run::<$d, 2>($($arg),*),
            3 => $run::<$d, 3>($($arg),*),
            4 => $run::<$d, 4>($($arg),*),
            5 => $run::<$d, 5>($($arg),*),
            6 => $run::<$d, 6>($($arg),*),
            7 => $run::<$d, 7>($($arg),*),
            _ => $run::<$d, 8>($($arg),*),
        }
    };
}

/// `out` (`n x L*F`) = the encoding of `points` (`n x d`) with `tables`.
pub(crate) fn forward(
    spec: &HashGridSpec,
    points: &[f32],
    n: usize,
    tables: &[f32],
    out: &mut [f32],
) -> Result<()> {
    spec.check_buffers("hashgrid_forward", n, points.len(), tables.len(), out.len())?;
    if n == 0 {
        return Ok(());
    }
    let (consts, levels) = level_consts(spec);
    dispatch!(spec, forward_dims(&consts[..levels], points, tables, out));
    Ok(())
}

fn forward_dims<const D: usize, const F: usize>(
    consts: &[LevelConsts],
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
) {
    let width = consts.len() * F;
    let chunk = |(points, out): (&[f32], &mut [f32])| {
        for (l, c) in consts.iter().enumerate() {
            for (x, row) in points.chunks_exact(D).zip(out.chunks_exact_mut(width)) {
                let cell = c.cell::<D>(x);
                let mut acc = [0.0f32; F];
                for k in 0..1 << D {
                    let at = (c.offset + cell.entries[k] as usize) * F;
                    let t: &[f32; F] = tables[at..at + F].try_into().unwrap_or(&[0.0; F]);
                    let w = cell.weights[k];
                    for f in 0..F {
                        acc[f] += w * t[f];
                    }
                }
                row[l * F..(l + 1) * F].copy_from_slice(&acc);
            }
        }
    };
    let n = points.len() / D;
    if n * consts.len() < PAR_LOOKUPS {
        chunk((points, out));
    } else {
        points
            .par_chunks(CHUNK_POINTS * D)
            .zip(out.par_chunks_mut(CHUNK_POINTS * width))
            .for_each(chunk);
    }
}

/// `grad_tables` (+)= the scatter of `grad` (`n x L*F`) at `points` into the tables.
pub(crate) fn backward(
    spec: &HashGridSpec,
    points: &[f32],
    n: usize,
    grad: &[f32],
    grad_tables: &mut [f32],
    accumulate: bool,
) -> Result<()> {
    spec.check_buffers(
        "hashgrid_backward",
        n,
        points.len(),
        grad_tables.len(),
        grad.len(),
    )?;
    let (consts, levels) = level_consts(spec);
    // Each level's part of the gradient, split off on the stack.
    let mut parts: [&mut [f32]; MAX_LEVELS] = std::array::from_fn(|_| Default::default());
    let mut rest = grad_tables;
    for (part, level) in parts.iter_mut().zip(spec.levels()) {
        let (mine, tail) = rest.split_at_mut(level.table_size as usize * spec.features());
        *part = mine;
        rest = tail;
    }
    let parts = &mut parts[..levels];
    let consts = &consts[..levels];
    if n * levels < PAR_LOOKUPS {
        for (l, part) in parts.iter_mut().enumerate() {
            dispatch!(
                spec,
                backward_level(l, consts, points, grad, part, accumulate)
            );
        }
    } else {
        parts.par_iter_mut().enumerate().for_each(|(l, part)| {
            dispatch!(
                spec,
                backward_level(l, consts, points, grad, part, accumulate)
            );
        });
    }
    Ok(())
}

/// Level `l`'s part of the backward pass: every point's contribution, in point order.
fn backward_level<const D: usize, const F: usize>(
    l: usize,
    consts: &[LevelConsts],
    points: &[f32],
    grad: &[f32],
    part: &mut [f32],
    accumulate: bool,
) {
    if !accumulate {
        part.fill(0.0);
    }
    let c = &consts[l];
    let width = consts.len() * F;
    for (x, g) in points.chunks_exact(D).zip(grad.chunks_exact(width)) {
        let cell = c.cell::<D>(x);
        let g: &[f32; F] = g[l * F..(l + 1) * F].try_into().unwrap_or(&[0.0; F]);
        for k in 0..1 << D {
            let at = cell.entries[k] as usize * F;
            let w = cell.weights[k];
            if let Some(dst) = part.get_mut(at..at + F) {
                for f in 0..F {
                    dst[f] += w * g[f];
                }
            }
        }
    }
}
