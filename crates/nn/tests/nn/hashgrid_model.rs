//! The hash-grid model: gradients against central differences of an f64 host reference
//! (encoding and network), bad configurations, prediction in chunks, learning.

use crate::common::*;
use nn::prelude::*;
use nn::{GridScale, HashGridMlp, HashGridMlpConfig};
use tensor_core::HashGridSpec;
use tensor_cpu::CpuBackend;

/// A small model with a dense level and hashed ones (T = 2^5 entries per level).
fn small_config() -> HashGridMlpConfig {
    HashGridMlpConfig {
        levels: 3,
        features: 2,
        log2_table_size: 5,
        base_resolution: 3,
        scale: GridScale::Finest(12),
        hidden: vec![5, 4],
        ..HashGridMlpConfig::new(2, 12)
    }
}

/// The encoding of one point (already in `[0, 1]^2`) in f64, per the definition.
fn encode64(spec: &HashGridSpec, tables: &[f64], u: [f64; 2]) -> Vec<f64> {
    let f = spec.features();
    let mut out = Vec::new();
    for level in spec.levels() {
        let n = level.resolution as f64;
        let cell = |x: f64| {
            let p = x.clamp(0.0, 1.0) * n;
            let i = p.floor().min(n - 1.0);
            (i as u32, p - i)
        };
        let ((i0, w0), (i1, w1)) = (cell(u[0]), cell(u[1]));
        let mut acc = vec![0.0; f];
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (a, b) = (i0 + dx, i1 + dy);
            let entry = if level.hashed {
                (a ^ b.wrapping_mul(2_654_435_761)) % level.table_size
            } else {
                a + b * (level.resolution + 1)
            };
            let weight =
                (if dx == 1 { w0 } else { 1.0 - w0 }) * (if dy == 1 { w1 } else { 1.0 - w1 });
            let row = (level.offset + entry as usize) * f;
            for k in 0..f {
                acc[k] += weight * tables[row + k];
            }
        }
        out.extend(acc);
    }
    out
}

/// The model's parameters in f64, in `visit_params` order.
fn params64(m: &HashGridMlp<CpuBackend>) -> Vec<Vec<f64>> {
    params(m)
        .into_iter()
        .map(|p| p.1.iter().map(|&v| v as f64).collect())
        .collect()
}

/// The f64 reference of the whole model for points `x` (in `[-1, 1]^2`).
fn forward64(spec: &HashGridSpec, c: &HashGridMlpConfig, p: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    let rows = x.len() / 2;
    let mut h: Vec<f64> = x
        .chunks(2)
        .flat_map(|q| encode64(spec, &p[0], [(q[0] + 1.0) / 2.0, (q[1] + 1.0) / 2.0]))
        .collect();
    let mut dims = vec![spec.output_dim()];
    dims.extend(&c.hidden);
    dims.push(c.output);
    for l in 0..dims.len() - 1 {
        let act = if l + 2 == dims.len() {
            c.output_activation
        } else {
            Activation::Relu
        };
        let layer = RefLayer::Linear {
            w: p[1 + 2 * l].clone(),
            b: p[2 + 2 * l].clone(),
            i: dims[l],
            o: dims[l + 1],
            act,
        };
        h = layer.forward(&h, rows);
    }
    h
}

