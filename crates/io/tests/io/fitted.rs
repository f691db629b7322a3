//! The fitted model: predictions against an f64 re-implementation of the documented forward
//! formula, save/load round trips, column matching of input files, and bad input.

use io::fitted::{FittedModel, ModelInfo, Network, Predictions, Task, load_inputs};
use io::{Checkpoint, Standardizer};
use nn::{Activation, Mlp, MlpConfig, Model};
use tensor_cpu::CpuBackend;

fn act(a: Activation, x: f64) -> f64 {
    match a {
        Activation::Identity => x,
        Activation::Relu => x.max(0.0),
        Activation::Tanh => x.tanh(),
        Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        Activation::LeakyRelu { alpha } => {
            if x >= 0.0 {
                x
            } else {
                alpha as f64 * x
            }
        }
        Activation::Sine { w0 } => (w0 as f64 * x).sin(),
    }
}

/// The network's raw outputs in f64, from its exported tensors and the formulas of
/// docs/FORMAT.md: `h = act(h W + b)` per layer, after the optional sin/cos encoding.
fn reference_raw(net: &dyn Network<CpuBackend>, x: &[f64]) -> Vec<f64> {
    let net = net.as_mlp().expect("an MLP");
    let c: &MlpConfig = net.config();
    let state = net.export_state().unwrap();
    let get = |n: &str| state.iter().find(|a| a.name == n).unwrap();
    let rows = x.len() / c.input;
    let mut h: Vec<f64> = x.to_vec();
    let mut width = c.input;
    if let Ok(Some(_)) =
        net.encode(&tensor_core::Tensor::zeros(net.backend(), [1, c.input]).unwrap())
    {
        let b = get("encoding.frequencies");
        let m = b.shape[1];
        let mut enc = Vec::with_capacity(rows * 2 * m);
        for r in 0..rows {
            let proj: Vec<f64> = (0..m)
                .map(|j| {
                    (0..width)
                        .map(|i| h[r * width + i] * b.data[i * m + j] as f64)
                        .sum::<f64>()
                        * std::f64::consts::TAU
                })
                .collect();
            enc.extend(proj.iter().map(|p| p.sin()));
            enc.extend(proj.iter().map(|p| p.cos()));
        }
        h = enc;
        width = 2 * m;
    }
    for (l, &(fan_in, fan_out, a)) in c.layer_dims().iter().enumerate() {
        assert_eq!(fan_in, width);
        let w = get(&format!("layers.{l}.weight"));
        let bias = get(&format!("layers.{l}.bias"));
        assert_eq!(
            w.shape,
            vec![fan_in, fan_out],
            "weights are stored [in, out]"
        );
        let mut next = vec![0f64; rows * fan_out];
        for r in 0..rows {
            for o in 0..fan_out {
                let z: f64 = (0..fan_in)
                    .map(|i| h[r * fan_in + i] * w.data[i * fan_out + o] as f64)
                    .sum::<f64>()
                    + bias.data[o] as f64;
                next[r * fan_out + o] = act(a, z);
            }
        }
        h = next;
        width = fan_out;
    }
    h
}

fn close(a: f32, b: f64, tol: f64) -> bool {
    (a as f64 - b).abs() <= tol * b.abs().max(1.0)
}

fn regression_model(cpu: &CpuBackend) -> FittedModel<CpuBackend> {
    let net = Mlp::builder()
        .input(3)
        .hidden(&[16, 8], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(cpu, 3)
        .unwrap();
    let info = ModelInfo::regression(&["a", "b", "c"], &["price"])
        .with_features(Standardizer {
            mean: vec![10.0, -2.0, 0.5],
            std: vec![4.0, 0.5, 2.0],
        })
        .with_targets(Standardizer {
            mean: vec![100.0],
            std: vec![25.0],
        });
    FittedModel::new(net, info).unwrap()
}

fn rows() -> Vec<f32> {
    vec![
        12.0, -1.5, 0.0, 3.0, -2.0, 4.0, 10.0, -2.5, -1.0, 20.0, 0.0, 0.5,
    ]
}

/// Regression: inputs standardised, outputs de-standardised, as the f64 formula says.
#[test]
fn regression_matches_the_documented_formula() {
    let cpu = CpuBackend::new();
    let model = regression_model(&cpu);
    let x = rows();
    let p = model.predict(&x).unwrap();
    assert_eq!(
        (p.rows, p.columns.clone(), p.labels.clone()),
        (4, vec!["price".to_string()], None)
    );
    let mean = [10.0, -2.0, 0.5];
    let std = [4.0, 0.5, 2.0];
    let scaled: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| (v as f64 - mean[i % 3]) / std[i % 3])
        .collect();
    let raw = reference_raw(model.network(), &scaled);
    for (got, z) in p.values.iter().zip(&raw) {
        let want = z * 25.0 + 100.0;
        assert!(close(*got, want, 1e-5), "{got} vs {want}");
    }
}

