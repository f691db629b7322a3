//! The precision of an exported graph's weights: `float32`, or `float16` stored and cast back
//! to `float32` inside the graph (half the file, the arithmetic still in `float32`).
//!
//! [`to_half`] rewrites a finished [`ModelProto`]: every `float32` initializer of two or more
//! dimensions (weight matrices, hash-grid tables) is stored as `float16` under the name
//! `<name>_f16`, and a `Cast` node at the head of the graph gives back the `float32` value
//! under the original name, so no other node changes. Vectors and scalars (biases,
//! standardisation, clamping bounds) stay `float32`: they are a few hundred bytes. So does
//! the Fourier-feature matrix ([`KEEP_FLOAT32`]): its entries multiply coordinates into
//! angles of up to hundreds of radians, where `float16`'s relative step of 2^-11 would move
//! an angle by a tenth of a radian.

use io::checkpoint::to_f16;
use io::fitted::FittedModel;
use prost::Message;
use tensor_core::Backend;

use crate::Result;
use crate::proto::{
    AttributeProto, FLOAT, FLOAT16, ModelProto, NodeProto, StringStringEntryProto, attribute_type,
};

/// Initializers kept in `float32` whatever their shape (see the [module docs](self)).
pub const KEEP_FLOAT32: &[&str] = &["encoding_frequencies"];

/// The metadata key recording the weights' storage precision (`float32` or `float16`).
pub const PRECISION_KEY: &str = "weight_precision";

/// How the weights of an exported graph are stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// `float32`, exactly the model's values.
    #[default]
    Float32,
    /// `float16` for matrices and tables, cast to `float32` inside the graph: about half
    /// the file, values rounded to 11 significant bits.
    Float16,
}

/// The ONNX file's bytes for `model` with weights stored at `precision`.
pub fn export_with<B: Backend>(model: &FittedModel<B>, precision: Precision) -> Result<Vec<u8>> {
    let mut proto = crate::to_model_proto(model)?;
    if precision == Precision::Float16 {
        to_half(&mut proto)?;
    }
    Ok(proto.encode_to_vec())
}

/// Writes the ONNX file for `model`, weights stored at `precision`, to `path` as
/// [`save`](crate::save) does.
pub fn save_with<B: Backend>(
    model: &FittedModel<B>,
    path: impl AsRef<std::path::Path>,
    precision: Precision,
) -> Result<()> {
    let bytes = export_with(model, precision)?;
    io::write_file(path.as_ref(), &bytes)?;
    Ok(())
}

/// Stores the matrices and tables of `model` as `float16` (see the [module docs](self)) and
/// records it in the metadata; returns how many initializers were converted. A value beyond
/// `float16`'s range (±65504) is an error naming the tensor, rather than an infinity.
pub fn to_half(model: &mut ModelProto) -> Result<usize> {
    let Some(graph) = model.graph.as_mut() else {
        return Ok(0);
    };
    let mut casts = Vec::new();
    for init in &mut graph.initializer {
        if init.data_type != FLOAT || init.dims.len() < 2 || KEEP_FLOAT32.contains(&&*init.name) {
            continue;
        }
        init.raw_data = half_bytes(&init.name, &init.raw_data)?;
        init.data_type = FLOAT16;
        let stored = format!("{}_f16", init.name);
        let original = std::mem::replace(&mut init.name, stored);
        casts.push(NodeProto {
            input: vec![init.name.clone()],
            output: vec![original.clone()],
            name: format!("{original}_cast"),
            op_type: "Cast".into(),
            attribute: vec![cast_to_float()],
            domain: String::new(),
        });
    }
    let converted = casts.len();
    casts.append(&mut graph.node);
    graph.node = casts;
    model.metadata_props.retain(|p| p.key != PRECISION_KEY);
    model.metadata_props.push(StringStringEntryProto {
        key: PRECISION_KEY.into(),
        value: "float16".into(),
    });
    Ok(converted)
}

/// `Cast`'s `to` attribute for `float32`.
fn cast_to_float() -> AttributeProto {
    AttributeProto {
        name: "to".into(),
        r#type: attribute_type::INT,
        f: 0.0,
        i: i64::from(FLOAT),
        ..AttributeProto::default()
    }
}

/// Little-endian `float32` bytes as little-endian `float16` bytes (round to nearest even,
/// refused beyond `float16`'s range by [`io::checkpoint::to_f16`]).
fn half_bytes(name: &str, raw: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len() / 2);
    for chunk in raw.chunks_exact(4) {
        let v = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        out.extend_from_slice(&to_f16(name, v)?.to_le_bytes());
    }
    Ok(out)
}
