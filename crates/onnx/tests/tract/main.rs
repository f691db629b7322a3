//! Every exported graph, run in tract, against the fitted model's own predictions: MLPs of
//! each activation, SIREN, Fourier features, positional encoding; regression,
//! classification and image models. The tolerance is `|onnx - ours| <= 1e-5 * max(|ours|, 1)`
//! (a relative difference of 1e-5, absolute for values below 1 such as probabilities),
//! except for Gaussian Fourier features at sigma 8: there the angles `2 pi x B` reach about
//! 200 rad, where one float32 step is 1.5e-5, and both implementations were measured about
//! 9e-6 from a float64 evaluation of the same network (1.0e-5 from each other), so the bound
//! is 2e-5.

use io::Standardizer;
use io::fitted::{FittedModel, ModelInfo};
use nn::{Activation, Init, Mlp, MlpBuilder};
use prost::Message;
use tensor_cpu::CpuBackend;
use tract_onnx::prelude::*;

mod custom_model;
mod hashgrid;
mod runtime;
mod table;
mod table_piecewise;
mod target_range;

/// Runs ONNX bytes in tract on `x` (`rows x features`): as one `coordinates` matrix for an
/// image model, else as one `[rows, 1]` input per column; returns the values and shape of
/// the last output (`prediction`, `probabilities` or `pixels`).
fn run_tract(bytes: &[u8], x: &[f32], features: usize) -> (Vec<f32>, Vec<usize>) {
    let out = run_tract_all(bytes, x, features);
    let view = out.last().unwrap().to_array_view::<f32>().unwrap();
    (view.iter().copied().collect(), view.shape().to_vec())
}

/// [`run_tract`], returning every output.
fn run_tract_all(bytes: &[u8], x: &[f32], features: usize) -> TVec<TValue> {
    let rows = x.len() / features;
    let proto = onnx::proto::ModelProto::decode(bytes).unwrap();
    let matrix = proto.graph.as_ref().unwrap().input.len() == 1 && features > 1;
    let inputs: Vec<Tensor> = if matrix {
        vec![Tensor::from_shape(&[rows, features], x).unwrap()]
    } else {
        (0..features)
            .map(|c| {
                let column: Vec<f32> = x.iter().skip(c).step_by(features).copied().collect();
                Tensor::from_shape(&[rows, 1], &column).unwrap()
            })
            .collect()
    };
    let mut model = tract_onnx::onnx()
        .model_for_read(&mut &bytes[..])
        .expect("tract reads the file");
    for (i, t) in inputs.iter().enumerate() {
        model = model
            .with_input_fact(i, f32::fact(t.shape()).into())
            .unwrap();
    }
    model
        .into_optimized()
        .expect("tract optimises the graph")
        .into_runnable()
        .unwrap()
        .run(inputs.into_iter().map(TValue::from).collect())
        .expect("tract runs the graph")
}

/// The `label` output of a graph, as strings.
/// The values of a float output, in order.
fn floats(value: &TValue) -> Vec<f32> {
    value
        .to_array_view::<f32>()
        .unwrap()
        .iter()
        .copied()
        .collect()
}

fn graph_labels(label: &TValue) -> Vec<String> {
    label
        .to_array_view::<String>()
        .unwrap()
        .iter()
        .cloned()
        .collect()
}

/// The class labels `predict` writes, row by row.
fn predicted_labels(ours: &io::fitted::Predictions) -> Vec<String> {
    (0..ours.rows)
        .map(|r| ours.label_text(r).unwrap())
        .collect()
}

/// Panics unless `got` and `want` have the same length and each pair differs by at most
/// `tol` relative to `max(1, |want|)`: the bound for results of different arithmetic (tract
/// against our kernels, or one batch size against another), whose sums round differently.
#[track_caller]
fn assert_within(what: &str, got: &[f32], want: &[f32], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let d = (f64::from(*a) - f64::from(*b)).abs();
        assert!(
            d <= tol * f64::from(b.abs()).max(1.0),
            "{what}: [{i}] {a} vs {b}"
        );
    }
}

/// Exports `model`, runs it on `x` in tract, compares with `model.predict`; returns the
/// largest (absolute, relative) differences.
fn check(name: &str, model: &FittedModel<CpuBackend>, x: &[f32]) -> (f64, f64) {
    check_within(name, model, x, 1e-5)
}

fn check_within(name: &str, model: &FittedModel<CpuBackend>, x: &[f32], tol: f64) -> (f64, f64) {
    let bytes = onnx::export(model).unwrap();
    let f = model.feature_names().len();
    let out = run_tract_all(&bytes, x, f);
    let view = out.last().unwrap().to_array_view::<f32>().unwrap();
    let (got, shape): (Vec<f32>, Vec<usize>) =
        (view.iter().copied().collect(), view.shape().to_vec());
    let ours = model.predict(x).unwrap();
    if ours.labels.is_some() {
        assert_eq!(
            graph_labels(&out[0]),
            predicted_labels(&ours),
            "{name}: labels"
        );
    } else {
        assert_eq!(out.len(), 1, "{name}: one output");
    }
    assert_eq!(
        shape,
        vec![ours.rows, ours.columns.len()],
        "{name}: output shape"
    );
    let (mut abs, mut rel) = (0f64, 0f64);
    for (a, b) in got.iter().zip(&ours.values) {
        let d = (*a as f64 - *b as f64).abs();
        abs = abs.max(d);
        rel = rel.max(d / (*b as f64).abs().max(1.0));
    }
    eprintln!(
        "{name}: {} rows, max abs difference {abs:.3e}, max relative {rel:.3e}",
        ours.rows
    );
    assert!(
        rel <= tol,
        "{name}: ONNX and predict differ by {rel:e} (relative)"
    );
    (abs, rel)
}

