//! The vector abstraction the kernels of this crate are written over: [`F32s`], a register
//! of `f32` lanes with the few operations the kernels use, implemented for AVX2 (8 lanes),
//! AVX-512 (16 lanes) and NEON (two 4-lane registers used as one of 8 lanes).
//!
//! A kernel is a generic function over `V: F32s` marked `#[inline(always)]` down to its
//! innermost loop, called from one small entry per path marked `#[target_feature]` (see
//! [`multiversion!`](crate::simd::multiversion)): the whole body is inlined into the entry and
//! compiled with the path's instructions, as if written by hand for it. Kernels that work in
//! blocks of 8 lanes (AVX2, also run on AVX-512 CPUs, and NEON) use the extension [`Lanes8`].
//!
//! Every operation is one IEEE operation per lane (a fused multiply-add rounds once), so a
//! kernel that performs the same operations per element gives the same bits on every path.

#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "aarch64")]
pub(crate) use neon::Neon;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx2, Avx512};

/// A register of [`F32s::LANES`] `f32` values.
///
/// # Safety
/// Every method may only run on a CPU with the type's instructions; pointers must be valid
/// for the lanes read or written (the first `n` lanes of a partial mask).
pub(crate) trait F32s: Copy {
    /// Lanes per register.
    const LANES: usize;
    /// The widest tile of the outer-product kernel, in registers per row.
    const MAX_NV: usize;
    /// Rows of a full tile of the outer-product kernel `nv` registers wide (index `nv`).
    const FULL_ROWS: [usize; 5];
    /// Which of the first lanes a partial load or store touches.
    type Mask: Copy;

    /// All lanes 0.
    unsafe fn zero() -> Self;
    /// All lanes `v`.
    unsafe fn splat(v: f32) -> Self;
    /// All lanes `*p`.
    #[inline(always)]
    unsafe fn load_splat(p: *const f32) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe { Self::splat(*p) }
    }
    /// `LANES` values from `p`.
    unsafe fn load(p: *const f32) -> Self;
    /// Stores the lanes to `p`.
    unsafe fn store(self, p: *mut f32);
    /// The mask of the first `n` lanes, `0 < n <= LANES`.
    unsafe fn first(n: usize) -> Self::Mask;
    /// The lanes of `m` from `p`, the others 0.
    unsafe fn load_part(p: *const f32, m: Self::Mask) -> Self;
    /// Stores the lanes of `m` to `p`.
    unsafe fn store_part(self, p: *mut f32, m: Self::Mask);
    /// `self + b`.
    unsafe fn add(self, b: Self) -> Self;
    /// `self * b`.
    unsafe fn mul(self, b: Self) -> Self;
    /// `self * b + c`, rounded once.
    unsafe fn mul_add(self, b: Self, c: Self) -> Self;
    /// ReLU as [`crate::kernel::relu`]: 0 below 0, the value otherwise (NaN and -0 kept).
    unsafe fn relu(self) -> Self;
    /// `self * relu'(at)`, ReLU's derivative as [`crate::kernel::relu_grad`].
    unsafe fn mul_relu_grad(self, at: Self) -> Self;
}

/// An 8-lane register (AVX2, NEON): the operations of the kernels that work in blocks of 8
/// lanes.
pub(crate) trait Lanes8: F32s {
    /// The sums of the lanes of each of `v`: `((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))`.
    unsafe fn lane_sums(v: &[Self; 4]) -> [f32; 4];
    /// Writes the transpose of the 8 x 8 square at `src` (rows `ss` apart) to `dst` (rows
    /// `ds` apart): an exact copy.
    unsafe fn transpose_square(src: *const f32, ss: usize, dst: *mut f32, ds: usize);
}