/// Two classes: probabilities [1 - p, p] with p = sigmoid(logit), label by the logit's sign.
#[test]
fn binary_classification_gives_probabilities_and_labels() {
    let cpu = CpuBackend::new();
    let net = Mlp::builder()
        .input(2)
        .hidden(&[8], Activation::Relu)
        .output(1, Activation::Identity)
        .build(&cpu, 11)
        .unwrap();
    let model = FittedModel::new(
        net,
        ModelInfo::classification(&["x", "y"], "label", vec![-1.0, 2.5]),
    )
    .unwrap();
    let x: Vec<f32> = (0..40).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    let p = model.predict(&x).unwrap();
    assert_eq!(p.columns, ["probability_-1", "probability_2.5"]);
    let raw = reference_raw(
        model.network(),
        &x.iter().map(|&v| v as f64).collect::<Vec<_>>(),
    );
    let labels = p.labels.as_ref().unwrap();
    let mut seen = [false; 2];
    for (r, z) in raw.iter().enumerate() {
        let p1 = 1.0 / (1.0 + (-z).exp());
        assert!(close(p.row(r)[1], p1, 1e-5) && close(p.row(r)[0], 1.0 - p1, 1e-5));
        let want = if *z > 0.0 { 2.5 } else { -1.0 };
        if z.abs() > 1e-4 {
            assert_eq!(labels[r], want, "row {r}, logit {z}");
        }
        seen[(labels[r] > 0.0) as usize] = true;
    }
    assert!(seen[0] && seen[1], "the rows should get both labels");
}

/// Several classes: softmax probabilities that sum to 1, label of the largest.
#[test]
fn multiclass_softmax_and_argmax() {
    let cpu = CpuBackend::new();
    let net = Mlp::builder()
        .input(2)
        .hidden(&[8], Activation::Tanh)
        .output(3, Activation::Identity)
        .build(&cpu, 5)
        .unwrap();
    let model = FittedModel::new(
        net,
        ModelInfo::classification(&["x", "y"], "k", vec![0.0, 1.0, 7.0]),
    )
    .unwrap();
    let x: Vec<f32> = (0..30).map(|i| (i as f32 * 0.71).cos() * 4.0).collect();
    let p = model.predict(&x).unwrap();
    let raw = reference_raw(
        model.network(),
        &x.iter().map(|&v| v as f64).collect::<Vec<_>>(),
    );
    for r in 0..p.rows {
        let z = &raw[r * 3..r * 3 + 3];
        let e: Vec<f64> = z.iter().map(|v| v.exp()).collect();
        let s: f64 = e.iter().sum();
        for (got, e) in p.row(r).iter().zip(&e) {
            assert!(close(*got, e / s, 1e-5));
        }
        let best = (0..3).max_by(|&a, &b| z[a].total_cmp(&z[b])).unwrap();
        assert_eq!(p.labels.as_ref().unwrap()[r], [0.0, 1.0, 7.0][best]);
    }
}

/// Image models add the stored offset and clamp to [0, 1]; a Fourier-feature network
/// follows the documented encoding.
#[test]
fn image_model_with_fourier_features_is_offset_and_clamped() {
    let cpu = CpuBackend::new();
    let net = Mlp::builder()
        .input(2)
        .fourier_features(16, 3.0)
        .hidden(&[32], Activation::Relu)
        .output(1, Activation::Identity)
        .build(&cpu, 9)
        .unwrap();
    let info = ModelInfo::image(20, 10, &["value"]).with_targets(Standardizer {
        mean: vec![0.6],
        std: vec![1.0],
    });
    let model = FittedModel::new(net, info).unwrap();
    let grid = io::image::coords::coordinate_grid(7, 5);
    let p = model.predict(&grid).unwrap();
    let raw = reference_raw(
        model.network(),
        &grid.iter().map(|&v| v as f64).collect::<Vec<_>>(),
    );
    for (got, z) in p.values.iter().zip(&raw) {
        let want = (z + 0.6).clamp(0.0, 1.0);
        assert!((*got as f64 - want).abs() < 1e-5, "{got} vs {want}");
    }
}

