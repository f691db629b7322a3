//! Hash-grid networks exported to ONNX and run in tract: against `predict` (what `image
//! render` draws) for 1-, 2- and 3-D grids with dense and hashed levels, points outside the
//! range and on grid lines; the spatial hash bit for bit against an independent computation
//! at resolutions where its 32-bit products wrap; and the `float16` export.

use super::{assert_within, check, check_within, inputs, names, run_tract};
use io::Standardizer;
use io::fitted::{FittedModel, ModelInfo};
use nn::{Activation, GridScale, HashGridMlp, HashGridMlpConfig, Model, NamedArray};
use onnx::Precision;
use tensor_cpu::CpuBackend;

/// A hash-grid network of `config` whose tables are drawn from U(-1, 1) (instead of the
/// initial U(-1e-4, 1e-4)), so that the encoding dominates its outputs.
fn grid_net(config: &HashGridMlpConfig, seed: u64) -> HashGridMlp<CpuBackend> {
    let mut net = HashGridMlp::from_config(&CpuBackend::new(), config, seed).unwrap();
    let mut state = net.export_state().unwrap();
    let tables = state
        .iter_mut()
        .find(|a| a.name == "encoding.tables")
        .unwrap();
    for (i, v) in tables.data.iter_mut().enumerate() {
        *v = ((i as f32 * 0.7548 + seed as f32).sin() * 43_758.547).fract();
    }
    net.import_state(&state).unwrap();
    net
}

fn config(
    input: usize,
    levels: usize,
    log2_table_size: u32,
    base: u32,
    finest: u32,
) -> HashGridMlpConfig {
    HashGridMlpConfig {
        input,
        levels,
        log2_table_size,
        base_resolution: base,
        scale: GridScale::Finest(finest),
        hidden: vec![32, 16],
        ..HashGridMlpConfig::new(3, finest)
    }
}

/// The coordinate grid of a `w x h` picture, then points outside `[-1, 1]` and on the
/// corners.
fn image_points(w: usize, h: usize) -> Vec<f32> {
    let mut x = io::image::coords::coordinate_grid(w, h);
    x.extend([
        -1.5, 0.2, 1.5, -3.0, 1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 2.0, 2.0,
    ]);
    x
}

#[test]
fn hash_grid_image_model_matches_render() {
    // 8 levels from 4 to 256 cells, tables of 2^10: levels above 31 cells are hashed.
    let c = config(2, 8, 10, 4, 256);
    let spec = c.validate().unwrap();
    assert!(spec.levels().iter().any(|l| l.hashed) && spec.levels().iter().any(|l| !l.hashed));
    let info = ModelInfo::image(40, 30, &["r", "g", "b"]).with_targets(Standardizer {
        mean: vec![0.41, 0.52, 0.33],
        std: vec![1.0; 3],
    });
    let model = FittedModel::new(grid_net(&c, 1), info).unwrap();
    let (abs, _) = check(
        "hash grid RGB image (57x43 grid)",
        &model,
        &image_points(57, 43),
    );
    assert!(abs <= 1e-5);
    // The outputs are not all clamped: the test would pass on a constant otherwise.
    let p = model.predict(&image_points(57, 43)).unwrap().values;
    let inside = p.iter().filter(|v| **v > 0.0 && **v < 1.0).count();
    assert!(
        inside > p.len() / 4,
        "{inside} of {} inside (0, 1)",
        p.len()
    );
    // One row runs; a NaN coordinate still looks up rows inside the table (an index out of
    // range would stop the graph) and leaves the other rows alone. Its own values depend on
    // how the runtime's Relu treats NaN, so they are not compared.
    let bytes = onnx::export(&model).unwrap();
    // tract runs its own kernels, chosen for this CPU and this batch size, so its sums round
    // differently from ours and from its own on another batch: within `check`'s bound.
    let (one, _) = run_tract(&bytes, &[0.25, 0.3], 2);
    let ours = model.predict(&[0.25, 0.3]).unwrap().values;
    assert_within("one row", &one, &ours, 1e-5);
    let (nan, _) = run_tract(&bytes, &[f32::NAN, 0.3, 0.25, 0.3], 2);
    assert_within("the row beside a NaN row", &nan[3..], &one, 1e-5);
}

#[test]
fn one_and_three_dimensional_grids_with_standardised_regression() {
    for (dims, levels, log2, base, finest) in [(1, 6, 6, 8, 2048), (3, 5, 12, 2, 64)] {
        let c = HashGridMlpConfig {
            input_range: [-2.0, 3.0],
            output: 2,
            output_activation: Activation::Sigmoid,
            ..config(dims, levels, log2, base, finest)
        };
        let spec = c.validate().unwrap();
        assert!(
            spec.levels().iter().any(|l| l.hashed),
            "{dims}-D has hashed levels"
        );
        let info = ModelInfo::regression(&names(dims), &["u".to_string(), "v".to_string()])
            .with_features(Standardizer {
                mean: vec![1.0; dims],
                std: vec![2.0; dims],
            })
            .with_targets(Standardizer {
                mean: vec![10.0, -1.0],
                std: vec![3.0, 0.5],
            });
        let model = FittedModel::new(grid_net(&c, 2), info).unwrap();
        let x = inputs(300, dims, 4.0, 1.0);
        check(&format!("{dims}-D hash grid, sigmoid output"), &model, &x);
    }
}

