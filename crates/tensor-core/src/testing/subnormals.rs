//! Subnormal inputs (magnitudes below `f32::MIN_POSITIVE`): a backend may read them as zero
//! and write a subnormal result as zero (x86's DAZ and FTZ, aarch64's FZ, CUDA's `ftz`), or
//! keep them; either way each result matches the f64 reference of the inputs as given or of
//! the inputs with their subnormals read as zero. These checks run on sizes below and above
//! the CPU's parallel threshold, so every thread that computes is covered.

use super::compare::*;
use super::data::*;
use super::{adam_step, reference, unary};
use crate::{AdamMoments, Backend, BinaryOp, Gemm};
use rand_chacha::ChaCha8Rng;

/// Subnormal magnitudes, from just below the normal range to the smallest.
const SUBNORMALS: [f32; 5] = [1e-39, -1e-39, 5e-42, -3e-44, 1e-45];

/// Element counts: one thread, and past the CPU's parallel threshold.
const COUNTS: [usize; 3] = [7, 1000, 50_003];

/// `x` with its subnormals read as zero (the sign kept).
fn flushed(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Values in `lo..hi` with a third of them subnormal.
fn with_subnormals(r: &mut ChaCha8Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = uniform(r, n, lo, hi);
    sprinkle(&mut x, &SUBNORMALS, n / 3 + 1, r);
    x
}

/// Panics, naming the first bad element, unless every `got[i]` matches one of its
/// candidate references.
#[track_caller]
fn assert_any_close(what: &str, got: &[f32], candidates: &[Vec<Expect>], tol: f64) {
    for (i, &g) in got.iter().enumerate() {
        if !candidates.iter().any(|c| matches(g, c[i], tol)) {
            let wants: Vec<String> = candidates
                .iter()
                .map(|c| format!("{:e}", c[i].value))
                .collect();
            panic!(
                "{what}: [{i}] got {g:e}, expected one of {}",
                wants.join(", ")
            );
        }
    }
}

/// Every unary operation and activation on inputs a third subnormal, within its usual
/// range (operations defined only for positive inputs get positive subnormals).
pub fn unary_ops_take_subnormal_inputs<B: Backend>(b: &B) {
    let mut r = rng("subnormal unary");
    for (op, lo, hi) in unary::ops() {
        for n in COUNTS {
            let mut x = with_subnormals(&mut r, n, lo, hi);
            if lo >= 0.0 {
                x.iter_mut().for_each(|v| *v = v.abs());
            }
            let mut out = nan_buffer(b, n);
            ok("unary", b.unary(op, &up(b, &x), &mut out));
            let exact: Vec<_> = x.iter().map(|&v| reference::unary(op, v)).collect();
            let zeroed: Vec<_> = x
                .iter()
                .map(|&v| reference::unary(op, flushed(v)))
                .collect();
            let what = format!("{op:?} of {n} with subnormals");
            assert_any_close(&what, &down(b, &out), &[exact, zeroed], ELEMENT_TOL);
        }
    }
}

/// Every binary operation on same-shape operands, each a third subnormal.
pub fn binary_ops_take_subnormal_inputs<B: Backend>(b: &B) {
    let mut r = rng("subnormal binary");
    for op in super::binary::OPS {
        let (lo, hi) = if op == BinaryOp::Pow {
            (0.5, 2.0)
        } else {
            (-2.0, 2.0)
        };
        for n in COUNTS {
            let (x, y) = (
                with_subnormals(&mut r, n, lo, hi),
                with_subnormals(&mut r, n, lo, hi),
            );
            let (x, y) = if op == BinaryOp::Pow {
                (x.iter().map(|v| v.abs()).collect(), y)
            } else {
                (x, y)
            };
            let s = crate::Shape::new([n]);
            let spec = crate::params::BinarySpec {
                op,
                a_shape: &s,
                b_shape: &s,
                out_shape: &s,
            };
            let mut out = nan_buffer(b, n);
            ok("binary", b.binary(spec, &up(b, &x), &up(b, &y), &mut out));
            let pairs = [(false, false), (true, false), (false, true), (true, true)];
            let candidates: Vec<Vec<Expect>> = pairs
                .iter()
                .map(|&(fx, fy)| {
                    let pick = |v: f32, f: bool| if f { flushed(v) } else { v };
                    x.iter()
                        .zip(&y)
                        .map(|(&a, &c)| reference::binary(op, pick(a, fx), pick(c, fy)))
                        .collect()
                })
                .collect();
            let what = format!("{op:?} of {n} with subnormals");
            assert_any_close(&what, &down(b, &out), &candidates, ELEMENT_TOL);
        }
    }
}

/// Matrix products whose operands are a third subnormal, small and large enough to be
/// split over threads: the subnormal terms add less than `f32::MIN_POSITIVE` to any
/// element, so one reference serves.
pub fn gemm_takes_subnormal_inputs<B: Backend>(b: &B) {
    let mut r = rng("subnormal gemm");
    for (m, k, n) in [(7, 33, 5), (1000, 64, 64), (300, 100, 200)] {
        let a = with_subnormals(&mut r, m * k, -1.0, 1.0);
        let bm = with_subnormals(&mut r, k * n, -1.0, 1.0);
        let s = Gemm {
            m,
            n,
            k,
            trans_a: false,
            trans_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        let mut c = nan_buffer(b, m * n);
        ok("gemm", b.gemm(s, &up(b, &a), &up(b, &bm), &mut c));
        let want = reference::gemm(s, &a, &bm, &[]);
        assert_close(
            &format!("gemm {m}x{k}x{n} with subnormals"),
            &down(b, &c),
            &want,
            SUM_TOL,
        );
    }
}

/// An AdamW step on parameters, gradients and moments a third subnormal (weights that
/// decay has driven towards zero).
pub fn adam_step_takes_subnormal_inputs<B: Backend>(b: &B) {
    let mut r = rng("subnormal adam");
    let s = adam_step::step(0.1, true);
    for n in COUNTS {
        let p = with_subnormals(&mut r, n, -1.0, 1.0);
        let g = with_subnormals(&mut r, n, -1.0, 1.0);
        let m = with_subnormals(&mut r, n, -0.1, 0.1);
        let v: Vec<f32> = with_subnormals(&mut r, n, 0.0, 0.01)
            .iter()
            .map(|x| x.abs())
            .collect();
        let (mut dp, mut dm, mut dv) = (up(b, &p), up(b, &m), up(b, &v));
        let moments = AdamMoments {
            m: &mut dm,
            v: &mut dv,
        };
        ok("adam_step", b.adam_step(s, &mut dp, &up(b, &g), moments));
        let got = [down(b, &dp), down(b, &dm), down(b, &dv)];
        let zero = |x: &[f32]| x.iter().map(|&v| flushed(v)).collect::<Vec<_>>();
        let exact = adam_step::reference(s, &p, &g, &m, &v);
        let zeroed = adam_step::reference(s, &zero(&p), &zero(&g), &zero(&m), &zero(&v));
        for (k, part) in ["param", "m", "v"].iter().enumerate() {
            let what = format!("adam n={n} with subnormals: {part}");
            let candidates = [exact[k].clone(), zeroed[k].clone()];
            assert_any_close(&what, &got[k], &candidates, ELEMENT_TOL);
        }
    }
}
