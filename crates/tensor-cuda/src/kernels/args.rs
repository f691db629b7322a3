//! Kernel arguments and launch shapes.

use super::Param;
use crate::ops::HashGridParams;
use std::ffi::c_void;

/// The largest rank of the general broadcasting kernel (`MAX_DIMS` in binary.cu).
pub(crate) const MAX_DIMS: usize = 8;

/// The collapsed broadcast passed by value to `binary_nd` (`NdLayout` in binary.cu):
/// dimensions innermost first and the operands' strides along them.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct NdLayout {
    pub dims: [u64; MAX_DIMS],
    pub a_strides: [u64; MAX_DIMS],
    pub b_strides: [u64; MAX_DIMS],
    pub rank: u64,
}

/// One kernel argument.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg<'a> {
    Ptr(u64),
    U64(u64),
    I32(i32),
    F32(f32),
    Nd(&'a NdLayout),
    Grid(&'a HashGridParams),
}

impl Arg<'_> {
    /// The parameter type this argument passes.
    pub(crate) fn kind(&self) -> Param {
        match self {
            Arg::Ptr(_) => Param::Ptr,
            Arg::U64(_) => Param::U64,
            Arg::I32(_) => Param::I32,
            Arg::F32(_) => Param::F32,
            Arg::Nd(_) => Param::Nd,
            Arg::Grid(_) => Param::Grid,
        }
    }

    /// The address of the value, as `cuLaunchKernel` wants it.
    pub(crate) fn as_param(&self) -> *mut c_void {
        match self {
            Arg::Ptr(v) | Arg::U64(v) => v as *const u64 as *mut c_void,
            Arg::I32(v) => v as *const i32 as *mut c_void,
            Arg::F32(v) => v as *const f32 as *mut c_void,
            Arg::Nd(l) => *l as *const NdLayout as *mut c_void,
            Arg::Grid(g) => *g as *const HashGridParams as *mut c_void,
        }
    }
}

/// `usize` to the `u64` kernels take (lossless on every supported target).
pub(crate) fn u(n: usize) -> Arg<'static> {
    Arg::U64(n as u64)
}

/// Grid and block dimensions of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cfg {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
}

/// Threads per block of the one-dimensional kernels.
pub(crate) const BLOCK: u32 = 256;

/// The largest grid dimension used in y and z (the hardware limit is 65535); kernels loop
/// over whatever a grid does not cover.
pub(crate) const MAX_GRID_YZ: u64 = 65_535;

impl Cfg {
    /// A one-dimensional launch over `n` items with grid-stride loops: enough blocks to fill
    /// the device (`waves` blocks per multiprocessor) but no more than the work needs.
    pub(crate) fn linear(n: u64, sm_count: u32, waves: u32) -> Cfg {
        let cap = u64::from(sm_count) * u64::from(waves);
        let blocks = n.div_ceil(u64::from(BLOCK)).clamp(1, cap.max(1));
        Cfg {
            grid: (blocks as u32, 1, 1),
            block: (BLOCK, 1, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nd_layout_has_the_c_layout() {
        assert_eq!(std::mem::size_of::<NdLayout>(), 8 * (3 * MAX_DIMS + 1));
        assert_eq!(std::mem::align_of::<NdLayout>(), 8);
    }

    #[test]
    fn linear_launches_cover_small_and_huge_sizes() {
        assert_eq!(Cfg::linear(1, 132, 8).grid.0, 1);
        assert_eq!(Cfg::linear(256, 132, 8).grid.0, 1);
        assert_eq!(Cfg::linear(257, 132, 8).grid.0, 2);
        assert_eq!(Cfg::linear(u64::MAX / 2, 132, 8).grid.0, 132 * 8);
    }
}
