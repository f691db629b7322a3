//! The multiresolution hash-grid encoding on the CPU.
//!
//! - **Forward**: in the feature-major layout each level is one task, which looks up every
//!   point in that level's table, so the table (a few MB at most) stays in cache for the
//!   whole pass and the level's outputs are written as contiguous rows. In the point-major
//!   layout, chunks of points own their output rows and run level by level.
//! - **Backward**: each level's table gradient is owned by one task, which adds the
//!   contributions of every point in point order. No two tasks write the same entry and no
//!   sum depends on how levels are spread over threads, so the result is bit-identical for
//!   any thread count, without atomics.
//!
//! Both are monomorphised over the dimension `D` and the features per level `F`; the
//! per-level constants live on the stack, so a call allocates nothing.

mod blocks;
mod lanes;
#[cfg(test)]
mod tests;

use crate::simd::SimdPath;
use rayon::prelude::*;
use tensor_core::hashgrid::{Cell, LevelConsts, MAX_LEVELS};
use tensor_core::{FeatureLayout, HashGridSpec, Result};

/// Points per parallel task of the point-major forward pass.
const CHUNK_POINTS: usize = 4096;
/// Point-level lookups below which a call stays on the calling thread.
const PAR_LOOKUPS: usize = 1 << 14;

/// Points whose cells are computed, and their table rows prefetched, ahead of their use.
const AHEAD: usize = 8;

/// Asks the CPU to bring the cache line of `table[at]` closer: a hint, which never faults
/// (the address is not dereferenced).
#[inline(always)]
fn prefetch(table: *const f32, at: usize) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    // SAFETY: a prefetch reads nothing and cannot fault, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(table.wrapping_add(at).cast());
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: a prefetch reads nothing and cannot fault, whatever the address.
    unsafe {
        std::arch::asm!(
            "prfm pldl1keep, [{p}]",
            p = in(reg) table.wrapping_add(at),
            options(nostack, readonly, preserves_flags)
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = (table, at);
}

/// Calls `f(p, cell)` for every point `p` of `points` in order, the cell of point `p + AHEAD`
/// being computed and its corners' rows of the table at `table` (`F` values per entry, from
/// element `base`) prefetched meanwhile: table lookups are the bottleneck, and this keeps several
/// in flight.
#[inline(always)]
fn for_each_cell<const D: usize, const F: usize>(
    c: &LevelConsts,
    points: &[f32],
    table: *const f32,
    base: usize,
    mut f: impl FnMut(usize, &Cell),
) {
    let look = |x: &[f32]| {
        let cell = c.cell::<D>(x);
        for k in 0..1 << D {
            prefetch(table, base + cell.entries[k] as usize * F);
        }
        cell
    };
    let mut ring = [Cell {
        entries: [0; 8],
        weights: [0.0; 8],
    }; AHEAD];
    for (slot, x) in ring.iter_mut().zip(points.chunks_exact(D)) {
        *slot = look(x);
    }
    let ahead = points
        .chunks_exact(D)
        .skip(AHEAD)
        .map(Some)
        .chain(std::iter::repeat(None));
    for (p, next) in (0..points.len() / D).zip(ahead) {
        let cell = ring[p % AHEAD];
        if let Some(x) = next {
            ring[p % AHEAD] = look(x);
        }
        f(p, &cell);
    }
}

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

/// `out` = the features of `points` (`n x d`) with `tables`, in `layout`.
pub(crate) fn forward(
    spec: &HashGridSpec,
    layout: FeatureLayout,
    points: &[f32],
    n: usize,
    tables: &[f32],
    out: &mut [f32],
) -> Result<()> {
    spec.check_forward(n, points.len(), tables.len(), out.len())?;
    if n == 0 {
        return Ok(());
    }
    let (consts, levels) = level_consts(spec);
    let consts = &consts[..levels];
    dispatch!(spec, forward_dims(consts, layout, points, tables, out));
    Ok(())
}

fn forward_dims<const D: usize, const F: usize>(
    consts: &[LevelConsts],
    layout: FeatureLayout,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
) {
    let n = points.len() / D;
    let width = consts.len() * F;
    let parallel = n * consts.len() >= PAR_LOOKUPS;
    match layout {
        FeatureLayout::FeatureMajor => {
            // Level `l` owns the `F` rows `l * F..(l + 1) * F`, one contiguous slab.
            let level = |(l, slab): (usize, &mut [f32])| {
                encode_level::<D, F>(&consts[l], points, tables, slab, 1, n);
            };
            if parallel {
                out.par_chunks_mut(F * n).enumerate().for_each(level);
            } else {
                out.chunks_mut(F * n).enumerate().for_each(level);
            }
        }
        FeatureLayout::PointMajor => {
            let chunk = |(points, rows): (&[f32], &mut [f32])| {
                for (l, c) in consts.iter().enumerate() {
                    encode_level::<D, F>(c, points, tables, &mut rows[l * F..], width, 1);
                }
            };
            if parallel {
                points
                    .par_chunks(CHUNK_POINTS * D)
                    .zip(out.par_chunks_mut(CHUNK_POINTS * width))
                    .for_each(chunk);
            } else {
                chunk((points, out));
            }
        }
    }
}

/// One level's features of `points`: feature `f` of point `p` goes to
/// `out[p * point_step + f * feature_step]`.
fn encode_level<const D: usize, const F: usize>(
    c: &LevelConsts,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
    point_step: usize,
    feature_step: usize,
) {
    let path = crate::simd::active();
    encode_level_on::<D, F>(path, c, points, tables, out, point_step, feature_step)
}

/// [`encode_level`] on `path` (the scalar path where the CPU lacks it): an even number of
/// features in the feature-major layout run 8 points at a time on the vector paths, the
/// rest one at a time.
fn encode_level_on<const D: usize, const F: usize>(
    path: SimdPath,
    c: &LevelConsts,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
    point_step: usize,
    feature_step: usize,
) {
    let done = if F.is_multiple_of(2) && point_step == 1 {
        blocks::encode_pairs_on::<D, F>(path, c, points, tables, out, feature_step)
    } else {
        0
    };
    let (points, out) = (&points[done * D..], &mut out[done * point_step..]);
    encode_level_scalar::<D, F>(c, points, tables, out, point_step, feature_step)
}

/// [`encode_level`], one point at a time.
fn encode_level_scalar<const D: usize, const F: usize>(
    c: &LevelConsts,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
    point_step: usize,
    feature_step: usize,
) {
    for_each_cell::<D, F>(c, points, tables.as_ptr(), c.offset * F, |p, cell| {
        let mut acc = [0.0f32; F];
        for k in 0..1 << D {
            let at = (c.offset + cell.entries[k] as usize) * F;
            let t: &[f32; F] = tables[at..at + F].try_into().unwrap_or(&[0.0; F]);
            let w = cell.weights[k];
            for f in 0..F {
                acc[f] += w * t[f];
            }
        }
        for (f, v) in acc.into_iter().enumerate() {
            out[p * point_step + f * feature_step] = v;
        }
    });
}

/// `grad_tables` (+)= the scatter of `grad` (in `layout`) at `points` into the tables.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward(
    spec: &HashGridSpec,
    layout: FeatureLayout,
    points: &[f32],
    n: usize,
    grad: &[f32],
    grad_tables: &mut [f32],
    accumulate: bool,
) -> Result<()> {
    spec.check_backward(n, points.len(), grad.len(), grad_tables.len())?;
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
    let steps = layout.strides(n, spec.output_dim());
    let level = |(l, part): (usize, &mut &mut [f32])| {
        if !accumulate {
            part.fill(0.0);
        }
        dispatch!(
            spec,
            scatter_level(l, &consts[l], points, grad, steps, part)
        );
    };
    if n * levels < PAR_LOOKUPS {
        parts.iter_mut().enumerate().for_each(level);
    } else {
        parts.par_iter_mut().enumerate().for_each(level);
    }
    Ok(())
}

