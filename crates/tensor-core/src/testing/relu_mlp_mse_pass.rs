//! The fused training pass of a ReLU network (`relu_mlp_mse_pass`): against an f64
//! forward and backward pass, in both input layouts, and its refusals. A backend without a
//! fused pass must answer `false` and leave every output untouched.

use super::compare::*;
use super::data::*;
use crate::mlp_pass::{DenseGrad, DenseRef, MlpPass, MlpPassOut, relu_mlp_mse_pass};
use crate::{Backend, FeatureLayout, Tensor};
use rand_chacha::ChaCha8Rng;

/// `(rows, widths)`: tiny, odd, one and several tiles, several chunks, the hash-grid shape
/// (32 -> 64 -> 64 -> 3), a single layer with few outputs, a width above 64, the one wide
/// layer of a size budget's network (48 -> 304 -> 3) and a width above any the CPU serves.
const CASES: &[(usize, &[usize])] = &[
    (1, &[1, 1]),
    (600, &[40, 4]),
    (7, &[3, 5, 2]),
    (513, &[2, 16, 16, 1]),
    (1000, &[32, 64, 64, 3]),
    (4099, &[9, 17, 33, 8]),
    (5000, &[32, 64, 64, 3]),
    (300, &[4, 80, 2]),
    (1100, &[48, 304, 3]),
    (200, &[8, 600, 1]),
];

/// A network, a batch and its targets, drawn from `r`.
struct Net {
    rows: usize,
    dims: Vec<usize>,
    /// Point-major, `[rows, dims[0]]`.
    x: Vec<f32>,
    w: Vec<Vec<f32>>,
    b: Vec<Vec<f32>>,
    t: Vec<f32>,
}

impl Net {
    fn draw(r: &mut ChaCha8Rng, rows: usize, dims: &[usize]) -> Net {
        let layers = dims.len() - 1;
        let mut x = uniform(r, rows * dims[0], -1.0, 1.0);
        // Some inputs exactly 0 and -0, where a first hidden unit may sit on ReLU's kink.
        for v in x.iter_mut().step_by(11) {
            *v = 0.0;
        }
        Net {
            rows,
            dims: dims.to_vec(),
            x,
            w: (0..layers)
                .map(|l| uniform(r, dims[l] * dims[l + 1], -0.6, 0.6))
                .collect(),
            b: (0..layers)
                .map(|l| uniform(r, dims[l + 1], -0.3, 0.3))
                .collect(),
            t: uniform(r, rows * dims[layers], -1.0, 1.0),
        }
    }

    /// The input laid out as `layout`.
    fn input(&self, layout: FeatureLayout) -> Vec<f32> {
        let d = self.dims[0];
        match layout {
            FeatureLayout::PointMajor => self.x.clone(),
            FeatureLayout::FeatureMajor => (0..d * self.rows)
                .map(|i| self.x[(i % self.rows) * d + i / self.rows])
                .collect(),
        }
    }
}

/// The f64 pass, with values and (run on magnitudes, with the same ReLU masks) error
/// scales: weight gradients, bias gradients, the point-major input gradient, the loss.
struct Reference {
    weights: Vec<Vec<Expect>>,
    biases: Vec<Vec<Expect>>,
    input: Vec<Expect>,
    loss: Expect,
}

/// `a (rows x k) w (k x n)` for values and magnitudes at once.
fn product(a: &[(f64, f64)], w: &[f32], rows: usize, k: usize, n: usize) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); rows * n];
    for r in 0..rows {
        for p in 0..k {
            let (v, s) = a[r * k + p];
            for j in 0..n {
                let wv = f64::from(w[p * n + j]);
                out[r * n + j].0 += v * wv;
                out[r * n + j].1 += s * wv.abs();
            }
        }
    }
    out
}

fn transposed(w: &[f32], k: usize, n: usize) -> Vec<f32> {
    (0..k * n).map(|i| w[(i % k) * n + i / k]).collect()
}

