//! The operations of the hash-grid block kernels ([`super::blocks`]) on 8 points at once:
//! [`GridLanes`], an extension of the 8-lane registers of [`crate::simd::vector`] (AVX2,
//! also run on AVX-512 CPUs, and NEON's pairs of 4-lane registers) with the `u32` lanes,
//! gathers and coordinate loads only the hash grid needs. The kernels are compiled per path
//! by [`crate::simd::multiversion!`], like every other vector kernel.
//!
//! Every operation does per lane what the scalar lookup ([`LevelConsts::cell`] and the
//! scalar interpolation) does to one point, with the same roundings (plain multiplies and
//! adds, never fused), so a kernel written over these primitives gives the scalar path's
//! bits on every instruction set.
//!
//! [`LevelConsts::cell`]: tensor_core::hashgrid::LevelConsts::cell

#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::simd::vector::Lanes8;

/// Points per block: the lanes of a [`GridLanes`] register and of [`GridLanes::U`].
pub(super) const LANES: usize = 8;

/// The operations of the block kernels beyond [`Lanes8`]'s (whose `splat`, `add`, `mul`,
/// `load` and `store` they use): on 8 lanes of `f32` (`Self`) and of `u32`
/// ([`GridLanes::U`]).
///
/// # Safety
/// Every function may only run on a CPU with the implementing type's instructions; pointers
/// must be valid for the values each function names.
pub(super) trait GridLanes: Lanes8 {
    /// 8 lanes of `u32`.
    type U: Copy;

    /// All lanes `v`.
    unsafe fn splat_u(v: u32) -> Self::U;
    /// Coordinate `k < D` of 8 points stored one after the other at `x` (`8 D` values), in
    /// point order, for every `k < D` (the other entries of the array are unspecified).
    unsafe fn coords<const D: usize>(x: *const f32) -> [Self; 3];
    /// `x.clamp(0.0, 1.0)` per lane: NaN and `-0.0` kept.
    unsafe fn clamp01(self) -> Self;
    /// `self - b`.
    unsafe fn sub(self, b: Self) -> Self;
    /// `(p as u32).min(last)` per lane (`as` saturates: NaN and negative values give 0).
    unsafe fn cell_index(self, last: Self::U) -> Self::U;
    /// `i as f32` per lane, for `i < 2^31`.
    unsafe fn to_f32(i: Self::U) -> Self;
    /// `a.wrapping_add(b)`.
    unsafe fn add_u(a: Self::U, b: Self::U) -> Self::U;
    /// `a.wrapping_mul(b)`.
    unsafe fn mul_u(a: Self::U, b: Self::U) -> Self::U;
    /// `a ^ b`.
    unsafe fn xor_u(a: Self::U, b: Self::U) -> Self::U;
    /// `a & b`.
    unsafe fn and_u(a: Self::U, b: Self::U) -> Self::U;
    /// `a.min(b)`.
    unsafe fn min_u(a: Self::U, b: Self::U) -> Self::U;
    /// Stores the lanes to `out`.
    unsafe fn store_u(v: Self::U, out: &mut [u32; LANES]);
    /// For each lane `i`, the two values at `pairs[2 entries[i]..]`: the first values in
    /// the first register, the second in the second.
    unsafe fn gather_pairs(pairs: *const f32, entries: &[u32; LANES]) -> (Self, Self);
    /// `dst[0..4] += [w0 g0, w0 g1, w1 g0, w1 g1]`, each a product then a sum.
    unsafe fn add_two_corners(dst: *mut f32, w0: f32, w1: f32, g: [f32; 2]);
}