fn inputs(rows: usize, features: usize, scale: f32, offset: f32) -> Vec<f32> {
    (0..rows * features)
        .map(|i| offset + scale * ((i as f32 * 0.618).sin() + 0.3 * (i as f32 * 1.7).cos()))
        .collect()
}

fn net(builder: MlpBuilder<CpuBackend>, seed: u64) -> Mlp<CpuBackend> {
    builder.build(&CpuBackend::new(), seed).unwrap()
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("f{i}")).collect()
}

#[test]
fn regression_mlp_with_standardisation() {
    let network = net(
        Mlp::builder()
            .input(4)
            .hidden(&[32, 16], Activation::Tanh)
            .output(1, Activation::Identity),
        1,
    );
    let info = ModelInfo::regression(&names(4), &["price".to_string()])
        .with_features(Standardizer {
            mean: vec![50.0, -3.0, 0.2, 1000.0],
            std: vec![20.0, 0.5, 0.1, 300.0],
        })
        .with_targets(Standardizer {
            mean: vec![250.0],
            std: vec![80.0],
        });
    let model = FittedModel::new(network, info).unwrap();
    let mut x = inputs(200, 4, 1.0, 0.0);
    for (i, v) in x.iter_mut().enumerate() {
        *v = [50.0, -3.0, 0.2, 1000.0][i % 4] + *v * [20.0, 0.5, 0.1, 300.0][i % 4];
    }
    check("regression tanh MLP", &model, &x);
}

#[test]
fn binary_and_multiclass_classifiers_give_probabilities() {
    let binary = net(
        Mlp::builder()
            .input(3)
            .hidden(&[24, 24], Activation::LeakyRelu { alpha: 0.05 })
            .output(1, Activation::Identity),
        2,
    );
    let info =
        ModelInfo::classification(&names(3), "label", vec![0.0, 1.0]).with_features(Standardizer {
            mean: vec![0.5, 0.0, -1.0],
            std: vec![2.0, 1.0, 3.0],
        });
    let model = FittedModel::new(binary, info).unwrap();
    check(
        "binary leaky-ReLU classifier",
        &model,
        &inputs(150, 3, 4.0, 0.0),
    );

    let multi = net(
        Mlp::builder()
            .input(2)
            .hidden(&[16], Activation::Sigmoid)
            .output(4, Activation::Identity),
        3,
    );
    let info = ModelInfo::classification(&names(2), "k", vec![1.0, 2.0, 3.0, 5.0]);
    let model = FittedModel::new(multi, info).unwrap();
    check(
        "4-class sigmoid classifier",
        &model,
        &inputs(150, 2, 3.0, 0.0),
    );

    let relu = net(
        Mlp::builder()
            .input(2)
            .hidden(&[16, 16], Activation::Relu)
            .output(3, Activation::Identity),
        4,
    );
    let info = ModelInfo::classification(&names(2), "k", vec![0.0, 1.0, 2.0]);
    check(
        "3-class ReLU classifier",
        &FittedModel::new(relu, info).unwrap(),
        &inputs(150, 2, 3.0, 0.0),
    );
}

#[test]
fn siren_image_model_after_a_save_and_load() {
    let siren = net(
        Mlp::builder()
            .input(2)
            .hidden(&[64, 64, 64], Activation::Sine { w0: 30.0 })
            .init(Init::Siren)
            .output(1, Activation::Identity),
        5,
    );
    let info = ModelInfo::image(40, 30, &["value"]).with_targets(Standardizer {
        mean: vec![0.55],
        std: vec![1.0],
    });
    let model = FittedModel::new(siren, info).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("siren.safetensors");
    model.save(&path).unwrap();
    let loaded = FittedModel::load(&path, &CpuBackend::new()).unwrap();
    let grid = io::image::coords::coordinate_grid(57, 43);
    check("SIREN image (57x43 grid)", &loaded, &grid);
}