#[test]
fn gradients_match_finite_differences_of_an_f64_reference() {
    let cpu = CpuBackend::new();
    let config = small_config();
    let spec = config.validate().unwrap();
    assert!(spec.levels().iter().any(|l| l.hashed) && spec.levels().iter().any(|l| !l.hashed));
    let mut model = HashGridMlp::from_config(&cpu, &config, 3).unwrap();
    // Tables of order 1, so that every path carries a sizeable gradient.
    let mut state = model.export_state().unwrap();
    let mut r = rng(9);
    state[0].data = uniform(&mut r, state[0].data.len(), -1.0, 1.0);
    model.import_state(&state).unwrap();
    // Points away from grid lines (where the encoding has kinks), and targets.
    let rows = 7;
    let x = uniform(&mut r, rows * 2, -0.95, 0.95);
    let y = uniform(&mut r, rows * 2, -1.0, 1.0);
    let (xt, yt) = (tensor(&cpu, &x, rows, 2), tensor(&cpu, &y, rows, 2));
    let pred = model.forward(&xt).unwrap().to_vec().unwrap();
    let loss = Loss::Mse.compute(model.output().unwrap(), &yt).unwrap();
    model.backward_params(&xt, &loss.grad).unwrap();
    let analytic: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();

    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
    let mut p = params64(&model);
    let reference = forward64(&spec, &config, &p, &x64);
    for (a, b) in pred.iter().zip(&reference) {
        assert!(
            (*a as f64 - b).abs() < 1e-4 * (1.0 + b.abs()),
            "forward {a} vs {b}"
        );
    }
    let f = |p: &[Vec<f64>]| {
        ref_loss(
            Loss::Mse,
            &forward64(&spec, &config, p, &x64),
            &y64,
            rows,
            2,
        )
    };
    let h = 1e-6;
    let mut numeric = Vec::new();
    for t in 0..p.len() {
        for k in 0..p[t].len() {
            let orig = p[t][k];
            p[t][k] = orig + h;
            let plus = f(&p);
            p[t][k] = orig - h;
            let minus = f(&p);
            p[t][k] = orig;
            numeric.push((plus - minus) / (2.0 * h));
        }
    }
    let touched = numeric[..p[0].len()]
        .iter()
        .filter(|g| g.abs() > 1e-6)
        .count();
    assert!(
        touched >= 20,
        "only {touched} table entries have a gradient"
    );
    assert_close("hash-grid model gradients", &analytic, &numeric);

    // Accumulating: a second backward pass adds the same gradients again.
    model.set_accumulate_grads(true);
    model.forward(&xt).unwrap();
    model.backward_params(&xt, &loss.grad).unwrap();
    let doubled: Vec<f32> = params(&model).into_iter().flat_map(|p| p.2).collect();
    for (d, a) in doubled.iter().zip(&analytic) {
        assert!(
            (d - 2.0 * a).abs() <= 1e-5 * (1.0 + a.abs()),
            "{d} vs 2 x {a}"
        );
    }
}

#[test]
fn every_bad_parameter_is_one_clear_line() {
    let cpu = CpuBackend::new();
    let base = HashGridMlpConfig::new(3, 256);
    let cases: Vec<(HashGridMlpConfig, &str)> = vec![
        (
            HashGridMlpConfig {
                levels: 0,
                ..base.clone()
            },
            "level",
        ),
        (
            HashGridMlpConfig {
                features: 9,
                ..base.clone()
            },
            "feature",
        ),
        (
            HashGridMlpConfig {
                log2_table_size: 25,
                ..base.clone()
            },
            "table",
        ),
        (
            HashGridMlpConfig {
                base_resolution: 512,
                ..base.clone()
            },
            "resolution",
        ),
        (
            HashGridMlpConfig {
                hidden: vec![],
                ..base.clone()
            },
            "hidden",
        ),
        (
            HashGridMlpConfig {
                input_range: [1.0, 1.0],
                ..base.clone()
            },
            "range",
        ),
    ];
    for (config, word) in cases {
        let err = HashGridMlp::<CpuBackend>::from_config(&cpu, &config, 0)
            .err()
            .unwrap()
            .to_string();
        assert!(!err.contains('\n'), "{err}");
        assert!(err.to_lowercase().contains(word), "`{word}` not in: {err}");
    }
}

#[test]
fn backward_with_respect_to_the_inputs_is_refused() {
    let cpu = CpuBackend::new();
    let mut m = HashGridMlp::from_config(&cpu, &small_config(), 1).unwrap();
    let x = tensor(&cpu, &[0.1, 0.2], 1, 2);
    let g = tensor(&cpu, &[1.0, 1.0], 1, 2);
    assert!(m.backward_params(&x, &g).is_err(), "no forward pass yet");
    m.forward(&x).unwrap();
    assert!(m.backward(&x, &g).is_err());
}

#[test]
fn predict_in_chunks_matches_the_training_forward() {
    let cpu = CpuBackend::new();
    let config = HashGridMlpConfig {
        log2_table_size: 12,
        ..HashGridMlpConfig::new(3, 64)
    };
    let mut m = HashGridMlp::from_config(&cpu, &config, 2).unwrap();
    let mut state = m.export_state().unwrap();
    state[0].data = uniform(&mut rng(1), state[0].data.len(), -0.5, 0.5);
    m.import_state(&state).unwrap();
    // More rows than one prediction chunk holds.
    let rows = 40_000;
    let x = tensor(&cpu, &uniform(&mut rng(2), rows * 2, -1.2, 1.2), rows, 2);
    let trained = m.forward(&x).unwrap().to_vec().unwrap();
    let predicted = m.predict(&x).unwrap().to_vec().unwrap();
    // The chunks' row counts may pick other product kernels than the whole batch's, whose
    // sums round differently: within 1e-5 relative to max(1, |value|), far below the error of
    // a row out of place.
    assert_eq!(trained.len(), predicted.len());
    for (i, (a, b)) in trained.iter().zip(&predicted).enumerate() {
        assert!((a - b).abs() <= 1e-5 * a.abs().max(1.0), "[{i}] {a} vs {b}");
    }
}

