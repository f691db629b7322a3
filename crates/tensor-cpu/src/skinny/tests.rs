//! The AVX-512 outer-product kernel against the AVX2 one: bit-identical results for every
//! width (whole and masked vectors), tile height, operand layout, write mode and epilogue.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random values in -1..1, with exact zeros and negative zeros (ReLU's edge) among them.
fn values(rng: &mut ChaCha8Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.random_range(0..10) {
            0 => 0.0,
            1 => -0.0,
            _ => rng.random_range(-1.0f32..1.0),
        })
        .collect()
}

/// Every write of a tile: plain, scaled, continued, and each epilogue.
fn writes() -> Vec<(Write, EpiKind)> {
    let set = Write::Scaled {
        alpha: 1.0,
        beta: 0.0,
    };
    vec![
        (set, EpiKind::None),
        (
            Write::Scaled {
                alpha: 0.5,
                beta: 0.25,
            },
            EpiKind::None,
        ),
        (Write::Continue, EpiKind::None),
        (set, EpiKind::Bias),
        (set, EpiKind::BiasRelu),
        (set, EpiKind::ReluGrad),
    ]
}

#[test]
fn the_avx512_kernel_matches_the_avx2_kernel_bit_for_bit() {
    if !(available() && is_x86_feature_detected!("avx512f")) {
        eprintln!("skipped: this CPU has no AVX-512F");
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut cases = 0;
    for cols in [
        1, 3, 8, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 49, 60, 63, 64, 65, 80,
    ] {
        for rows in [1, 5, 7, 11, 13, 29] {
            for k in [1, 3, 17] {
                for transposed_a in [false, true] {
                    for (w, epi) in writes() {
                        let a = values(&mut rng, rows * k);
                        let b = values(&mut rng, k * cols);
                        let bias = values(&mut rng, cols);
                        let mut at = values(&mut rng, rows * cols);
                        at[0] = f32::NAN;
                        let mut c = values(&mut rng, rows * cols);
                        c[rows * cols - 1] = f32::NAN;
                        let (ars, acs) = if transposed_a { (1, rows) } else { (k, 1) };
                        let (mut c2, mut c5) = (c.clone(), c);
                        let region = |c: &mut Vec<f32>| Region {
                            a: a.as_ptr(),
                            ars,
                            acs,
                            b: b.as_ptr(),
                            brs: cols,
                            bcs: 1,
                            c: c.as_mut_ptr(),
                            ldc: cols,
                            k,
                            epi,
                            bias: bias.as_ptr(),
                            at: at.as_ptr(),
                        };
                        // SAFETY: the CPU has both instruction sets (checked above); every
                        // buffer holds the region's extent.
                        unsafe {
                            outer::region(rows, cols, &region(&mut c2), w);
                            outer512::region(rows, cols, &region(&mut c5), w);
                        }
                        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(
                            bits(&c2),
                            bits(&c5),
                            "{rows}x{cols}, k {k}, A transposed {transposed_a}"
                        );
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 19 * 6 * 3 * 2 * 6);
}
