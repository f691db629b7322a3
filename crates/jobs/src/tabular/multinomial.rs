//! Multinomial logistic regression of `k > 2` classes on encoded table rows, in f64: the
//! softmax of `x W + b` with an L2 penalty on the weights (as scikit-learn's
//! `LogisticRegression(C)` fits several classes), solved by Newton's method on the
//! `k (cols + 1)` parameters.

use super::linear::{LinearFit, LinearSkipped, check_shape, solve_spd};
use crate::metrics::lstsq::system_affordable;

/// Newton steps at most; each solves one `k (cols + 1)`-square system.
const NEWTON_STEPS: usize = 30;

/// The class probabilities of one row's scores, in place.
fn softmax(scores: &mut [f64]) {
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    scores.iter_mut().for_each(|s| *s = (*s - top).exp());
    let sum: f64 = scores.iter().sum();
    scores.iter_mut().for_each(|s| *s /= sum);
}

/// Multinomial logistic regression of the class indices `y` (`0..k`) on `x` (`rows x
/// cols`): minimises `C sum -log p(y_r) + |W|^2 / 2`.
pub fn multinomial(
    x: &[f32],
    y: &[f32],
    rows: usize,
    cols: usize,
    k: usize,
    c: f64,
) -> Result<LinearFit, LinearSkipped> {
    check_shape(x, rows, cols)?;
    let n = k * (cols + 1);
    if !system_affordable(rows, n) {
        return Err(LinearSkipped::TooCostly(n));
    }
    let mut fit = LinearFit {
        weights: vec![0.0; cols * k],
        bias: vec![0.0; k],
    };
    for _ in 0..NEWTON_STEPS {
        let (h, g) = newton_system(&fit, x, y, cols, c);
        let step = solve_spd(h, g, n)?;
        let size: f64 = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        if !size.is_finite() {
            return Err(LinearSkipped::Singular);
        }
        // Parameter (class j, input i) is at j (cols + 1) + i; the intercept at i = cols.
        for j in 0..k {
            for i in 0..cols {
                fit.weights[i * k + j] += step[j * (cols + 1) + i];
            }
            fit.bias[j] += step[j * (cols + 1) + cols];
        }
        if size < 1e-9 {
            break;
        }
    }
    Ok(fit)
}

/// The Newton system at `fit`: the Hessian `H` and minus the gradient of the objective
/// divided by `C`, so that `H step = g`.
fn newton_system(
    fit: &LinearFit,
    x: &[f32],
    y: &[f32],
    cols: usize,
    c: f64,
) -> (Vec<f64>, Vec<f64>) {
    let k = fit.width();
    let m = cols + 1;
    let n = k * m;
    let mut h = vec![0f64; n * n];
    let mut g = vec![0f64; n];
    let mut z = vec![1f64; m];
    let scores = fit.outputs(x, cols);
    for (r, row) in x.chunks_exact(cols.max(1)).enumerate() {
        z.iter_mut().zip(row).for_each(|(z, &v)| *z = f64::from(v));
        let mut p = scores[r * k..(r + 1) * k].to_vec();
        softmax(&mut p);
        let label = y[r] as usize;
        for a in 0..k {
            let residual = f64::from(u8::from(a == label)) - p[a];
            for i in 0..m {
                g[a * m + i] += residual * z[i];
            }
            // The lower triangle: (a, i) against (b, j) with b <= a.
            for b in 0..=a {
                let w = p[a] * (f64::from(u8::from(a == b)) - p[b]);
                for i in 0..m {
                    let wi = w * z[i];
                    let row = &mut h[(a * m + i) * n + b * m..(a * m + i) * n + b * m + m];
                    row.iter_mut().zip(&z).for_each(|(h, &zj)| *h += wi * zj);
                }
            }
        }
    }
    let penalty = 1.0 / c;
    for a in 0..k {
        for i in 0..cols {
            let p = a * m + i;
            h[p * n + p] += penalty;
            g[p] -= penalty * fit.weights[i * k + a];
        }
    }
    for p in 0..n {
        for q in 0..p {
            h[q * n + p] = h[p * n + q];
        }
    }
    // Adding one number to every intercept changes no probability: the first class's
    // intercept stays at 0, which makes the system definite.
    let first = cols;
    for q in 0..n {
        (h[first * n + q], h[q * n + first]) = (0.0, 0.0);
    }
    (h[first * n + first], g[first]) = (1.0, 0.0);
    (h, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three classes around three centres, with overlap.
    fn three_classes() -> (Vec<f32>, Vec<f32>) {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for r in 0..90 {
            let class = r % 3;
            let (cx, cy) = [(0.0, 0.0), (2.0, 0.5), (0.5, 2.0)][class];
            let jitter = ((r * 7919) % 23) as f32 / 11.0 - 1.0;
            let other = ((r * 104_729) % 19) as f32 / 9.0 - 1.0;
            x.extend([cx + jitter, cy + other]);
            y.push(class as f32);
        }
        (x, y)
    }

    /// At the optimum the penalised gradient is zero, in f64 from the fitted parameters.
    #[test]
    fn multinomial_reaches_a_zero_gradient() {
        let (x, y) = three_classes();
        let c = 1.0;
        let fit = multinomial(&x, &y, 90, 2, 3, c).unwrap();
        let mut grad = vec![0f64; 9];
        let scores = fit.outputs(&x, 2);
        for r in 0..90 {
            let mut p = scores[r * 3..r * 3 + 3].to_vec();
            softmax(&mut p);
            let z = [f64::from(x[2 * r]), f64::from(x[2 * r + 1]), 1.0];
            for a in 0..3 {
                let e = p[a] - f64::from(u8::from(y[r] as usize == a));
                for i in 0..3 {
                    grad[a * 3 + i] += c * e * z[i];
                }
            }
        }
        for a in 0..3 {
            grad[a * 3] += fit.weights[a];
            grad[a * 3 + 1] += fit.weights[3 + a];
        }
        assert!(grad.iter().all(|g| g.abs() < 1e-6), "{grad:?}");
        // The classes are mostly told apart.
        let right = (0..90)
            .filter(|&r| {
                let s = &scores[r * 3..r * 3 + 3];
                let best = (0..3).max_by(|&a, &b| s[a].total_cmp(&s[b])).unwrap();
                best == y[r] as usize
            })
            .count();
        assert!(right >= 70, "{right} of 90");
    }

    /// Two classes: the multinomial fit's score difference is the binary fit's score (the
    /// penalty on both classes' weights halves the binary penalty on their difference).
    #[test]
    fn two_classes_agree_with_binary_logistic_regression() {
        let (x, y) = three_classes();
        let (x2, y2): (Vec<f32>, Vec<f32>) = x.chunks(2).zip(&y).filter(|(_, c)| **c < 2.0).fold(
            (Vec::new(), Vec::new()),
            |(mut xs, mut ys), (row, c)| {
                xs.extend_from_slice(row);
                ys.push(*c);
                (xs, ys)
            },
        );
        let rows = y2.len();
        let multi = multinomial(&x2, &y2, rows, 2, 2, 1.0).unwrap();
        let binary = super::super::linear::logistic(&x2, &y2, rows, 2, 2.0).unwrap();
        let m = multi.outputs(&x2, 2);
        let b = binary.outputs(&x2, 2);
        for r in 0..rows {
            let diff = m[2 * r + 1] - m[2 * r];
            assert!((diff - b[r]).abs() < 1e-4, "row {r}: {diff} vs {}", b[r]);
        }
    }
}
