//! The primitive operations of the hash-grid block kernels ([`super::blocks`]) on 8 points
//! at once, per instruction set: [`GridLanes`], implemented for AVX2 (8-lane registers,
//! also run on AVX-512 CPUs) and NEON (pairs of 4-lane registers).
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

#[cfg(target_arch = "aarch64")]
pub(super) use neon::NeonGrid;
#[cfg(target_arch = "x86_64")]
pub(super) use x86::Avx2Grid;

/// Points per block: the lanes of [`GridLanes::F`] and [`GridLanes::U`].
pub(super) const LANES: usize = 8;

/// The operations of the block kernels on 8 lanes of `f32` ([`GridLanes::F`]) and of `u32`
/// ([`GridLanes::U`]).
///
/// # Safety
/// Every function may only run on a CPU with the implementing type's instructions; pointers
/// must be valid for the values each function names.
pub(super) trait GridLanes {
    /// 8 lanes of `f32`.
    type F: Copy;
    /// 8 lanes of `u32`.
    type U: Copy;

    /// All lanes `v`.
    unsafe fn splat(v: f32) -> Self::F;
    /// All lanes `v`.
    unsafe fn splat_u(v: u32) -> Self::U;
    /// Coordinate `k < D` of 8 points stored one after the other at `x` (`8 D` values), in
    /// point order, for every `k < D` (the other entries of the array are unspecified).
    unsafe fn coords<const D: usize>(x: *const f32) -> [Self::F; 3];
    /// `x.clamp(0.0, 1.0)` per lane: NaN and `-0.0` kept.
    unsafe fn clamp01(x: Self::F) -> Self::F;
    /// `a * b`.
    unsafe fn mul(a: Self::F, b: Self::F) -> Self::F;
    /// `a + b`.
    unsafe fn add(a: Self::F, b: Self::F) -> Self::F;
    /// `a - b`.
    unsafe fn sub(a: Self::F, b: Self::F) -> Self::F;
    /// `(p as u32).min(last)` per lane (`as` saturates: NaN and negative values give 0).
    unsafe fn cell_index(p: Self::F, last: Self::U) -> Self::U;
    /// `i as f32` per lane, for `i < 2^31`.
    unsafe fn to_f32(i: Self::U) -> Self::F;
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
    unsafe fn store(v: Self::F, out: *mut f32);
    /// Stores the lanes to `out`.
    unsafe fn store_u(v: Self::U, out: &mut [u32; LANES]);
    /// The 8 values at `p`.
    unsafe fn load(p: *const f32) -> Self::F;
    /// For each lane `i`, the two values at `pairs[2 entries[i]..]`: the first values in
    /// the first register, the second in the second.
    unsafe fn gather_pairs(pairs: *const f32, entries: &[u32; LANES]) -> (Self::F, Self::F);
    /// `dst[0..4] += [w0 g0, w0 g1, w1 g0, w1 g1]`, each a product then a sum.
    unsafe fn add_two_corners(dst: *mut f32, w0: f32, w1: f32, g: [f32; 2]);
}