/// One hashed level whose table holds its own row numbers, read through a network that
/// passes the feature on unchanged: at a vertex the output is the vertex's table entry,
/// which must equal the spatial hash computed here in `u32` arithmetic.
#[test]
fn spatial_hash_is_exact_where_the_products_wrap() {
    for dims in [2usize, 3] {
        let res = 1u32 << 20;
        let log2 = 16;
        let c = HashGridMlpConfig {
            input: dims,
            input_range: [0.0, 1.0],
            levels: 1,
            features: 1,
            log2_table_size: log2,
            base_resolution: res,
            scale: GridScale::Finest(res),
            hidden: vec![1],
            output: 1,
            output_activation: Activation::Identity,
        };
        assert!(c.validate().unwrap().levels()[0].hashed);
        let mut net = HashGridMlp::from_config(&CpuBackend::new(), &c, 0).unwrap();
        let rows = 1usize << log2;
        let state = vec![
            NamedArray::new(
                "encoding.tables",
                vec![rows, 1],
                (0..rows).map(|r| r as f32).collect(),
            )
            .unwrap(),
            NamedArray::new("input.weight", vec![1, 1], vec![1.0]).unwrap(),
            NamedArray::new("input.bias", vec![1], vec![0.0]).unwrap(),
            NamedArray::new("layers.0.weight", vec![1, 1], vec![1.0]).unwrap(),
            NamedArray::new("layers.0.bias", vec![1], vec![0.0]).unwrap(),
        ];
        net.import_state(&state).unwrap();
        let model = FittedModel::new(
            net,
            ModelInfo::regression(&names(dims), &["entry".to_string()]),
        )
        .unwrap();
        let primes = [1u32, 2_654_435_761, 805_459_861];
        let mut x = Vec::new();
        let mut expected = Vec::new();
        for i in 0..200u32 {
            let vertex: Vec<u32> = (0..dims as u32)
                .map(|k| (i.wrapping_mul(2_246_822_519).rotate_left(7 + 5 * k)) % res)
                .collect();
            let hash = vertex
                .iter()
                .zip(primes)
                .fold(0u32, |h, (&v, p)| h ^ v.wrapping_mul(p));
            expected.push((hash & (rows as u32 - 1)) as f32);
            x.extend(vertex.iter().map(|&v| v as f32 / res as f32));
        }
        let bytes = onnx::export(&model).unwrap();
        let (got, _) = run_tract(&bytes, &x, dims);
        assert_eq!(got, expected, "{dims}-D: ONNX entries against the u32 hash");
        assert_eq!(
            model.predict(&x).unwrap().values,
            expected,
            "{dims}-D: predict"
        );
    }
}

/// The file declares operator set 18 and the kind of network; `float16` halves the tables
/// and weights, stays close to the `float32` graph, and refuses values beyond its range.
#[test]
fn half_precision_export() {
    let c = config(2, 8, 12, 4, 512);
    let info = ModelInfo::image(64, 64, &["r", "g", "b"]).with_targets(Standardizer {
        mean: vec![0.5; 3],
        std: vec![1.0; 3],
    });
    let model = FittedModel::new(grid_net(&c, 3), info).unwrap();
    let proto = onnx::to_model_proto(&model).unwrap();
    assert_eq!(proto.opset_import[0].version, onnx::hashgrid::OPSET);
    let kind = proto.metadata_props.iter().find(|p| p.key == "model_kind");
    assert_eq!(kind.map(|p| p.value.as_str()), Some("hash_grid_mlp"));

    let full = onnx::export(&model).unwrap();
    let half = onnx::export_with(&model, Precision::Float16).unwrap();
    let ratio = half.len() as f64 / full.len() as f64;
    eprintln!(
        "float32 {} bytes, float16 {} bytes ({ratio:.3})",
        full.len(),
        half.len()
    );
    assert!(
        (0.5..0.53).contains(&ratio),
        "float16 file is {ratio} of float32"
    );

    let x = io::image::coords::coordinate_grid(64, 64);
    let (a, _) = run_tract(&full, &x, 2);
    let (b, _) = run_tract(&half, &x, 2);
    let worst = a
        .iter()
        .zip(&b)
        .map(|(p, q)| (p - q).abs())
        .fold(0f32, f32::max);
    let mse = a.iter().zip(&b).map(|(p, q)| (p - q).powi(2)).sum::<f32>() / a.len() as f32;
    let psnr = -10.0 * mse.log10();
    eprintln!("float16 against float32: max abs difference {worst:.2e}, PSNR {psnr:.1} dB");
    assert!(worst > 0.0 && worst < 2e-2, "max difference {worst}");
    assert!(psnr > 50.0, "PSNR {psnr}");
    check_within("float32 graph", &model, &x, 1e-5);
}

#[test]
fn half_precision_refuses_values_beyond_float16() {
    let c = config(2, 2, 8, 4, 8);
    let mut net = grid_net(&c, 4);
    let mut state = net.export_state().unwrap();
    let w = state.iter_mut().find(|a| a.name == "input.weight").unwrap();
    w.data[3] = 1e6;
    net.import_state(&state).unwrap();
    let model = FittedModel::new(net, ModelInfo::image(8, 8, &["r", "g", "b"])).unwrap();
    let err = onnx::export_with(&model, Precision::Float16)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("input_weight") && err.contains("float16"),
        "{err}"
    );
    assert!(onnx::export(&model).is_ok());
}
