//! Fast `f32` sine, cosine, exponential, logistic and hyperbolic tangent.
//!
//! The standard library calls libm for each value, which does not vectorise. These
//! functions are straight-line code (no branches, no table look-ups, no integer multiplies),
//! so a loop over a slice of them compiles to SIMD instructions. They use plain multiplies
//! and adds, never fused multiply-adds, so a value gives the same bits whether it is
//! computed in a SIMD lane or alone, on any x86-64 CPU.
//!
//! Accuracy (measured against `f64` over dense sweeps in `tests/math.rs`):
//! - [`sin`], [`cos`]: absolute error below 3e-7 for `|x| <= TRIG_LIMIT` (16384); beyond
//!   that, and for NaN and infinities, they return the standard library's result.
//! - [`exp`]: relative error below 4e-7 wherever the result is a normal `f32`; it overflows
//!   to infinity above 88.72, goes through the subnormals to 0 below -87.3, and keeps NaN.
//! - [`sigmoid`], [`tanh`]: relative error below 1e-6, exact limits (`sigmoid(100) == 1`,
//!   `tanh(±20) == ±1`), no NaN for any non-NaN input.
//!
//! The polynomial coefficients were fitted for this crate (weighted least squares iterated
//! towards minimax, on the reduced intervals named at each polynomial).

/// `|x|` up to which [`sin_in_range`] and [`cos_in_range`] are accurate.
///
/// The reduction `x - q * pi/2` is exact for quotients `q < 2^14` with the three-part
/// constant below; 16384 keeps `q` under 10431.
pub const TRIG_LIMIT: f32 = 16384.0;

/// Adding and subtracting this rounds an `f32` below 2^22 in magnitude to an integer, and
/// leaves that integer in the low bits of the sum's representation.
const ROUND_MAGIC: f32 = 12_582_912.0; // 1.5 * 2^23
/// The representation of [`ROUND_MAGIC`]; `(v + ROUND_MAGIC).to_bits() - MAGIC_BITS` is
/// `round(v)` as an integer.
const MAGIC_BITS: u32 = 0x4B40_0000;

/// `2 / pi`.
const FRAC_2_PI: f32 = std::f32::consts::FRAC_2_PI;
/// pi/2 in three parts (Cody-Waite): the first two have 10 significant bits, so their
/// products with a quotient below 2^14 are exact; the third holds the next 24 bits. Two
/// parts suffice with fused multiply-adds; without them, a third keeps the error of
/// `q * (pi/2)` at 1e-10 for every `q` in range instead of 1e-6.
const PIO2_1: f32 = 1.570_312_5;
const PIO2_2: f32 = 4.835_128_8e-4; // exactly 4.8351287841796875e-4
const PIO2_3: f32 = 3.139_164_7e-7;

/// `sin(r) = r + r^3 (S0 + S1 r^2 + S2 r^4)` on `|r| <= pi/4`, relative error 4e-9.
const S0: f32 = -0.166_666_55;
const S1: f32 = 8.332_16e-3;
const S2: f32 = -1.951_528_2e-4;
/// `cos(r) = 1 - r^2/2 + r^4 (C0 + C1 r^2 + C2 r^4)` on `|r| <= pi/4`, error 1e-10.
const C0: f32 = 4.166_664_6e-2;
const C1: f32 = -1.388_736_8e-3;
const C2: f32 = 2.443_845e-5;

