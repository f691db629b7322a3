//! The fused Fourier-feature encoding, against f64 and against its default composition.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use crate::Backend;
use crate::params::FourierFeatures;
use std::f64::consts::TAU;

/// Runs `fourier_features` and returns its output.
fn run<B: Backend>(b: &B, x: &[f32], freqs: &[f32], rows: usize, d: usize, m: usize) -> Vec<f32> {
    let (dx, df) = (up(b, x), up(b, freqs));
    let mut out = nan_buffer(b, rows * 2 * m);
    ok(
        &format!("{}: fourier_features", b.name()),
        b.fourier_features(
            FourierFeatures {
                x: &dx,
                freqs: &df,
                rows,
                d,
                m,
            },
            &mut out,
        ),
    );
    down(b, &out)
}

/// `[sin(2 pi x B), cos(2 pi x B)]` in f64. The `f32` projection is off by up to `d + 2`
/// units in the last place of the sum of its absolute terms, and sine and cosine carry that
/// error over unchanged: the scale says so.
fn reference(x: &[f32], freqs: &[f32], rows: usize, d: usize, m: usize) -> Vec<Expect> {
    let mut want = Vec::with_capacity(rows * 2 * m);
    for i in 0..rows {
        let (mut proj, mut mass) = (vec![0.0; m], vec![0.0; m]);
        for j in 0..m {
            for k in 0..d {
                let t = TAU * f64::from(x[i * d + k]) * f64::from(freqs[k * m + j]);
                proj[j] += t;
                mass[j] += t.abs();
            }
        }
        let scale = |a: f64| 1.0 + (d + 2) as f64 * f64::from(f32::EPSILON) * a / ELEMENT_TOL;
        want.extend((0..m).map(|j| Expect::new(proj[j].sin(), scale(mass[j]))));
        want.extend((0..m).map(|j| Expect::new(proj[j].cos(), scale(mass[j]))));
    }
    want
}

/// The fused kernel and the default composition both match f64, empty inputs (no rows, no
/// frequencies, no coordinates) included.
pub fn matches_f64<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("fourier");
    for &(rows, d, m) in &[
        (1, 1, 1),
        (3, 0, 2),
        (0, 2, 3),
        (4, 2, 0),
        (4, 2, 3),
        (7, 2, 33),
        (1000, 2, 64),
        (300, 3, 128),
    ] {
        let x = uniform(&mut r, rows * d, -1.0, 1.0);
        let freqs = uniform(&mut r, d * m, -10.0, 10.0);
        let want = reference(&x, &freqs, rows, d, m);
        for (name, got) in [
            ("fused", run(b, &x, &freqs, rows, d, m)),
            ("composed", run(&composed, &x, &freqs, rows, d, m)),
        ] {
            assert_close(
                &format!("{name} fourier_features {rows}x{d} -> {m}"),
                &got,
                &want,
                ELEMENT_TOL,
            );
        }
    }
}

/// NaN and infinite coordinates give NaN features on both paths, alike.
pub fn agrees_with_composition<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("fourier specials");
    let (rows, d, m) = (SPECIALS.len(), 2, 7);
    let x: Vec<f32> = (0..rows * d)
        .map(|i| if i % d == 0 { SPECIALS[i / d] } else { 0.25 })
        .collect();
    let freqs = uniform(&mut r, d * m, -10.0, 10.0);
    let scale: Vec<f64> = reference(&x, &freqs, rows, d, m)
        .iter()
        .map(|e| if e.scale.is_finite() { e.scale } else { 1.0 })
        .collect();
    let (fused, comp) = (
        run(b, &x, &freqs, rows, d, m),
        run(&composed, &x, &freqs, rows, d, m),
    );
    let finite = |v: &f32| v.is_finite() && v.abs() < 1e3;
    // Huge coordinates make the phase meaningless in f32; compare where it is not.
    let keep: Vec<usize> = (0..rows)
        .filter(|&i| finite(&x[i * d]) || x[i * d].is_nan())
        .collect();
    let pick = |v: &[f32]| {
        keep.iter()
            .flat_map(|&i| v[i * 2 * m..(i + 1) * 2 * m].to_vec())
            .collect::<Vec<f32>>()
    };
    let pick_scale: Vec<f64> = keep
        .iter()
        .flat_map(|&i| scale[i * 2 * m..(i + 1) * 2 * m].to_vec())
        .collect();
    assert_agree(
        "fourier_features on special values",
        &pick(&fused),
        &pick(&comp),
        &pick_scale,
        ELEMENT_TOL,
    );
    for (i, &xi) in x.iter().step_by(d).enumerate() {
        if !xi.is_finite() {
            let row = &fused[i * 2 * m..(i + 1) * 2 * m];
            assert!(
                row.iter().all(|v| v.is_nan()),
                "fourier_features of {xi}: {row:?}"
            );
        }
    }
}

/// Buffers of the wrong length are refused, by the kernel and the composition.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    refuse(b);
    refuse(&Composed(b.clone()));
}

fn refuse<B: Backend>(b: &B) {
    for (lx, lf, lo) in [
        (5, 6, 12),
        (7, 6, 12),
        (6, 5, 12),
        (6, 7, 12),
        (6, 6, 11),
        (6, 6, 13),
    ] {
        let (x, f, mut out) = (
            up(b, &vec![0.0; lx]),
            up(b, &vec![0.0; lf]),
            up(b, &vec![0.0; lo]),
        );
        let what = format!(
            "{}: fourier 3x2 -> 3 with buffers of {lx}, {lf} and {lo}",
            b.name()
        );
        assert_buffer_error(
            &what,
            "fourier_features",
            b.fourier_features(
                FourierFeatures {
                    x: &x,
                    freqs: &f,
                    rows: 3,
                    d: 2,
                    m: 3,
                },
                &mut out,
            ),
        );
    }
}