/// Saving and loading gives bit-identical predictions; the file holds the network's
/// tensors and metadata only.
#[test]
fn save_and_load_round_trip() {
    let cpu = CpuBackend::new();
    let model = regression_model(&cpu);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.safetensors");
    model.save(&path).unwrap();
    let ck = Checkpoint::load(&path).unwrap();
    assert_eq!(ck.metadata["format"], "iron-learn model v1");
    assert!(
        ck.tensors.keys().all(|k| k.starts_with("model.layers.")),
        "{:?}",
        ck.tensors.keys()
    );
    assert_eq!(ck.tensors["model.layers.0.weight"].shape, vec![3, 16]);
    let back = FittedModel::load(&path, &cpu).unwrap();
    assert_eq!(back.info(), model.info());
    let (a, b) = (
        model.predict(&rows()).unwrap(),
        back.predict(&rows()).unwrap(),
    );
    assert_eq!(a, b);
    // A folder holding model.safetensors loads too.
    std::fs::rename(&path, dir.path().join("model.safetensors")).unwrap();
    let again = FittedModel::load(dir.path(), &cpu).unwrap();
    assert_eq!(again.predict(&rows()).unwrap(), a);
}

/// Files that do not describe a usable model fail with a sentence naming the problem.
#[test]
fn bad_model_files_are_refused() {
    let cpu = CpuBackend::new();
    let model = regression_model(&cpu);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.safetensors");
    let good = model.to_checkpoint().unwrap();

    let mut no_info = good.clone();
    no_info.metadata.as_object_mut().unwrap().remove("model");
    no_info.save(&path).unwrap();
    let e = FittedModel::load(&path, &cpu).unwrap_err().to_string();
    assert!(
        e.contains("no `model`") && e.contains("m.safetensors"),
        "{e}"
    );

    let mut wrong_shape = good.clone();
    wrong_shape
        .insert("model.layers.1.bias", vec![9], vec![0.0; 9])
        .unwrap();
    wrong_shape.save(&path).unwrap();
    let e = FittedModel::load(&path, &cpu).unwrap_err().to_string();
    assert!(e.contains("layers.1.bias"), "{e}");

    let mut wrong_names = good.clone();
    wrong_names.metadata["model"]["feature_names"] = serde_json::json!(["a", "b"]);
    wrong_names.save(&path).unwrap();
    let e = FittedModel::load(&path, &cpu).unwrap_err().to_string();
    assert!(e.contains("2 features") && e.contains("takes 3"), "{e}");

    let e = FittedModel::load(dir.path().join("absent.safetensors"), &cpu).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");

    let e = model.predict(&[1.0, 2.0]).unwrap_err().to_string();
    assert!(e.contains("2 input values") && e.contains("a, b, c"), "{e}");
}

/// Descriptions that contradict their network are refused when pairing them.
#[test]
fn inconsistent_descriptions_are_refused() {
    let cpu = CpuBackend::new();
    let net = || {
        Mlp::builder()
            .input(2)
            .output(3, Activation::Identity)
            .build(&cpu, 1)
            .unwrap()
    };
    let two = ModelInfo::classification(&["x", "y"], "k", vec![0.0, 1.0]);
    assert!(
        FittedModel::new(net(), two)
            .unwrap_err()
            .to_string()
            .contains("implies 1")
    );
    let unsorted = ModelInfo::classification(&["x", "y"], "k", vec![0.0, 2.0, 1.0]);
    assert!(FittedModel::new(net(), unsorted).is_err());
    let twice = ModelInfo::classification(&["x", "x"], "k", vec![0.0, 1.0, 2.0]);
    assert!(
        FittedModel::new(net(), twice)
            .unwrap_err()
            .to_string()
            .contains("named twice")
    );
    let mut image = ModelInfo::image(4, 4, &["r", "g", "b"]);
    image.task = Task::Image {
        width: 0,
        height: 4,
    };
    assert!(FittedModel::new(net(), image).is_err());
}

