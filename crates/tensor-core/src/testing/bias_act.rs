//! The fused bias + activation, against f64 and against its default composition.

use super::compare::*;
use super::composed::Composed;
use super::data::*;
use super::reference;
use super::unary::ACTIVATIONS;
use crate::Backend;
use crate::params::BiasAct;

/// (rows, cols): empty, XOR-sized, vectors, odd sizes, and past the parallel threshold.
const MATRICES: &[(usize, usize)] = &[
    (0, 5),
    (5, 0),
    (1, 1),
    (4, 2),
    (1, 33),
    (33, 1),
    (7, 33),
    (300, 130),
];

/// Runs `bias_act` and returns the updated `z` and `out`.
fn run<B: Backend>(
    b: &B,
    z: &[f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
    act: crate::Activation,
) -> (Vec<f32>, Vec<f32>) {
    let mut dz = up(b, z);
    let db = up(b, bias);
    let mut out = nan_buffer(b, z.len());
    ok(
        &format!("{}: bias_act", b.name()),
        b.bias_act(
            BiasAct {
                bias: &db,
                rows,
                cols,
                act,
            },
            &mut dz,
            &mut out,
        ),
    );
    (down(b, &dz), down(b, &out))
}

/// `z + bias` exactly as `f32` adds it.
fn shifted(z: &[f32], bias: &[f32], cols: usize) -> Vec<f32> {
    z.iter()
        .enumerate()
        .map(|(i, &v)| v + bias[i % cols])
        .collect()
}

/// The fused kernel and the default composition both leave `z + bias` in `z` (the same
/// bits) and its activation, within tolerance of f64, in `out`.
pub fn matches_f64<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("bias_act");
    for &act in ACTIVATIONS {
        for &(rows, cols) in MATRICES {
            let z = uniform(&mut r, rows * cols, -3.0, 3.0);
            let bias = uniform(&mut r, cols, -1.0, 1.0);
            let want_z = shifted(&z, &bias, cols);
            let want: Vec<_> = want_z
                .iter()
                .map(|&v| reference::activation(act, v))
                .collect();
            for (name, (got_z, out)) in [
                ("fused", run(b, &z, &bias, rows, cols, act)),
                ("composed", run(&composed, &z, &bias, rows, cols, act)),
            ] {
                let what = format!("{name} bias_act {act:?} {rows}x{cols}");
                assert_same_bits(&format!("{what}: z"), &got_z, &want_z);
                assert_close(&format!("{what}: out"), &out, &want, ELEMENT_TOL);
            }
        }
    }
}

/// With NaN, infinities and huge values in `z` and the bias, the fused kernel agrees with
/// the default composition element for element (NaN where it has NaN).
pub fn agrees_with_composition<B: Backend>(b: &B) {
    let composed = Composed(b.clone());
    let mut r = rng("bias_act specials");
    let (rows, cols) = (SPECIALS.len(), 5);
    let z: Vec<f32> = (0..rows * cols).map(|i| SPECIALS[i / cols]).collect();
    let mut bias = uniform(&mut r, cols, -1.0, 1.0);
    bias[1] = f32::NAN;
    bias[3] = f32::INFINITY;
    for &act in ACTIVATIONS {
        let (fz, fo) = run(b, &z, &bias, rows, cols, act);
        let (cz, co) = run(&composed, &z, &bias, rows, cols, act);
        let scale: Vec<f64> = shifted(&z, &bias, cols)
            .iter()
            .map(|&v| reference::activation(act, v).scale)
            .collect();
        assert_same_bits(&format!("bias_act {act:?} on special values: z"), &fz, &cz);
        assert_agree(
            &format!("bias_act {act:?} on special values: out"),
            &fo,
            &co,
            &scale,
            ELEMENT_TOL,
        );
    }
}

/// `z`, `bias` or `out` of the wrong length is refused, by the kernel and the composition.
pub fn refuses_wrong_lengths<B: Backend>(b: &B) {
    refuse(b);
    refuse(&Composed(b.clone()));
}

fn refuse<B: Backend>(b: &B) {
    let act = crate::Activation::Relu;
    for (lz, lb, lo) in [
        (5, 3, 6),
        (7, 3, 6),
        (6, 2, 6),
        (6, 4, 6),
        (6, 3, 5),
        (6, 3, 7),
    ] {
        let (mut z, bias, mut out) = (
            up(b, &vec![0.0; lz]),
            up(b, &vec![0.0; lb]),
            up(b, &vec![0.0; lo]),
        );
        let what = format!(
            "{}: bias_act 2x3 with buffers of {lz}, {lb} and {lo}",
            b.name()
        );
        assert_buffer_error(
            &what,
            "bias_act",
            b.bias_act(
                BiasAct {
                    bias: &bias,
                    rows: 2,
                    cols: 3,
                    act,
                },
                &mut z,
                &mut out,
            ),
        );
    }
}