#[test]
fn a_hash_grid_fits_an_image_quickly() {
    let cpu = CpuBackend::new();
    let n = 48;
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let target = rings(n);
    let y = tensor(&cpu, &target, n * n, 1);
    let config = HashGridMlpConfig {
        log2_table_size: 14,
        ..HashGridMlpConfig::new(1, n as u32)
    };
    let mut m = HashGridMlp::from_config(&cpu, &config, 4).unwrap();
    let mut adam = Adam::new(AdamConfig::hash_grid(1e-2)).unwrap();
    let mut t = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(150),
        ..TrainerConfig::default()
    }))
    .unwrap();
    t.fit(&mut m, &mut adam, Data::new(&x, &y), None).unwrap();
    let pred = m.predict(&x).unwrap().to_vec().unwrap();
    let db = psnr(&pred, &target);
    assert!(db > 30.0, "PSNR {db:.1} dB");
}

/// The training pass in one backend call (the CPU's fused ReLU pass, tile by tile) gives
/// the loss and every gradient of the layer-by-layer pass, whose gradients are checked
/// against finite differences above: at the default widths (32 -> 64 -> 64 -> 3), over
/// several chunks and a ragged last tile.
#[test]
fn the_fused_training_pass_agrees_with_the_layer_by_layer_pass() {
    let cpu = CpuBackend::new();
    let config = HashGridMlpConfig {
        log2_table_size: 12,
        input_range: [0.0, 1.0],
        ..HashGridMlpConfig::new(3, 256)
    };
    let mut fused = HashGridMlp::from_config(&cpu, &config, 4).unwrap();
    let mut layered = HashGridMlp::from_config(&cpu, &config, 4).unwrap();
    // Tables of order 0.1, so that the network sees varied features.
    let mut state = fused.export_state().unwrap();
    let mut r = rng(21);
    state[0].data = uniform(&mut r, state[0].data.len(), -0.1, 0.1);
    fused.import_state(&state).unwrap();
    layered.import_state(&state).unwrap();
    let rows = 5000;
    let x = tensor(&cpu, &uniform(&mut r, rows * 2, 0.0, 1.0), rows, 2);
    let y = tensor(&cpu, &uniform(&mut r, rows * 3, 0.0, 1.0), rows, 3);
    let mut grad = tensor(&cpu, &vec![0.0; rows * 3], rows, 3);
    let (mut loss_a, mut loss_b) = (T::zeros(&cpu, [1]).unwrap(), T::zeros(&cpu, [1]).unwrap());
    fused
        .train_pass(&x, &y, Loss::Mse, &mut grad, &mut loss_a)
        .unwrap();
    nn::layer::train_pass_by_layers(&mut layered, &x, &y, Loss::Mse, &mut grad, &mut loss_b)
        .unwrap();
    let (a, b) = (loss_a.to_scalar().unwrap(), loss_b.to_scalar().unwrap());
    assert!((a - b).abs() <= 1e-6 * b.abs(), "loss {a} vs {b}");
    for ((name, _, ga), (_, _, gb)) in params(&fused).into_iter().zip(params(&layered)) {
        let scale = gb.iter().fold(0f32, |m, v| m.max(v.abs()));
        assert!(scale > 0.0, "{name}: no gradient");
        for (i, (u, v)) in ga.iter().zip(&gb).enumerate() {
            assert!(
                (u - v).abs() <= 1e-5 * scale,
                "{name}[{i}]: fused {u} vs layer by layer {v} (largest {scale})"
            );
        }
    }
}

/// A configuration counts the parameters of the model it builds, before building it.
#[test]
fn the_configuration_counts_the_models_parameters() {
    let cpu = CpuBackend::new();
    for config in [small_config(), HashGridMlpConfig::new(3, 300)] {
        let model = HashGridMlp::from_config(&cpu, &config, 1).unwrap();
        assert_eq!(config.num_params().unwrap(), model.num_params());
    }
    let bad = HashGridMlpConfig {
        hidden: vec![],
        ..small_config()
    };
    assert!(bad.num_params().is_err());
}