/// CSV columns are matched by name in any order; extra columns are reported; a missing
/// one is named. JSON rows come from x_test (or x) by position.
#[test]
fn input_files_are_matched_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let csv = dir.path().join("new.csv");
    std::fs::write(&csv, "id,c,a,b\n7,3,1,2\n8,6,4,5\n").unwrap();
    let rows = load_inputs(&csv, &names).unwrap();
    assert_eq!(
        (rows.rows, rows.x.clone(), rows.ignored.clone()),
        (2, vec![1., 2., 3., 4., 5., 6.], vec!["id".to_string()])
    );

    std::fs::write(&csv, "a,c\n1,2\n").unwrap();
    let e = load_inputs(&csv, &names).unwrap_err().to_string();
    assert!(e.contains("no column `b`"), "{e}");

    let json = dir.path().join("new.json");
    std::fs::write(
        &json,
        r#"{"m":1,"n":3,"x":[0,0,0],"y":[1],"m_test":2,"x_test":[1,2,3,4,5,6]}"#,
    )
    .unwrap();
    assert_eq!(
        load_inputs(&json, &names).unwrap().x,
        vec![1., 2., 3., 4., 5., 6.]
    );
    std::fs::write(&json, r#"{"n":3,"x":[1,2,3]}"#).unwrap();
    assert_eq!(load_inputs(&json, &names).unwrap().rows, 1);
    std::fs::write(&json, r#"{"n":2,"x":[1,2]}"#).unwrap();
    let e = load_inputs(&json, &names).unwrap_err().to_string();
    assert!(e.contains("takes 3 features"), "{e}");
    std::fs::write(&json, r#"{"n":3,"m":2,"x":[1,2,3]}"#).unwrap();
    assert!(
        load_inputs(&json, &names)
            .unwrap_err()
            .to_string()
            .contains("declares 2")
    );
}

/// The CSV form: `prediction` then `probability_<class>` columns, values that read back to
/// the same f32.
#[test]
fn predictions_csv_reads_back_exactly() {
    let info = ModelInfo::classification(&["x"], "label", vec![0.0, 1.0]);
    let p = Predictions::from_raw(&info, vec![0.3, -2.0, 1e-3]).unwrap();
    let mut out = Vec::new();
    p.write_csv(&mut out, None).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("prediction,probability_0,probability_1"));
    for (r, line) in lines.enumerate() {
        let cells: Vec<f32> = line.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(cells[0], p.labels.as_ref().unwrap()[r]);
        assert_eq!(&cells[1..], p.row(r));
    }
    let reg = ModelInfo::regression(&["x"], &["u", "v"]);
    let p = Predictions::from_raw(&reg, vec![1.0, 2.0]).unwrap();
    let mut out = Vec::new();
    let lead = ["x".to_string()];
    p.write_csv(&mut out, Some((&lead, &[0.5]))).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "x,prediction_u,prediction_v\n0.5,1,2\n"
    );
}

