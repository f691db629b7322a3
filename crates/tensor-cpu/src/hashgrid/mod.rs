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

#[cfg(target_arch = "x86_64")]
mod simd;

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
    #[cfg(not(target_arch = "x86_64"))]
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
    #[cfg(target_arch = "x86_64")]
    if F == 2 && point_step == 1 && simd::available() {
        // SAFETY: the CPU has AVX2 and FMA; the spec was checked against the buffers.
        let done = unsafe { encode_pairs::<D>(c, points, tables, out, feature_step) };
        let (points, out) = (&points[done * D..], &mut out[done..]);
        return encode_level_scalar::<D, F>(c, points, tables, out, point_step, feature_step);
    }
    encode_level_scalar::<D, F>(c, points, tables, out, point_step, feature_step)
}

/// [`encode_level`] for two features in the feature-major layout, 8 points at a time;
/// returns how many points it encoded (all but the last `n % 8`).
///
/// # Safety
/// The CPU must have AVX2 and FMA; `tables` must hold the level and `out` its two rows of
/// `feature_step` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn encode_pairs<const D: usize>(
    c: &LevelConsts,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
    feature_step: usize,
) -> usize {
    let blocks = points.len() / D / simd::LANES;
    let mut block = simd::Block::new();
    let lanes = simd::LANES;
    assert!(tables.len() >= 2 * (c.offset + 1) && out.len() >= feature_step + blocks * lanes);
    for b in 0..blocks {
        // SAFETY: block b's 8 points lie inside `points`; the output rows were checked.
        unsafe {
            simd::cells::<D>(c, points.as_ptr().add(b * lanes * D), &mut block);
            let out = out.as_mut_ptr().add(b * lanes);
            simd::interpolate_pairs::<D>(c, &block, tables.as_ptr(), out, feature_step);
        }
    }
    blocks * lanes
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
    (point_step, feature_step): (usize, usize),
    part: &mut [f32],
) {
    let base = l * F * feature_step;
    #[cfg(target_arch = "x86_64")]
    let done = if simd::available() {
        // SAFETY: the path that runs has AVX2 and FMA.
        unsafe { scatter_blocks::<D, F>(c, points, grad, base, point_step, feature_step, part) }
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    let table = part.as_ptr();
    let points = &points[done * D..];
    let base = base + done * point_step;
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

/// [`add_point`] for two features on a level indexed directly, where corners `2j` and
/// `2j + 1` differ along the first axis only and so are neighbouring entries: each pair of
/// corners is one 4-lane update, the same multiplications and additions as the scalar
/// path's (a pair that is not adjacent, which only clamped entries could give, takes the
/// scalar path).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn add_point_pairs<const D: usize>(
    entries: [u32; 8],
    weights: [f32; 8],
    g: [f32; 2],
    part: &mut [f32],
) {
    use std::arch::x86_64::*;
    let gg = _mm_setr_ps(g[0], g[1], g[0], g[1]);
    for j in 0..1 << (D - 1) {
        let (k0, k1) = (2 * j, 2 * j + 1);
        let at = entries[k0] as usize * 2;
        if entries[k1] == entries[k0].wrapping_add(1) && at + 4 <= part.len() {
            let (w0, w1) = (weights[k0], weights[k1]);
            let w = _mm_setr_ps(w0, w0, w1, w1);
            // SAFETY: values at..at + 4 lie inside `part` (checked above).
            unsafe {
                let dst = part.as_mut_ptr().add(at);
                _mm_storeu_ps(dst, _mm_add_ps(_mm_loadu_ps(dst), _mm_mul_ps(w, gg)));
            }
        } else {
            add_corner(entries[k0], weights[k0], g, part);
            add_corner(entries[k1], weights[k1], g, part);
        }
    }
}

/// [`scatter_level`] with the cells computed 8 points at a time (the next block's corners
/// prefetched while this block's are updated, in point order); returns how many points it
/// handled (all but the last `n % 8`).
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn scatter_blocks<const D: usize, const F: usize>(
    c: &LevelConsts,
    points: &[f32],
    grad: &[f32],
    base: usize,
    point_step: usize,
    feature_step: usize,
    part: &mut [f32],
) -> usize {
    let lanes = simd::LANES;
    let blocks = points.len() / D / lanes;
    let (mut now, mut next) = (simd::Block::new(), simd::Block::new());
    let block_at = |b: usize| points[b * lanes * D..(b + 1) * lanes * D].as_ptr();
    if blocks > 0 {
        // SAFETY: block 0's 8 points lie inside `points`.
        unsafe { simd::cells::<D>(c, block_at(0), &mut now) };
    }
    for b in 0..blocks {
        if b + 1 < blocks {
            // SAFETY: block b + 1's 8 points lie inside `points`.
            unsafe { simd::cells::<D>(c, block_at(b + 1), &mut next) };
            for corner in &next.entries[..1 << D] {
                for &e in corner {
                    prefetch(part.as_ptr(), e as usize * F);
                }
            }
        }
        for p in 0..lanes {
            let at = base + (b * lanes + p) * point_step;
            let g = point_grad::<F>(grad, at, feature_step);
            let entries = std::array::from_fn(|k| now.entries[k][p]);
            let weights = std::array::from_fn(|k| now.weights[k][p]);
            if F == 2 && !c.hashed {
                // SAFETY: the CPU has AVX2 (this function's contract).
                unsafe { add_point_pairs::<D>(entries, weights, [g[0], g[F - 1]], part) };
            } else {
                add_point::<D, F>(entries, weights, g, part);
            }
        }
        std::mem::swap(&mut now, &mut next);
    }
    blocks * lanes
}