/// Reduces `x` to `r = x - q pi/2` with `|r| <= pi/4` (about), and returns `r` and `q`
/// (only its two low bits matter).
#[inline(always)]
fn reduce_pio2(x: f32) -> (f32, u32) {
    let t = x * FRAC_2_PI + ROUND_MAGIC;
    let q = t - ROUND_MAGIC;
    let r = ((x - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;
    (r, t.to_bits().wrapping_sub(MAGIC_BITS))
}

/// The sine (`quadrant` even) or cosine (odd) of `r`, negated when bit 1 of `quadrant`
/// is set: `sin(r + quadrant pi/2)`.
#[inline(always)]
fn quadrant_value(r: f32, quadrant: u32) -> f32 {
    let r2 = r * r;
    let s = r + r * r2 * (S0 + r2 * (S1 + r2 * S2));
    let c = (1.0 - 0.5 * r2) + r2 * r2 * (C0 + r2 * (C1 + r2 * C2));
    let v = if quadrant & 1 == 0 { s } else { c };
    f32::from_bits(v.to_bits() ^ ((quadrant & 2) << 30))
}

/// Whether `|x| <= TRIG_LIMIT` (false for NaN and infinities).
#[inline(always)]
pub fn in_trig_range(x: f32) -> bool {
    x.abs() <= TRIG_LIMIT
}

/// `sin(x)` for `|x| <= TRIG_LIMIT`, without branches; any other input gives a finite or
/// NaN value of no meaning (never undefined behaviour).
#[inline(always)]
pub fn sin_in_range(x: f32) -> f32 {
    let (r, q) = reduce_pio2(x);
    quadrant_value(r, q)
}

/// `cos(x)` for `|x| <= TRIG_LIMIT`, without branches (see [`sin_in_range`]).
#[inline(always)]
pub fn cos_in_range(x: f32) -> f32 {
    let (r, q) = reduce_pio2(x);
    quadrant_value(r, q.wrapping_add(1))
}

/// `sin(x)` for any `x`: the fast path in range, the standard library beyond.
#[inline]
pub fn sin(x: f32) -> f32 {
    if in_trig_range(x) {
        sin_in_range(x)
    } else {
        x.sin()
    }
}

/// `cos(x)` for any `x`: the fast path in range, the standard library beyond.
#[inline]
pub fn cos(x: f32) -> f32 {
    if in_trig_range(x) {
        cos_in_range(x)
    } else {
        x.cos()
    }
}

/// `log2(e)`.
const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two parts: the first has 12 significant bits, so its product with any exponent
/// in range (|n| < 2^8) is exact.
const LN2_HI: f32 = 0.693_115_23; // exactly 0.693115234375
const LN2_LO: f32 = 3.194_618_3e-5;
/// `e^r = 1 + r + r^2 (E0 + E1 r + E2 r^2 + E3 r^3 + E4 r^4)` on `|r| <= ln(2)/2`,
/// relative error 3e-9.
const E0: f32 = 0.499_999_94;
const E1: f32 = 0.166_665_21;
const E2: f32 = 4.166_839e-2;
const E3: f32 = 8.368_71e-3;
const E4: f32 = 1.381_461_3e-3;

/// `e^x`, without branches.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    // Outside [-105, 89] the result is 0 or infinity anyway; clamping keeps the exponent
    // arithmetic below in range. NaN passes through `clamp`.
    let x = x.clamp(-105.0, 89.0);
    let t = x * LOG2_E + ROUND_MAGIC;
    let n = t - ROUND_MAGIC;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0 + r + r * r * (E0 + r * (E1 + r * (E2 + r * (E3 + r * E4))));
    // Scale by 2^n in two halves, so that neither factor overflows or underflows on its own
    // and results in the subnormal range come out right.
    let n = t.to_bits().wrapping_sub(MAGIC_BITS) as i32;
    let n1 = n >> 1;
    let n2 = n - n1;
    let pow2 = |e: i32| f32::from_bits(((e + 127) as u32) << 23);
    p * pow2(n1) * pow2(n2)
}

/// The logistic function `1 / (1 + e^-x)`, without branches: exactly 1 for large `x`,
/// tiny and positive (or 0) for very negative `x`, never NaN unless `x` is.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let e = exp(-x.abs());
    let d = 1.0 + e;
    if x >= 0.0 { 1.0 / d } else { e / d }
}

/// Below this `|x|`, [`tanh`] uses its odd polynomial, avoiding the cancellation in
/// `1 - e^{-2|x|}`.
const TANH_SMALL: f32 = 0.625;
/// `tanh(x) = x + x^3 (T0 + T1 x^2 + ... + T4 x^8)` on `|x| <= 0.625`, relative error 4e-9.
const T0: f32 = -0.333_332_8;
const T1: f32 = 0.133_314_42;
const T2: f32 = -5.373_971_5e-2;
const T3: f32 = 2.063_908_4e-2;
const T4: f32 = -5.704_984_5e-3;

/// The hyperbolic tangent, without branches: exactly ±1 for `|x| > 9.1`, accurate to a
/// relative 1e-6 near 0.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let e = exp(-2.0 * a);
    let large = (1.0 - e) / (1.0 + e);
    let a2 = a * a;
    let small = a + a * a2 * (T0 + a2 * (T1 + a2 * (T2 + a2 * (T3 + a2 * T4))));
    let t = if a < TANH_SMALL { small } else { large };
    t.copysign(x)
}