/// A hash-grid network is a model file too: its family is recorded, it loads back with the
/// same parameters, and its predictions are the network's own, offset and clamped as pixels.
#[test]
fn hash_grid_models_round_trip() {
    use nn::{HashGridMlp, HashGridMlpConfig, Model};
    use tensor_core::Tensor;
    let cpu = CpuBackend::new();
    let config = HashGridMlpConfig {
        levels: 4,
        log2_table_size: 8,
        base_resolution: 4,
        hidden: vec![8],
        ..HashGridMlpConfig::new(3, 32)
    };
    let network = HashGridMlp::from_config(&cpu, &config, 7).unwrap();
    let coords = [-1.0f32, -1.0, 0.25, -0.5, 1.0, 1.0, 0.0, 0.3];
    let own = network
        .predict(&Tensor::from_slice(&cpu, &coords, [4, 2]).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    let offset = vec![0.5, 0.25, 0.75];
    let info = ModelInfo::image(32, 32, &["r", "g", "b"]).with_targets(Standardizer {
        mean: offset.clone(),
        std: vec![1.0; 3],
    });
    let model = FittedModel::new(network, info).unwrap();
    assert_eq!(model.network().kind(), "hash_grid_mlp");
    assert!(model.network().as_mlp().is_none());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grid.safetensors");
    model.save(&path).unwrap();
    let ck = Checkpoint::load(&path).unwrap();
    assert_eq!(ck.metadata["model_kind"], "hash_grid_mlp");
    assert_eq!(ck.metadata["architecture"]["levels"], 4);
    let back = FittedModel::load(&path, &cpu).unwrap();
    let a = model.predict(&coords).unwrap();
    assert_eq!(a, back.predict(&coords).unwrap());
    for (i, (&v, &o)) in a.values.iter().zip(own.iter()).enumerate() {
        let expected = (o + offset[i % 3]).clamp(0.0, 1.0);
        assert!((v - expected).abs() < 1e-6, "value {i}: {v} vs {expected}");
    }
    // A model file of an unknown family is refused by name.
    let mut odd = ck.clone();
    odd.metadata["model_kind"] = "capsule_net".into();
    odd.save(&path).unwrap();
    let e = FittedModel::load(&path, &cpu).unwrap_err().to_string();
    assert!(
        e.contains("capsule_net") && e.contains("hash_grid_mlp"),
        "{e}"
    );
}

/// Files written before there were several model types have no `model_kind`: they hold an
/// MLP, and still load as one.
#[test]
fn files_without_a_model_kind_load_as_mlps() {
    let cpu = CpuBackend::new();
    let model = regression_model(&cpu);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.safetensors");
    model.save(&path).unwrap();
    let mut ck = Checkpoint::load(&path).unwrap();
    assert_eq!(ck.metadata["model_kind"], "mlp");
    ck.metadata.as_object_mut().unwrap().remove("model_kind");
    ck.save(&path).unwrap();
    let back = FittedModel::load(&path, &cpu).unwrap();
    assert_eq!(back.network().kind(), "mlp");
    assert!(back.network().as_mlp().is_some());
    assert_eq!(
        back.predict(&rows()).unwrap(),
        model.predict(&rows()).unwrap()
    );
}

/// A model that reads its columns as plain numbers, with the features' standardisation
/// stored, reads a missing or unreadable cell as its column's training mean (the text
/// counted in a note), refuses a column of which no cell is a number, and without the
/// standardisation refuses the cell.
#[test]
fn plain_models_read_unreadable_cells_as_the_mean() {
    let cpu = CpuBackend::new();
    let model = regression_model(&cpu);
    let table = |text: &str| io::table::read_table(text.as_bytes(), "new.csv", None).unwrap();
    let got = model
        .predict_table(&table("a,b,c\n12,,0\n12,abc,0\n3,-2,4\n"))
        .unwrap();
    let want = model.predict(&[12.0, -2.0, 0.0, 12.0, -2.0, 0.0]).unwrap();
    assert_eq!(got.values[..2], want.values[..]);
    assert_eq!(got.notes.len(), 1, "{:?}", got.notes);
    let note = got.notes[0].to_string();
    assert_eq!(
        note, "b: 1 of 3 cells is not a number (`abc`), read as missing",
        "{note}"
    );
    let e = model
        .predict_table(&table("a,b,c\n12,abc,0\n3,x,4\n"))
        .unwrap_err();
    assert!(matches!(e, io::Error::UnreadableColumn { .. }), "{e}");
    let net = Mlp::builder()
        .input(3)
        .hidden(&[4], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 3)
        .unwrap();
    let raw = FittedModel::new(net, ModelInfo::regression(&["a", "b", "c"], &["y"])).unwrap();
    let e = raw
        .predict_table(&table("a,b,c\n12,abc,0\n3,1,4\n"))
        .unwrap_err();
    assert!(e.to_string().contains("is not a number"), "{e}");
}

/// Predictions made of outputs computed elsewhere are those `predict_table` makes, notes
/// included; outputs of another number of rows are refused.
#[test]
fn predictions_of_given_outputs_are_the_table_predictions() {
    let cpu = CpuBackend::new();
    let model = regression_model(&cpu);
    let table = io::table::read_table(
        "a,b,c\n12,,0\n12,abc,0\n3,-2,4\n".as_bytes(),
        "new.csv",
        None,
    )
    .unwrap();
    let outputs = model.table_outputs(&table).unwrap();
    assert_eq!(outputs.len(), 3);
    let given = model.table_predictions(&table, outputs.clone()).unwrap();
    let made = model.predict_table(&table).unwrap();
    assert_eq!(given.values, made.values);
    assert_eq!(given.notes.len(), 1);
    assert_eq!(given.notes[0].to_string(), made.notes[0].to_string());
    let e = model
        .table_predictions(&table, outputs[..2].to_vec())
        .unwrap_err();
    assert!(
        e.to_string().contains("2 network outputs for 3 rows"),
        "{e}"
    );
}