fn reference(net: &Net) -> Reference {
    let (rows, dims, layers) = (net.rows, &net.dims, net.dims.len() - 1);
    let mut acts = vec![
        net.x
            .iter()
            .map(|&v| (f64::from(v), f64::from(v).abs()))
            .collect::<Vec<_>>(),
    ];
    for l in 0..layers {
        let (k, n) = (dims[l], dims[l + 1]);
        let mut z = product(&acts[l], &net.w[l], rows, k, n);
        for (i, (v, s)) in z.iter_mut().enumerate() {
            let b = f64::from(net.b[l][i % n]);
            *v += b;
            *s += b.abs();
            if l + 1 < layers && *v <= 0.0 {
                *v = 0.0;
                *s = 0.0;
            }
        }
        acts.push(z);
    }
    let outputs = rows * dims[layers];
    let count = outputs as f64;
    let (mut loss, mut loss_scale) = (0.0, 0.0);
    let mut g: Vec<(f64, f64)> = acts[layers]
        .iter()
        .zip(&net.t)
        .map(|(&(y, s), &t)| {
            let d = y - f64::from(t);
            loss += d * d;
            loss_scale += (s + f64::from(t).abs()) * (y.abs() + f64::from(t).abs());
            (2.0 * d / count, 2.0 * (s + f64::from(t).abs()) / count)
        })
        .collect();
    let (mut weights, mut biases) = (vec![Vec::new(); layers], vec![Vec::new(); layers]);
    let mut input = Vec::new();
    for l in (0..layers).rev() {
        let (k, n) = (dims[l], dims[l + 1]);
        let a = &acts[l];
        let mut dw = vec![(0.0, 0.0); k * n];
        let mut db = vec![(0.0, 0.0); n];
        for r in 0..rows {
            for j in 0..n {
                let (gv, gs) = g[r * n + j];
                db[j].0 += gv;
                db[j].1 += gs;
                for p in 0..k {
                    let (av, as_) = a[r * k + p];
                    dw[p * n + j].0 += av * gv;
                    dw[p * n + j].1 += as_ * gs;
                }
            }
        }
        weights[l] = dw.iter().map(|&(v, s)| Expect::new(v, s)).collect();
        biases[l] = db.iter().map(|&(v, s)| Expect::new(v, s)).collect();
        let mut below = product(&g, &transposed(&net.w[l], k, n), rows, n, k);
        if l > 0 {
            for (i, (v, s)) in below.iter_mut().enumerate() {
                if a[i].0 <= 0.0 {
                    *v = 0.0;
                    *s = 0.0;
                }
            }
        } else {
            input = below.iter().map(|&(v, s)| Expect::new(v, s)).collect();
        }
        g = below;
    }
    Reference {
        weights,
        biases,
        input,
        loss: Expect::new(loss / count, loss_scale / count),
    }
}

/// The backend's pass on `net`: `None` when it has no fused pass (every output then
/// checked untouched), else the weight and bias gradients, the input gradient in the
/// input's layout (when asked for) and the loss.
#[allow(clippy::type_complexity)]
fn run<B: Backend>(
    b: &B,
    net: &Net,
    layout: FeatureLayout,
    with_input_grad: bool,
) -> Option<(Vec<Vec<f32>>, Vec<Vec<f32>>, Vec<f32>, f32)> {
    let what = format!("{}: relu_mlp_mse_pass {:?} {layout:?}", b.name(), net.dims);
    let layers = net.dims.len() - 1;
    let input = up(b, &net.input(layout));
    let target = up(b, &net.t);
    let (w, bias): (Vec<_>, Vec<_>) = (0..layers)
        .map(|l| (up(b, &net.w[l]), up(b, &net.b[l])))
        .unzip();
    let mut gw: Vec<_> = (0..layers).map(|l| nan_buffer(b, net.w[l].len())).collect();
    let mut gb: Vec<_> = (0..layers).map(|l| nan_buffer(b, net.b[l].len())).collect();
    let mut gx = nan_buffer(b, net.x.len());
    let mut loss = nan_buffer(b, 1);
    let (wr, br): (Vec<_>, Vec<_>) = (w.iter().collect(), bias.iter().collect());
    let (mut gwr, mut gbr): (Vec<_>, Vec<_>) = (gw.iter_mut().collect(), gb.iter_mut().collect());
    let pass = MlpPass {
        rows: net.rows,
        dims: &net.dims,
        input: &input,
        layout,
        weights: &wr,
        biases: &br,
        target: &target,
    };
    let out = MlpPassOut {
        weight_grads: &mut gwr,
        bias_grads: &mut gbr,
        input_grad: with_input_grad.then_some(&mut gx),
        loss: &mut loss,
    };
    let ran = ok(&what, b.relu_mlp_mse_pass(&pass, out));
    let gw: Vec<Vec<f32>> = gw.iter().map(|s| down(b, s)).collect();
    let gb: Vec<Vec<f32>> = gb.iter().map(|s| down(b, s)).collect();
    let (gx, loss) = (down(b, &gx), down(b, &loss)[0]);
    if !ran {
        let all_nan = gw
            .iter()
            .chain(&gb)
            .flatten()
            .chain(&gx)
            .all(|v| v.is_nan());
        assert!(all_nan && loss.is_nan(), "{what}: answered false but wrote");
        return None;
    }
    if !with_input_grad {
        assert!(
            gx.iter().all(|v| v.is_nan()),
            "{what}: wrote an input gradient not asked for"
        );
    }
    Some((gw, gb, gx, loss))
}

