//! A [`FittedModel`] as an ONNX graph.

use io::fitted::{FittedModel, ModelInfo, Network, Task};
use nn::{Activation, EncodingConfig, Mlp, NamedArray};
use prost::Message;
use tensor_core::Backend;

use crate::graph::{Attr, Graph, ML_DOMAIN};
use crate::model::{Body, OnnxModel};
use crate::proto::{FLOAT, ModelProto, OperatorSetIdProto, STRING, StringStringEntryProto};
use crate::{Error, Result};

/// The ONNX operator set of MLP graphs (Softmax over one axis, Clip with tensor bounds);
/// hash-grid graphs use [`hashgrid::OPSET`](crate::hashgrid::OPSET).
pub const OPSET: i64 = 13;

/// The IR version that goes with [`OPSET`].
pub const IR_VERSION: i64 = 7;

/// The `ai.onnx.ml` operator set of graphs with a table's preprocessing (`CategoryMapper`).
pub const ML_OPSET: i64 = 1;

/// The coordinate convention of image models, as stored in the file's metadata.
pub const COORDINATES: &str = "inputs (x, y): pixel i of n at -1 + 2 i / (n - 1), x along a \
     row (column index), y down the image (row index); outputs: one value per channel in [0, 1]";

/// The graph of `model` as an ONNX [`ModelProto`].
///
/// Every model of rows (regression or classifier) takes one input per raw column, named as
/// the column, of shape `[N, 1]`: a model with a [`Preprocessor`](io::table::Preprocessor)
/// encodes its columns inside the graph (see [`table`](crate::table) for their types), any
/// other reads each feature as a `float32` column. The standardisation is inside, and the
/// outputs are in user units: `prediction` (regression), or for a classifier `label` (the
/// class as `predict` writes it, `string [N]`) and `probabilities` (one column per class).
/// An image model takes one float input `coordinates` `[N, 2]` and gives `pixels` (in
/// `[0, 1]`).
pub fn to_model_proto<B: Backend>(model: &FittedModel<B>) -> Result<ModelProto> {
    let info = model.info();
    let network = model.network();
    let mut g = Graph::new("iron_learn");
    let image = matches!(info.task, Task::Image { .. });
    let mut h = match &info.preprocessing {
        Some(p) => crate::table::encode(&mut g, p)?,
        None if image => {
            let doc = info.feature_names.join(",");
            g.input("coordinates", network.input_dim(), &doc)
        }
        None => crate::table::number_columns(&mut g, &info.feature_names),
    };

    if let Some(s) = &info.features {
        let mean = g.constant("feature_mean", &[s.mean.len()], &s.mean);
        let std = g.constant("feature_std", &[s.std.len()], &s.std);
        let centred = g.node("Sub", &[&h, &mean], &[]);
        h = g.node("Div", &[&centred, &std], &[]);
    }

    let Body {
        output: h,
        opset,
        ir_version,
    } = crate::model::body(&mut g, &h, network)?;
    outputs(&mut g, info, &h, network.output_dim());
    if !image {
        check_input_names(&g, info)?;
    }

    let mut opset_import = vec![OperatorSetIdProto {
        domain: String::new(),
        version: opset,
    }];
    if info.preprocessing.is_some() || info.classes().is_some() {
        opset_import.push(OperatorSetIdProto {
            domain: ML_DOMAIN.into(),
            version: ML_OPSET,
        });
    }
    Ok(ModelProto {
        ir_version,
        opset_import,
        producer_name: "iron-learn".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        model_version: 1,
        doc_string: doc(info),
        graph: Some(g.finish()),
        metadata_props: metadata(info, network)?,
    })
}