/// Level `l`'s part of the backward pass: every point's contribution, in point order.
/// Feature `f` of level `l` of point `p` is at `grad[p * steps.0 + (l * F + f) * steps.1]`.
fn scatter_level<const D: usize, const F: usize>(
    l: usize,
    c: &LevelConsts,
    points: &[f32],
    grad: &[f32],
    steps: (usize, usize),
    part: &mut [f32],
) {
    let path = crate::simd::active();
    scatter_level_on::<D, F>(path, l, c, points, grad, steps, part)
}

/// [`scatter_level`] on `path` (the scalar path where the CPU lacks it).
fn scatter_level_on<const D: usize, const F: usize>(
    path: SimdPath,
    l: usize,
    c: &LevelConsts,
    points: &[f32],
    grad: &[f32],
    (point_step, feature_step): (usize, usize),
    part: &mut [f32],
) {
    let at = blocks::GradAt {
        grad,
        base: l * F * feature_step,
        point_step,
        feature_step,
    };
    let done = blocks::scatter_blocks_on::<D, F>(path, c, points, at, part);
    let table = part.as_ptr();
    let points = &points[done * D..];
    let base = at.base + done * point_step;
    for_each_cell::<D, F>(c, points, table, 0, |p, cell| {
        let g = point_grad::<F>(grad, base + p * point_step, feature_step);
        add_point::<D, F>(cell.entries, cell.weights, g, part);
    });
}

/// The `F` gradient values of a point and level, from `grad[at + f * feature_step]`.
#[inline(always)]
fn point_grad<const F: usize>(grad: &[f32], at: usize, feature_step: usize) -> [f32; F] {
    std::array::from_fn(|f| grad[at + f * feature_step])
}

/// Adds one point's contribution `weights[k] * g` to the entries of its `2^D` corners.
#[inline(always)]
fn add_point<const D: usize, const F: usize>(
    entries: [u32; 8],
    weights: [f32; 8],
    g: [f32; F],
    part: &mut [f32],
) {
    for k in 0..1 << D {
        add_corner(entries[k], weights[k], g, part);
    }
}

/// Adds `weight * g` to table entry `entry` (nothing when it lies outside `part`).
#[inline(always)]
fn add_corner<const F: usize>(entry: u32, weight: f32, g: [f32; F], part: &mut [f32]) {
    let at = entry as usize * F;
    if let Some(dst) = part.get_mut(at..at + F) {
        for f in 0..F {
            dst[f] += weight * g[f];
        }
    }
}
