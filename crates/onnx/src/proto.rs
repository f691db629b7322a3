//! The ONNX protobuf messages this crate writes, as `prost` structs.
//!
//! Only the fields an exported inference graph needs are declared; the field numbers are
//! those of `onnx.proto` (IR version 7). A `oneof` of the schema is declared as the
//! optional field of the member used, which encodes to the same bytes.

/// `TensorProto.DataType.FLOAT`.
pub const FLOAT: i32 = 1;

/// `TensorProto.DataType.INT64`.
pub const INT64: i32 = 7;

/// `TensorProto.DataType.FLOAT16`.
pub const FLOAT16: i32 = 10;

/// `TensorProto.DataType.INT32`.
pub const INT32: i32 = 6;

/// `TensorProto.DataType.UINT64`.
pub const UINT64: i32 = 13;

/// `TensorProto.DataType.STRING`.
pub const STRING: i32 = 8;

/// `TensorProto.DataType.BOOL`.
pub const BOOL: i32 = 9;

/// `TensorProto.DataType.DOUBLE`.
pub const DOUBLE: i32 = 11;

/// `AttributeProto.AttributeType` values used here.
pub mod attribute_type {
    /// A single float (`f`).
    pub const FLOAT: i32 = 1;
    /// A single integer (`i`).
    pub const INT: i32 = 2;
    /// A single string (`s`).
    pub const STRING: i32 = 3;
    /// A list of integers (`ints`).
    pub const INTS: i32 = 7;
    /// A list of strings (`strings`).
    pub const STRINGS: i32 = 8;
}

/// `ModelProto`: the whole file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// Version of the IR the file follows.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// Operator sets the graph uses.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// Tool that wrote the file.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// Its version.
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// Model version.
    #[prost(int64, tag = "5")]
    pub model_version: i64,
    /// Free text.
    #[prost(string, tag = "6")]
    pub doc_string: String,
    /// The graph.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    /// Key-value metadata.
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// `OperatorSetIdProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// Domain ("" is the default ONNX domain).
    #[prost(string, tag = "1")]
    pub domain: String,
    /// Operator set version.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// `StringStringEntryProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// Key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `GraphProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// Nodes in topological order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// Graph name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Constant tensors (weights).
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// Free text.
    #[prost(string, tag = "10")]
    pub doc_string: String,
    /// Graph inputs.
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// Graph outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// `NodeProto`: one operator application.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Input value names.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// Output value names.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// Node name.
    #[prost(string, tag = "3")]
    pub name: String,
    /// Operator, e.g. "MatMul".
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// Attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    /// Operator domain ("" for `ai.onnx`, `ai.onnx.ml` for the traditional-ML operators).
    #[prost(string, tag = "7")]
    pub domain: String,
}

/// `AttributeProto` (a float, an integer, a string, or a list of integers or strings).
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// Attribute name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Which field holds the value ([`attribute_type`]).
    #[prost(int32, tag = "20")]
    pub r#type: i32,
    /// Float value.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// Integer value.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// String value (UTF-8 bytes).
    #[prost(bytes = "vec", tag = "4")]
    pub s: Vec<u8>,
    /// List of integers.
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
    /// List of strings (UTF-8 bytes each).
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: Vec<Vec<u8>>,
}

/// `ValueInfoProto`: a named, typed graph input or output.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// Value name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its type.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
    /// Free text.
    #[prost(string, tag = "3")]
    pub doc_string: String,
}

/// `TypeProto` with its `tensor_type` member.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// A dense tensor type.
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
}

/// `TypeProto.Tensor`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorTypeProto {
    /// Element type ([`FLOAT`], [`DOUBLE`], [`STRING`], ...).
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    /// Shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `TensorShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// Dimensions, outermost first.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `TensorShapeProto.Dimension`: a size or a symbolic name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// A fixed size.
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    /// A symbolic size, e.g. "N".
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
}

/// `TensorProto`: a constant, stored little-endian in `raw_data`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// Dimensions.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// Element type ([`FLOAT`], [`FLOAT16`], [`INT64`] or [`UINT64`]).
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// Name (referenced by node inputs).
    #[prost(string, tag = "8")]
    pub name: String,
    /// The values, little-endian.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
}