/// Every case, both layouts, with the input gradient, against f64.
pub fn matches_f64<B: Backend>(b: &B) {
    let mut r = rng("mlp_pass");
    for &(rows, dims) in CASES {
        let net = Net::draw(&mut r, rows, dims);
        let want = reference(&net);
        for layout in [FeatureLayout::PointMajor, FeatureLayout::FeatureMajor] {
            let what = format!(
                "{}: relu_mlp_mse_pass {rows} rows {dims:?} {layout:?}",
                b.name()
            );
            let Some((gw, gb, gx, loss)) = run(b, &net, layout, true) else {
                continue;
            };
            for l in 0..dims.len() - 1 {
                assert_close(
                    &format!("{what} weight {l}"),
                    &gw[l],
                    &want.weights[l],
                    SUM_TOL,
                );
                assert_close(
                    &format!("{what} bias {l}"),
                    &gb[l],
                    &want.biases[l],
                    SUM_TOL,
                );
            }
            let gx = match layout {
                FeatureLayout::PointMajor => gx,
                FeatureLayout::FeatureMajor => (0..gx.len())
                    .map(|i| gx[(i % dims[0]) * rows + i / dims[0]])
                    .collect(),
            };
            assert_close(&format!("{what} input gradient"), &gx, &want.input, SUM_TOL);
            assert_close(&format!("{what} loss"), &[loss], &[want.loss], SUM_TOL);
        }
    }
}

/// Without the input gradient, the parameter gradients are the same bits.
pub fn input_gradient_is_optional<B: Backend>(b: &B) {
    let mut r = rng("mlp_pass_optional");
    let net = Net::draw(&mut r, 1500, &[32, 64, 64, 3]);
    for layout in [FeatureLayout::PointMajor, FeatureLayout::FeatureMajor] {
        let (Some(with), Some(without)) = (run(b, &net, layout, true), run(b, &net, layout, false))
        else {
            continue;
        };
        for l in 0..3 {
            assert_same_bits("weight gradient", &with.0[l], &without.0[l]);
            assert_same_bits("bias gradient", &with.1[l], &without.1[l]);
        }
    }
}

/// Shapes that do not fit are errors, before the backend is asked.
pub fn refuses_bad_shapes<B: Backend>(b: &B) {
    let t = |dims: &[usize]| Tensor::zeros(b, dims.to_vec()).expect("allocation");
    let (x, w0, b0, w1, b1, target) = (
        t(&[10, 3]),
        t(&[3, 4]),
        t(&[4]),
        t(&[4, 2]),
        t(&[2]),
        t(&[10, 2]),
    );
    let (mut gw0, mut gb0, mut gw1, mut gb1, mut loss) =
        (t(&[3, 4]), t(&[4]), t(&[4, 2]), t(&[2]), t(&[1]));
    let layers = [
        DenseRef {
            weight: &w0,
            bias: &b0,
        },
        DenseRef {
            weight: &w1,
            bias: &b1,
        },
    ];
    let mut grads = [
        DenseGrad {
            weight: &mut gw0,
            bias: &mut gb0,
        },
        DenseGrad {
            weight: &mut gw1,
            bias: &mut gb1,
        },
    ];
    let pm = FeatureLayout::PointMajor;
    // Feature-major, the input [10, 3] has 3 points of 10 features: the first weight is wrong.
    let fm = relu_mlp_mse_pass(
        &x,
        FeatureLayout::FeatureMajor,
        &layers,
        &target,
        &mut grads,
        None,
        &mut loss,
    );
    assert!(
        fm.is_err(),
        "{}: a weight of the wrong height was accepted",
        b.name()
    );
    let short_target = t(&[9, 2]);
    let r = relu_mlp_mse_pass(&x, pm, &layers, &short_target, &mut grads, None, &mut loss);
    assert!(
        r.is_err(),
        "{}: targets of the wrong rows were accepted",
        b.name()
    );
    let mut gx = t(&[10, 4]);
    let r = relu_mlp_mse_pass(
        &x,
        pm,
        &layers,
        &target,
        &mut grads,
        Some(&mut gx),
        &mut loss,
    );
    assert!(
        r.is_err(),
        "{}: an input gradient of the wrong shape was accepted",
        b.name()
    );
    let r = relu_mlp_mse_pass(&x, pm, &layers[..1], &target, &mut grads, None, &mut loss);
    assert!(
        r.is_err(),
        "{}: one layer with two gradients was accepted",
        b.name()
    );
    let ok_call = relu_mlp_mse_pass(&x, pm, &layers, &target, &mut grads, None, &mut loss);
    assert!(
        ok_call.is_ok(),
        "{}: a well-formed pass failed: {ok_call:?}",
        b.name()
    );
}