/// Adds the outputs, in user units, from the network's raw output `h` (`width` columns):
/// `prediction` (regression), `pixels` (images), or for classifiers `label` (the class as
/// text, `[N]`) and `probabilities`.
fn outputs(g: &mut Graph, info: &ModelInfo, h: &str, width: usize) {
    let mut h = h.to_string();
    let image = matches!(info.task, Task::Image { .. });
    let (output, width) = match &info.task {
        Task::Regression | Task::Image { .. } => {
            if let Some(t) = &info.targets {
                let std = g.constant("target_std", &[t.std.len()], &t.std);
                let mean = g.constant("target_mean", &[t.mean.len()], &t.mean);
                let scaled = g.node("Mul", &[&h, &std], &[]);
                h = g.node("Add", &[&scaled, &mean], &[]);
            }
            if let Some(r) = &info.target_range {
                let lo = g.constant("target_low", &[r.low.len()], &r.low);
                let hi = g.constant("target_high", &[r.high.len()], &r.high);
                let above = g.node("Max", &[&h, &lo], &[]);
                h = g.node("Min", &[&above, &hi], &[]);
            }
            if image {
                let lo = g.scalar("pixel_min", 0.0);
                let hi = g.scalar("pixel_max", 1.0);
                h = g.node("Clip", &[&h, &lo, &hi], &[]);
            }
            (if image { "pixels" } else { "prediction" }, width)
        }
        Task::Classification { classes } if classes.len() == 2 => {
            label(g, info, &h, true);
            let one = g.scalar("one", 1.0);
            let p = g.node("Sigmoid", &[&h], &[]);
            let q = g.node("Sub", &[&one, &p], &[]);
            h = g.node("Concat", &[&q, &p], &[("axis", Attr::Int(1))]);
            ("probabilities", 2)
        }
        Task::Classification { classes } => {
            label(g, info, &h, false);
            h = g.node("Softmax", &[&h], &[("axis", Attr::Int(1))]);
            ("probabilities", classes.len())
        }
    };
    g.output(&h, output, width, &info.output_columns().join(","));
}

/// The `label` output from the logits `z`: class 1 where `z > 0` for two classes (one
/// logit), else the last largest logit, as `predict` chooses; its text by `CategoryMapper`.
/// Two classes go through `ArgMax` of the 0/1 pair `[z <= 0, z > 0]` rather than a cast to
/// `int64`, which some runtimes (tract) read as a shape value.
fn label(g: &mut Graph, info: &ModelInfo, z: &str, binary: bool) {
    let index = if binary {
        let zero = g.scalar("logit_zero", 0.0);
        let positive = g.node("Greater", &[z, &zero], &[]);
        let negative = g.node("Not", &[&positive], &[]);
        let to_float = [("to", Attr::Int(i64::from(FLOAT)))];
        let p = g.node("Cast", &[&positive], &to_float);
        let q = g.node("Cast", &[&negative], &to_float);
        g.node("Concat", &[&q, &p], &[("axis", Attr::Int(1))])
    } else {
        z.to_string()
    };
    let attrs = [
        ("axis", Attr::Int(1)),
        ("keepdims", Attr::Int(0)),
        ("select_last_index", Attr::Int(1)),
    ];
    let index = g.node("ArgMax", &[&index], &attrs);
    let count = info.classes().map_or(0, <[f32]>::len);
    let words: Vec<String> = (0..count).map(|i| info.class_text(i)).collect();
    let attrs = [
        ("cats_int64s", Attr::Ints((0..count as i64).collect())),
        ("cats_strings", Attr::Strings(words.clone())),
        ("default_string", Attr::Str(String::new())),
    ];
    let text = g.node_in(ML_DOMAIN, "CategoryMapper", &[&index], &attrs);
    g.typed_output(&text, "label", STRING, &[None], &words.join(","));
}

/// Refuses a raw column whose name is also the name of a value inside the graph (a
/// constant, a node's output or an output such as `label`).
fn check_input_names(g: &Graph, info: &ModelInfo) -> Result<()> {
    let inner: std::collections::HashSet<&str> = g.defined_names().collect();
    match info
        .input_columns()
        .into_iter()
        .find(|c| inner.contains(c.as_str()))
    {
        Some(c) => Err(Error::Unsupported(format!(
            "the column `{c}` has the name of a value inside the graph; rename the column \
             and train again"
        ))),
        None => Ok(()),
    }
}

