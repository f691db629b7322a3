//! Element functions specialised per operation, and the loops that apply them.
//!
//! Each operation becomes a small `Copy` value implementing [`Elem`], so every loop is
//! monomorphised for it and vectorised. Sine and cosine have a fast path that is only valid
//! for arguments up to [`math::TRIG_LIMIT`]: loops check each block of [`BLOCK`] inputs
//! first, run the vectorised fast path when all are in range, and otherwise fall back to
//! one value at a time. Every element gets `fast(x)` when `ok(x)` and `exact(x)` otherwise,
//! whatever the block or thread it lands in, so results never depend on the split.
//!
//! The loops are plain Rust compiled per vector path by [`crate::simd::multiversion!`]
//! (auto-vectorised for AVX-512, AVX2 or NEON; the baseline instructions on the scalar
//! path). The copies do the same multiplies and adds in the same order (Rust never contracts
//! them into fused multiply-adds), so they give the same bits; only the speed differs.

use crate::math;

/// Inputs checked together before the vectorised path runs.
pub(crate) const BLOCK: usize = 256;

/// A function of one `f32`, with an optional guard on its fast path.
pub(crate) trait Elem: Copy + Send + Sync {
    /// Whether [`Elem::fast`] may be wrong for some inputs (checked with [`Elem::ok`]).
    const GUARDED: bool = false;
    /// The value, vectorisable; correct whenever [`Elem::ok`] holds.
    fn fast(self, x: f32) -> f32;
    /// Whether the fast path is valid for `x`.
    #[inline(always)]
    fn ok(self, _x: f32) -> bool {
        true
    }
    /// The value where the fast path is not valid.
    #[inline(always)]
    fn exact(self, x: f32) -> f32 {
        self.fast(x)
    }
    /// The value of any input.
    #[inline(always)]
    fn eval(self, x: f32) -> f32 {
        if !Self::GUARDED || self.ok(x) {
            self.fast(x)
        } else {
            self.exact(x)
        }
    }
    /// Whether the fast path is valid for every input of a block.
    #[inline(always)]
    fn all_ok(self, xs: &[f32]) -> bool {
        !Self::GUARDED || xs.iter().fold(true, |all, &x| all & self.ok(x))
    }
}

/// A function that is correct everywhere.
#[derive(Clone, Copy)]
pub(crate) struct Plain<F>(pub F);

/// ReLU as every CPU kernel computes it: 0 below 0, the value otherwise (NaN kept, which
/// `v.max(0.0)` would drop).
#[inline(always)]
pub(crate) fn relu(v: f32) -> f32 {
    if v < 0.0 { 0.0 } else { v }
}

/// ReLU's derivative as every CPU kernel computes it: 1 above 0, else 0 (NaN included).
#[inline(always)]
pub(crate) fn relu_grad(v: f32) -> f32 {
    if v > 0.0 { 1.0 } else { 0.0 }
}

impl<F: Fn(f32) -> f32 + Copy + Send + Sync> Elem for Plain<F> {
    #[inline(always)]
    fn fast(self, x: f32) -> f32 {
        (self.0)(x)
    }
}

/// `mul * sin(scale * x)` (`mul = 1` for sine, `scale = w0` for the SIREN activation).
#[derive(Clone, Copy)]
pub(crate) struct Sin {
    pub scale: f32,
    pub mul: f32,
}

impl Elem for Sin {
    const GUARDED: bool = true;
    #[inline(always)]
    fn fast(self, x: f32) -> f32 {
        self.mul * math::sin_in_range(self.scale * x)
    }
    #[inline(always)]
    fn ok(self, x: f32) -> bool {
        math::in_trig_range(self.scale * x)
    }
    fn exact(self, x: f32) -> f32 {
        self.mul * (self.scale * x).sin()
    }
}

/// `mul * cos(scale * x)` (`mul = scale = w0` for the SIREN derivative).
#[derive(Clone, Copy)]
pub(crate) struct Cos {
    pub scale: f32,
    pub mul: f32,
}

impl Elem for Cos {
    const GUARDED: bool = true;
    #[inline(always)]
    fn fast(self, x: f32) -> f32 {
        self.mul * math::cos_in_range(self.scale * x)
    }
    #[inline(always)]
    fn ok(self, x: f32) -> bool {
        math::in_trig_range(self.scale * x)
    }
    fn exact(self, x: f32) -> f32 {
        self.mul * (self.scale * x).cos()
    }
}

