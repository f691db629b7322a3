//! The hash-grid encoding (`kernels/hashgrid.cu`): one thread per point and level, the
//! level constants passed by value, the backward pass adding with atomics.

use crate::backend::Inner;
use crate::kernels::{Arg, BLOCK, Cfg, K, u};
use crate::storage::CudaStorage;
use tensor_core::hashgrid::{LevelConsts, MAX_LEVELS};
use tensor_core::{FeatureLayout, HashGridSpec, Result};

/// The per-level constants passed by value to the kernels (`HashGridParams` in
/// hashgrid.cu: the same fields in the same order).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HashGridParams {
    pub offset: [u64; MAX_LEVELS],
    pub scale: [f32; MAX_LEVELS],
    pub last_cell: [u32; MAX_LEVELS],
    pub side: [u32; MAX_LEVELS],
    pub mask: [u32; MAX_LEVELS],
    pub hashed: u32,
    pub levels: u32,
    pub dims: u32,
    pub features: u32,
}

impl HashGridParams {
    /// The constants of `spec`, from the same [`LevelConsts`] the CPU uses.
    pub(crate) fn new(spec: &HashGridSpec) -> Self {
        let mut p = HashGridParams {
            offset: [0; MAX_LEVELS],
            scale: [0.0; MAX_LEVELS],
            last_cell: [0; MAX_LEVELS],
            side: [0; MAX_LEVELS],
            mask: [0; MAX_LEVELS],
            hashed: 0,
            levels: spec.levels().len() as u32,
            dims: spec.dims() as u32,
            features: spec.features() as u32,
        };
        for (l, level) in spec.levels().iter().enumerate() {
            let c = LevelConsts::new(level);
            p.offset[l] = c.offset as u64;
            p.scale[l] = c.scale;
            p.last_cell[l] = c.last_cell;
            p.side[l] = c.strides[1];
            p.mask[l] = c.mask;
            p.hashed |= u32::from(c.hashed) << l;
        }
        p
    }
}

impl Inner {
    /// A launch over `n` points (x) and every level (y), with about as many blocks in all as
    /// a one-dimensional launch over `n * levels` items.
    fn hashgrid_cfg(&self, n: usize, levels: usize) -> Cfg {
        let cap = (u64::from(self.info.sm_count) * 8).div_ceil(levels as u64);
        let blocks = (n as u64).div_ceil(u64::from(BLOCK)).clamp(1, cap.max(1));
        Cfg {
            grid: (blocks as u32, levels as u32, 1),
            block: (BLOCK, 1, 1),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn hashgrid_launch(
        &self,
        op: &'static str,
        k: K,
        spec: &HashGridSpec,
        layout: FeatureLayout,
        points: &CudaStorage,
        n: usize,
        source: &CudaStorage,
        dst: &mut CudaStorage,
    ) -> Result<()> {
        let params = HashGridParams::new(spec);
        let (point_step, feature_step) = layout.strides(n, spec.output_dim());
        self.launch(
            op,
            k,
            self.hashgrid_cfg(n, spec.levels().len()),
            &[
                Arg::Ptr(points.ptr()),
                Arg::Ptr(source.ptr()),
                u(n),
                u(point_step),
                u(feature_step),
                Arg::Grid(&params),
                Arg::Ptr(dst.ptr()),
            ],
        )
    }

    pub(crate) fn hashgrid_forward(
        &self,
        spec: &HashGridSpec,
        layout: FeatureLayout,
        points: &CudaStorage,
        n: usize,
        tables: &CudaStorage,
        out: &mut CudaStorage,
    ) -> Result<()> {
        let op = "hashgrid_forward";
        spec.check_forward(n, points.len, tables.len, out.len)?;
        if n == 0 {
            return Ok(());
        }
        let k = K::HashGridForward;
        self.hashgrid_launch(op, k, spec, layout, points, n, tables, out)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn hashgrid_backward(
        &self,
        spec: &HashGridSpec,
        layout: FeatureLayout,
        points: &CudaStorage,
        n: usize,
        grad: &CudaStorage,
        grad_tables: &mut CudaStorage,
        accumulate: bool,
    ) -> Result<()> {
        let op = "hashgrid_backward";
        spec.check_backward(n, points.len, grad.len, grad_tables.len)?;
        if !accumulate {
            self.fill(op, grad_tables, 0.0)?;
        }
        if n == 0 {
            return Ok(());
        }
        let k = K::HashGridBackward;
        self.hashgrid_launch(op, k, spec, layout, points, n, grad, grad_tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensor_core::{HashGridConfig, HashGridScale};

    #[test]
    fn params_have_the_c_layout() {
        // 32 u64 offsets, then five arrays of 32 four-byte values, then four u32.
        assert_eq!(
            std::mem::size_of::<HashGridParams>(),
            8 * 32 + 4 * 32 * 4 + 16
        );
        assert_eq!(std::mem::align_of::<HashGridParams>(), 8);
    }

    #[test]
    fn params_describe_every_level() {
        let spec = HashGridConfig {
            dims: 2,
            levels: 5,
            features: 3,
            log2_table_size: 10,
            base_resolution: 4,
            scale: HashGridScale::Growth(2.0),
        }
        .validate()
        .unwrap();
        let p = HashGridParams::new(&spec);
        assert_eq!((p.levels, p.dims, p.features), (5, 2, 3));
        // Resolutions 4, 8, 16, 32, 64: (N + 1)^2 > 1024 from 32 on.
        assert_eq!(p.hashed, 0b11000);
        assert_eq!(&p.scale[..5], &[4.0, 8.0, 16.0, 32.0, 64.0]);
        assert_eq!(&p.last_cell[..5], &[3, 7, 15, 31, 63]);
        assert_eq!(&p.side[..3], &[5, 9, 17]);
        assert_eq!(&p.mask[3..5], &[1023, 1023]);
        assert_eq!(&p.offset[..5], &[0, 25, 106, 395, 1419]);
        assert_eq!(p.offset[5..], [0; 27]);
    }
}