#[test]
fn fourier_and_positional_encodings() {
    let fourier = net(
        Mlp::builder()
            .input(2)
            .fourier_features(64, 8.0)
            .hidden(&[64, 64], Activation::Relu)
            .output(3, Activation::Identity),
        6,
    );
    let info = ModelInfo::image(16, 16, &["r", "g", "b"]).with_targets(Standardizer {
        mean: vec![0.4, 0.5, 0.6],
        std: vec![1.0; 3],
    });
    let model = FittedModel::new(fourier, info).unwrap();
    check_within(
        "Fourier-feature RGB image (sigma 8)",
        &model,
        &io::image::coords::coordinate_grid(31, 29),
        2e-5,
    );

    let sigmoid_out = net(
        Mlp::builder()
            .input(2)
            .fourier_features(32, 4.0)
            .hidden(&[32], Activation::Relu)
            .output(1, Activation::Sigmoid),
        7,
    );
    let model = FittedModel::new(sigmoid_out, ModelInfo::image(8, 8, &["value"])).unwrap();
    check(
        "Fourier image with a sigmoid output",
        &model,
        &io::image::coords::coordinate_grid(20, 20),
    );

    let positional = net(
        Mlp::builder()
            .input(3)
            .positional_encoding(6, true)
            .hidden(&[32], Activation::Tanh)
            .output(2, Activation::Identity),
        8,
    );
    let info = ModelInfo::regression(&names(3), &["u".to_string(), "v".to_string()]).with_targets(
        Standardizer {
            mean: vec![1.0, -1.0],
            std: vec![2.0, 0.5],
        },
    );
    let model = FittedModel::new(positional, info).unwrap();
    check(
        "positional encoding with input",
        &model,
        &inputs(100, 3, 0.8, 0.0),
    );
}

/// The file carries the names, the classes and a symbolic batch dimension; the protobuf
/// decodes back to the same message.
#[test]
fn metadata_and_interface() {
    let network = net(
        Mlp::builder()
            .input(2)
            .hidden(&[4], Activation::Tanh)
            .output(1, Activation::Identity),
        9,
    );
    let info = ModelInfo::classification(&["height", "weight"], "species", vec![3.0, 8.0]);
    let model = FittedModel::new(network, info).unwrap();
    let proto = onnx::to_model_proto(&model).unwrap();
    let bytes = onnx::export(&model).unwrap();
    assert_eq!(
        onnx::proto::ModelProto::decode(bytes.as_slice()).unwrap(),
        proto
    );
    let meta = |k: &str| {
        proto
            .metadata_props
            .iter()
            .find(|p| p.key == k)
            .map(|p| p.value.clone())
    };
    assert_eq!(
        meta("feature_names").as_deref(),
        Some(r#"["height","weight"]"#)
    );
    assert_eq!(meta("classes").as_deref(), Some("[3.0,8.0]"));
    assert_eq!(meta("class_labels").as_deref(), Some(r#"["3","8"]"#));
    assert_eq!(
        meta("input_types").as_deref(),
        Some(r#"[{"name":"height","type":"float32"},{"name":"weight","type":"float32"}]"#)
    );
    let graph = proto.graph.unwrap();
    let names: Vec<&str> = graph.input.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["height", "weight"]);
    let outputs: Vec<&str> = graph.output.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(outputs, ["label", "probabilities"]);
    let dims = &graph.input[0]
        .r#type
        .as_ref()
        .unwrap()
        .tensor_type
        .as_ref()
        .unwrap();
    let dims = &dims.shape.as_ref().unwrap().dim;
    assert_eq!(dims[0].dim_param.as_deref(), Some("N"));
    assert_eq!(dims[1].dim_value, Some(1));
    // Any batch size runs.
    for rows in [1, 7] {
        let (out, shape) = run_tract(&bytes, &inputs(rows, 2, 1.0, 0.0), 2);
        assert_eq!(shape, vec![rows, 2]);
        for p in out.chunks(2) {
            assert!((p[0] + p[1] - 1.0).abs() < 1e-6, "{p:?}");
        }
    }
}

/// An ensemble of networks of other widths, one with a positional encoding and one without
/// hidden layers, as one graph: the same probabilities and labels as `predict`, and after
/// a save and load the same again.
#[test]
fn an_ensemble_of_networks_is_one_graph() {
    let members = vec![
        net(
            Mlp::builder()
                .input(3)
                .hidden(&[16, 16], Activation::Relu)
                .output(3, Activation::Identity),
            11,
        ),
        net(
            Mlp::builder()
                .input(3)
                .positional_encoding(2, true)
                .hidden(&[8], Activation::Relu)
                .output(3, Activation::Identity),
            12,
        ),
        net(
            Mlp::builder()
                .input(3)
                .hidden(&[], Activation::Identity)
                .output(3, Activation::Identity),
            13,
        ),
    ];
    let ensemble = nn::MlpEnsemble::new(members, vec![0.5, 0.3, 0.2]).unwrap();
    let info = ModelInfo::classification(&names(3), "k", vec![0.0, 1.0, 2.0]);
    let model = FittedModel::new(ensemble, info).unwrap();
    let x = inputs(120, 3, 2.0, 0.0);
    check("ensemble of three networks", &model, &x);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ensemble.safetensors");
    model.save(&path).unwrap();
    let back = FittedModel::load(&path, &CpuBackend::new()).unwrap();
    assert_eq!(back.network().kind(), "mlp_ensemble");
    assert_eq!(
        back.predict(&x).unwrap().values,
        model.predict(&x).unwrap().values
    );
    check("ensemble after a save and load", &back, &x);
}