/// An MLP's ONNX form: its encoding and layers.
impl<B: Backend> OnnxModel<B> for Mlp<B> {
    fn to_onnx(&self, g: &mut Graph, x: &str) -> Result<String> {
        mlp(g, x, self)
    }
}

/// Adds an MLP (its encoding and layers) to `g`, reading the standardised inputs `x`, and
/// returns the name of its raw output.
fn mlp<B: Backend>(g: &mut Graph, x: &str, network: &Mlp<B>) -> Result<String> {
    mlp_named(g, x, network, "")
}

/// [`mlp`] with every constant's name begun by `prefix` (`member_0_`), so that several
/// networks can share a graph.
pub(crate) fn mlp_named<B: Backend>(
    g: &mut Graph,
    x: &str,
    network: &Mlp<B>,
    prefix: &str,
) -> Result<String> {
    let network = network.fold_input_scale()?;
    let config = network.config();
    let state = network.export_state()?;
    let tensor = |name: &str| -> Result<&NamedArray> {
        state
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| Error::Unsupported(format!("the network has no tensor `{name}`")))
    };
    let mut h = x.to_string();
    match config.encoding {
        EncodingConfig::None => {}
        EncodingConfig::Fourier { .. } | EncodingConfig::Positional { .. } => {
            let include_input = matches!(
                config.encoding,
                EncodingConfig::Positional {
                    include_input: true,
                    ..
                }
            );
            let b = tensor(nn::model::mlp::ENCODING_FREQUENCIES)?;
            let freqs = g.constant(&format!("{prefix}encoding_frequencies"), &b.shape, &b.data);
            let tau = g.scalar(&format!("{prefix}two_pi"), std::f32::consts::TAU);
            let xb = g.node("MatMul", &[&h, &freqs], &[]);
            let proj = g.node("Mul", &[&xb, &tau], &[]);
            let sin = g.node("Sin", &[&proj], &[]);
            let cos = g.node("Cos", &[&proj], &[]);
            let parts: Vec<&str> = if include_input {
                vec![&h, &sin, &cos]
            } else {
                vec![&sin, &cos]
            };
            h = g.node("Concat", &parts, &[("axis", Attr::Int(1))]);
        }
    }

    for (i, &(_, _, act)) in config.layer_dims().iter().enumerate() {
        let w = tensor(&format!("layers.{i}.weight"))?;
        let b = tensor(&format!("layers.{i}.bias"))?;
        let w = g.constant(&format!("{prefix}layers_{i}_weight"), &w.shape, &w.data);
        let b = g.constant(&format!("{prefix}layers_{i}_bias"), &b.shape, &b.data);
        let z = g.node("MatMul", &[&h, &w], &[]);
        h = g.node("Add", &[&z, &b], &[]);
        h = activation_named(g, &h, act, &format!("{prefix}layers_{i}_w0"));
    }
    Ok(h)
}

/// The ONNX file's bytes for `model` (see [`to_model_proto`]).
pub fn export<B: Backend>(model: &FittedModel<B>) -> Result<Vec<u8>> {
    Ok(to_model_proto(model)?.encode_to_vec())
}

/// Writes the ONNX file for `model` to `path` with [`io::write_file`] (a file atomically, a
/// device or pipe in place, never replaced).
pub fn save<B: Backend>(model: &FittedModel<B>, path: impl AsRef<std::path::Path>) -> Result<()> {
    let bytes = export(model)?;
    io::write_file(path.as_ref(), &bytes)?;
    Ok(())
}

/// `act(h)` for layer `layer` (whose index names its constants).
pub(crate) fn activation(g: &mut Graph, h: &str, act: Activation, layer: usize) -> String {
    activation_named(g, h, act, &format!("layers_{layer}_w0"))
}