/// Binds `$e` to the [`Elem`] of an activation's forward function, then expands `$body`.
macro_rules! with_act {
    ($act:expr, $e:ident => $body:expr) => {
        match $act {
            tensor_core::Activation::Identity => {
                let $e = $crate::kernel::Plain(|v: f32| v);
                $body
            }
            tensor_core::Activation::Sigmoid => {
                let $e = $crate::kernel::Plain($crate::math::sigmoid);
                $body
            }
            tensor_core::Activation::Tanh => {
                let $e = $crate::kernel::Plain($crate::math::tanh);
                $body
            }
            tensor_core::Activation::Relu => {
                let $e = $crate::kernel::Plain($crate::kernel::relu);
                $body
            }
            tensor_core::Activation::LeakyRelu { alpha } => {
                let $e = $crate::kernel::Plain(move |v: f32| if v > 0.0 { v } else { alpha * v });
                $body
            }
            tensor_core::Activation::Sine { w0 } => {
                let $e = $crate::kernel::Sin {
                    scale: w0,
                    mul: 1.0,
                };
                $body
            }
        }
    };
}

/// Binds `$e` to the [`Elem`] of an activation's derivative (as a function of its input),
/// then expands `$body`.
macro_rules! with_act_grad {
    ($act:expr, $e:ident => $body:expr) => {
        match $act {
            tensor_core::Activation::Identity => {
                let $e = $crate::kernel::Plain(|_: f32| 1.0);
                $body
            }
            tensor_core::Activation::Sigmoid => {
                let $e = $crate::kernel::Plain(|v: f32| {
                    let s = $crate::math::sigmoid(v);
                    s * (1.0 - s)
                });
                $body
            }
            tensor_core::Activation::Tanh => {
                let $e = $crate::kernel::Plain(|v: f32| {
                    let t = $crate::math::tanh(v);
                    1.0 - t * t
                });
                $body
            }
            tensor_core::Activation::Relu => {
                let $e = $crate::kernel::Plain($crate::kernel::relu_grad);
                $body
            }
            tensor_core::Activation::LeakyRelu { alpha } => {
                let $e = $crate::kernel::Plain(move |v: f32| if v > 0.0 { 1.0 } else { alpha });
                $body
            }
            tensor_core::Activation::Sine { w0 } => {
                let $e = $crate::kernel::Cos { scale: w0, mul: w0 };
                $body
            }
        }
    };
}

pub(crate) use {with_act, with_act_grad};

crate::simd::multiversion! {
    /// `out[i] = e(x[i])` on one thread.
    pub(crate) fn map<E: Elem>(e: E, x: &[f32], out: &mut [f32]);
    avx512 uses avx512, V => map_generic(e, x, out);
    otherwise => map_generic(e, x, out);
}

crate::simd::multiversion! {
    /// `x[i] = e(x[i])` on one thread.
    pub(crate) fn map_assign<E: Elem>(e: E, x: &mut [f32]);
    avx512 uses avx512, V => map_assign_generic(e, x);
    otherwise => map_assign_generic(e, x);
}

crate::simd::multiversion! {
    /// `out[i] = g[i] * e(x[i])` on one thread (activation backward).
    pub(crate) fn mul_map<E: Elem>(e: E, g: &[f32], x: &[f32], out: &mut [f32]);
    avx512 uses avx512, V => mul_map_generic(e, g, x, out);
    otherwise => mul_map_generic(e, g, x, out);
}

#[inline(always)]
fn map_generic<E: Elem>(e: E, x: &[f32], out: &mut [f32]) {
    for (o, x) in out.chunks_mut(BLOCK).zip(x.chunks(BLOCK)) {
        if e.all_ok(x) {
            o.iter_mut().zip(x).for_each(|(o, &v)| *o = e.fast(v));
        } else {
            o.iter_mut().zip(x).for_each(|(o, &v)| *o = e.eval(v));
        }
    }
}

#[inline(always)]
fn map_assign_generic<E: Elem>(e: E, x: &mut [f32]) {
    for x in x.chunks_mut(BLOCK) {
        if e.all_ok(x) {
            x.iter_mut().for_each(|v| *v = e.fast(*v));
        } else {
            x.iter_mut().for_each(|v| *v = e.eval(*v));
        }
    }
}

#[inline(always)]
fn mul_map_generic<E: Elem>(e: E, g: &[f32], x: &[f32], out: &mut [f32]) {
    for (o, (g, x)) in out
        .chunks_mut(BLOCK)
        .zip(g.chunks(BLOCK).zip(x.chunks(BLOCK)))
    {
        if e.all_ok(x) {
            o.iter_mut()
                .zip(g.iter().zip(x))
                .for_each(|(o, (&g, &v))| *o = g * e.fast(v));
        } else {
            o.iter_mut()
                .zip(g.iter().zip(x))
                .for_each(|(o, (&g, &v))| *o = g * e.eval(v));
        }
    }
}
