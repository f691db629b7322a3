//! The kernels of every vector path this CPU has against scalar references that perform
//! the same operations in the same order: bit-identical results for every width (whole
//! and partial registers), tile height, operand layout, write mode and epilogue.

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

/// The vector paths this CPU runs.
fn vector_paths() -> Vec<SimdPath> {
    let paths: Vec<_> = [SimdPath::Avx2, SimdPath::Avx512, SimdPath::Neon]
        .into_iter()
        .filter(|p| p.supported())
        .collect();
    eprintln!("vector paths checked: {paths:?}");
    paths
}

/// One case: `op(A)` (`rows x k`, laid out by `(ars, acs)`), `op(B)` (`k x cols`, by
/// `(brs, bcs)`), `C`, and the epilogue's operands.
struct Case {
    rows: usize,
    cols: usize,
    k: usize,
    a: Vec<f32>,
    a_strides: (usize, usize),
    b: Vec<f32>,
    b_strides: (usize, usize),
    c: Vec<f32>,
    bias: Vec<f32>,
    at: Vec<f32>,
}

impl Case {
    fn new(rng: &mut ChaCha8Rng, (rows, cols, k): (usize, usize, usize), flip: bool) -> Case {
        let mut at = values(rng, rows * cols);
        at[0] = f32::NAN;
        let mut c = values(rng, rows * cols);
        c[rows * cols - 1] = f32::NAN;
        Case {
            rows,
            cols,
            k,
            a: values(rng, rows * k),
            a_strides: if flip { (1, rows) } else { (k, 1) },
            b: values(rng, k * cols),
            b_strides: (cols, 1),
            c,
            bias: values(rng, cols),
            at,
        }
    }

    fn a(&self, i: usize, p: usize) -> f32 {
        self.a[i * self.a_strides.0 + p * self.a_strides.1]
    }

    fn b(&self, p: usize, j: usize) -> f32 {
        self.b[p * self.b_strides.0 + j * self.b_strides.1]
    }

    fn region(&self, c: &mut [f32], epi: EpiKind) -> Region {
        Region {
            a: self.a.as_ptr(),
            ars: self.a_strides.0,
            acs: self.a_strides.1,
            b: self.b.as_ptr(),
            brs: self.b_strides.0,
            bcs: self.b_strides.1,
            c: c.as_mut_ptr(),
            ldc: self.cols,
            k: self.k,
            epi,
            bias: self.bias.as_ptr(),
            at: self.at.as_ptr(),
        }
    }

    /// Element `(i, j)` written from the product's `sum`, as the kernels write it.
    fn written(&self, i: usize, j: usize, sum: f32, w: Write, epi: EpiKind) -> f32 {
        let at = i * self.cols + j;
        match w {
            Write::Continue => sum,
            Write::Scaled { alpha, beta } => {
                let v = if alpha == 1.0 { sum } else { alpha * sum };
                let v = if beta == 0.0 {
                    v
                } else {
                    beta.mul_add(self.c[at], v)
                };
                // SAFETY: both pointers point into this case's buffers.
                unsafe { epilogue_scalar(epi, v, &self.bias[j], &self.at[at]) }
            }
        }
    }

    /// The outer-product kernel's result: one fused multiply-add per step, in order.
    fn outer_reference(&self, w: Write, epi: EpiKind) -> Vec<f32> {
        let mut out = self.c.clone();
        for i in 0..self.rows {
            for j in 0..self.cols {
                let start = match w {
                    Write::Continue => self.c[i * self.cols + j],
                    Write::Scaled { .. } => 0.0,
                };
                let sum = (0..self.k).fold(start, |s, p| self.a(i, p).mul_add(self.b(p, j), s));
                out[i * self.cols + j] = self.written(i, j, sum, w, epi);
            }
        }
        out
    }

    /// The dot-product kernel's result: 8 lane sums (steps past `k` adding `0 * 0`), then
    /// the tree across the lanes; a continued sum is added to `C`.
    fn dot_reference(&self, w: Write, epi: EpiKind) -> Vec<f32> {
        let mut out = self.c.clone();
        for i in 0..self.rows {
            for j in 0..self.cols {
                let mut lanes = [0f32; 8];
                for p in 0..self.k.next_multiple_of(8) {
                    let (x, y) = if p < self.k {
                        (self.a(i, p), self.b(p, j))
                    } else {
                        (0.0, 0.0)
                    };
                    lanes[p % 8] = x.mul_add(y, lanes[p % 8]);
                }
                let l = lanes;
                let sum = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
                let at = i * self.cols + j;
                out[at] = match w {
                    Write::Continue => 1.0f32.mul_add(self.c[at], sum),
                    _ => self.written(i, j, sum, w, epi),
                };
            }
        }
        out
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn the_outer_kernel_of_every_path_matches_its_scalar_reference_bit_for_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut cases = 0;
    let paths = vector_paths();
    for cols in [
        1, 3, 8, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 49, 60, 63, 64, 65, 80,
    ] {
        for rows in [1, 5, 7, 11, 13, 29] {
            for k in [1, 3, 17] {
                for flip in [false, true] {
                    let case = Case::new(&mut rng, (rows, cols, k), flip);
                    for (w, epi) in writes() {
                        let want = case.outer_reference(w, epi);
                        for &path in &paths {
                            let mut c = case.c.clone();
                            // SAFETY: the CPU has the path; the buffers hold the region.
                            unsafe {
                                run_on(
                                    path,
                                    Kernel::Outer,
                                    rows,
                                    cols,
                                    &case.region(&mut c, epi),
                                    w,
                                )
                            };
                            assert_eq!(bits(&c), bits(&want), "{path}: {rows}x{cols}, k {k}");
                        }
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 19 * 6 * 3 * 2 * 6);
}

#[test]
fn the_dot_kernel_of_every_path_matches_its_scalar_reference_bit_for_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let paths = vector_paths();
    let mut cases = 0;
    for cols in [1, 2, 3, 4, 5, 9] {
        for rows in [1, 2, 3, 4, 7] {
            for k in [1, 7, 8, 9, 23, 64] {
                let mut case = Case::new(&mut rng, (rows, cols, k), false);
                // op(B) read down its columns.
                case.b_strides = (1, k);
                for (w, epi) in writes() {
                    let want = case.dot_reference(w, epi);
                    for &path in &paths {
                        let mut c = case.c.clone();
                        // SAFETY: the CPU has the path; the buffers hold the region.
                        unsafe {
                            run_on(path, Kernel::Dot, rows, cols, &case.region(&mut c, epi), w)
                        };
                        assert_eq!(bits(&c), bits(&want), "{path}: {rows}x{cols}, k {k}");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 6 * 5 * 6 * 6);
}