/// `act(h)`, a sine's factor stored as the constant `w0_name`.
fn activation_named(g: &mut Graph, h: &str, act: Activation, w0_name: &str) -> String {
    match act {
        Activation::Identity => h.to_string(),
        Activation::Relu => g.node("Relu", &[h], &[]),
        Activation::Tanh => g.node("Tanh", &[h], &[]),
        Activation::Sigmoid => g.node("Sigmoid", &[h], &[]),
        Activation::LeakyRelu { alpha } => {
            g.node("LeakyRelu", &[h], &[("alpha", Attr::Float(alpha))])
        }
        Activation::Sine { w0 } => {
            let w0 = g.scalar(w0_name, w0);
            let scaled = g.node("Mul", &[h, &w0], &[]);
            g.node("Sin", &[&scaled], &[])
        }
    }
}

fn doc(info: &ModelInfo) -> String {
    let inputs: Vec<String> = input_types(info)
        .into_iter()
        .map(|(name, t)| format!("{name} ({t})"))
        .collect();
    let outputs = match &info.task {
        Task::Classification { .. } => format!(
            "outputs `label` (string [N]) and `probabilities` ({})",
            info.output_columns().join(", ")
        ),
        Task::Regression => format!("output `prediction` ({})", info.target_names.join(", ")),
        Task::Image { width, height } => {
            return format!(
                "Image fitted at {width}x{height} pixels: {COORDINATES}; output `pixels` ({})",
                info.target_names.join(", ")
            );
        }
    };
    format!(
        "Model of {} from raw table columns, one input [N, 1] each: {}; {outputs}.",
        info.target_names.join(", "),
        inputs.join(", ")
    )
}

/// The graph inputs of a model of rows, in order, with their element type's name: the
/// preprocessing's raw columns, or the features as `float32`.
fn input_types(info: &ModelInfo) -> Vec<(String, &'static str)> {
    match &info.preprocessing {
        Some(p) => p
            .columns
            .iter()
            .map(|c| {
                let t = crate::table::type_name(crate::table::input_type(c));
                (c.column().to_string(), t)
            })
            .collect(),
        None => info
            .feature_names
            .iter()
            .map(|n| (n.clone(), crate::table::type_name(FLOAT)))
            .collect(),
    }
}

fn metadata<B: Backend>(
    info: &ModelInfo,
    network: &dyn Network<B>,
) -> Result<Vec<StringStringEntryProto>> {
    let json = |v: serde_json::Result<String>| v.map_err(|e| Error::Unsupported(e.to_string()));
    let architecture = network
        .config_value()
        .and_then(|v| serde_json::to_string(&v));
    let mut props = vec![
        ("iron_learn_model", json(serde_json::to_string(info))?),
        ("model_kind", network.kind().to_string()),
        ("architecture", json(architecture)?),
        (
            "feature_names",
            json(serde_json::to_string(&info.feature_names))?,
        ),
        (
            "output_columns",
            json(serde_json::to_string(&info.output_columns()))?,
        ),
    ];
    if let Some(classes) = info.classes() {
        props.push(("classes", json(serde_json::to_string(classes))?));
    }
    if !matches!(info.task, Task::Image { .. }) {
        let types: Vec<serde_json::Value> = input_types(info)
            .into_iter()
            .map(|(name, t)| serde_json::json!({ "name": name, "type": t }))
            .collect();
        props.push(("input_types", json(serde_json::to_string(&types))?));
    }
    if info.classes().is_some() {
        let words: Vec<String> = (0..info.classes().map_or(0, <[f32]>::len))
            .map(|i| info.class_text(i))
            .collect();
        props.push(("class_labels", json(serde_json::to_string(&words))?));
    }
    if let Task::Image { width, height } = info.task {
        props.push(("coordinates", COORDINATES.to_string()));
        props.push(("image_size", format!("{width}x{height}")));
    }
    Ok(props
        .into_iter()
        .map(|(key, value)| StringStringEntryProto {
            key: key.to_string(),
            value,
        })
        .collect())
}
