//! The default implementation of the hash-grid operations for backends that do not override
//! them: the buffers are copied to the host, computed there on one thread, and copied back.
//! It is slow (and moves data off the device); the CPU and CUDA backends override it.

use super::{Cell, FeatureLayout, HashGridSpec, LevelConsts};
use crate::params::{HashGridLookup, HashGridScatter};
use crate::{Backend, Result};

/// Calls `f(level, consts, point, cell)` for every level and every point, points in order
/// within each level.
fn for_each_cell(
    spec: &HashGridSpec,
    points: &[f32],
    mut f: impl FnMut(usize, &LevelConsts, usize, &Cell),
) {
    let d = spec.dims();
    for (l, level) in spec.levels().iter().enumerate() {
        let consts = LevelConsts::new(level);
        for (p, x) in points.chunks_exact(d).enumerate() {
            let cell = match d {
                1 => consts.cell::<1>(x),
                2 => consts.cell::<2>(x),
                _ => consts.cell::<3>(x),
            };
            f(l, &consts, p, &cell);
        }
    }
}

/// The forward pass on host slices (lengths already checked).
fn encode(
    spec: &HashGridSpec,
    layout: FeatureLayout,
    points: &[f32],
    tables: &[f32],
    out: &mut [f32],
) {
    let (f_count, corners) = (spec.features(), 1 << spec.dims());
    let (ps, cs) = layout.strides(points.len() / spec.dims(), spec.output_dim());
    for_each_cell(spec, points, |l, consts, p, cell| {
        for f in 0..f_count {
            let mut acc = 0.0f32;
            for c in 0..corners {
                let row = consts.offset + cell.entries[c] as usize;
                acc += cell.weights[c] * tables[row * f_count + f];
            }
            out[p * ps + (l * f_count + f) * cs] = acc;
        }
    });
}

/// The backward pass on host slices: adds into `grad_tables` (lengths already checked).
fn scatter(
    spec: &HashGridSpec,
    layout: FeatureLayout,
    points: &[f32],
    grad: &[f32],
    grad_tables: &mut [f32],
) {
    let (f_count, corners) = (spec.features(), 1 << spec.dims());
    let (ps, cs) = layout.strides(points.len() / spec.dims(), spec.output_dim());
    for_each_cell(spec, points, |l, consts, p, cell| {
        for c in 0..corners {
            let row = consts.offset + cell.entries[c] as usize;
            for f in 0..f_count {
                grad_tables[row * f_count + f] +=
                    cell.weights[c] * grad[p * ps + (l * f_count + f) * cs];
            }
        }
    });
}

/// The default [`HashGridForwardOp::hashgrid_forward`](crate::HashGridForwardOp::hashgrid_forward): copies
/// the buffers to the host, encodes there and uploads the features.
pub fn forward<B: Backend>(
    b: &B,
    p: HashGridLookup<'_, B::Storage>,
    out: &mut B::Storage,
) -> Result<()> {
    let HashGridLookup {
        spec,
        layout,
        points,
        n,
        tables,
    } = p;
    spec.check_forward(
        n,
        b.storage_len(points),
        b.storage_len(tables),
        b.storage_len(out),
    )?;
    let mut host = vec![0.0; n * spec.output_dim()];
    encode(
        spec,
        layout,
        &b.download(points)?,
        &b.download(tables)?,
        &mut host,
    );
    b.upload_into(&host, out)
}

/// The default [`HashGridBackwardOp::hashgrid_backward`](crate::HashGridBackwardOp::hashgrid_backward):
/// copies the buffers to the host, scatters there and uploads the table gradient.
pub fn backward<B: Backend>(
    b: &B,
    p: HashGridScatter<'_, B::Storage>,
    grad_tables: &mut B::Storage,
) -> Result<()> {
    let HashGridScatter {
        spec,
        layout,
        points,
        n,
        grad_features,
        accumulate,
    } = p;
    spec.check_backward(
        n,
        b.storage_len(points),
        b.storage_len(grad_features),
        b.storage_len(grad_tables),
    )?;
    let mut host = if accumulate {
        b.download(grad_tables)?
    } else {
        vec![0.0; spec.param_count()]
    };
    let (points, grad) = (b.download(points)?, b.download(grad_features)?);
    scatter(spec, layout, &points, &grad, &mut host);
    b.upload_into(&host, grad_tables)
}
