//! A small builder for an ONNX graph: constants, nodes with generated value names, typed
//! inputs and outputs.

use crate::proto::{
    AttributeProto, Dimension, FLOAT, GraphProto, INT64, NodeProto, TensorProto, TensorShapeProto,
    TensorTypeProto, TypeProto, UINT64, ValueInfoProto, attribute_type,
};

/// The domain of the traditional-ML operators (`CategoryMapper`).
pub const ML_DOMAIN: &str = "ai.onnx.ml";

/// An attribute value.
#[derive(Debug, Clone)]
pub enum Attr {
    /// A float attribute.
    Float(f32),
    /// An integer attribute.
    Int(i64),
    /// A string attribute.
    Str(String),
    /// A list of integers.
    Ints(Vec<i64>),
    /// A list of strings.
    Strings(Vec<String>),
}

impl Attr {
    fn to_proto(&self, name: &str) -> AttributeProto {
        let mut a = AttributeProto {
            name: name.into(),
            ..AttributeProto::default()
        };
        match self {
            Attr::Float(f) => (a.r#type, a.f) = (attribute_type::FLOAT, *f),
            Attr::Int(i) => (a.r#type, a.i) = (attribute_type::INT, *i),
            Attr::Str(s) => (a.r#type, a.s) = (attribute_type::STRING, s.clone().into_bytes()),
            Attr::Ints(v) => (a.r#type, a.ints) = (attribute_type::INTS, v.clone()),
            Attr::Strings(v) => {
                a.r#type = attribute_type::STRINGS;
                a.strings = v.iter().map(|s| s.clone().into_bytes()).collect();
            }
        }
        a
    }
}

/// Builds a [`GraphProto`] node by node.
#[derive(Debug, Default)]
pub struct Graph {
    proto: GraphProto,
    next: usize,
}

impl Graph {
    /// An empty graph called `name`.
    pub fn new(name: &str) -> Self {
        Graph {
            proto: GraphProto {
                name: name.to_string(),
                ..GraphProto::default()
            },
            next: 0,
        }
    }

    /// Declares a float graph input of shape `[N, width]` (`N` symbolic).
    pub fn input(&mut self, name: &str, width: usize, doc: &str) -> String {
        self.typed_input(name, FLOAT, &[None, Some(width)], doc)
    }

    /// Declares a graph input of element type `elem_type` (a `TensorProto.DataType`) and
    /// shape `dims` (`None` for the symbolic batch size `N`).
    pub fn typed_input(
        &mut self,
        name: &str,
        elem_type: i32,
        dims: &[Option<usize>],
        doc: &str,
    ) -> String {
        self.proto
            .input
            .push(value_info(name, elem_type, dims, doc));
        name.to_string()
    }

    /// Declares `value` as a float graph output of shape `[N, width]`, named `name` (an
    /// `Identity` node renames it).
    pub fn output(&mut self, value: &str, name: &str, width: usize, doc: &str) {
        self.typed_output(value, name, FLOAT, &[None, Some(width)], doc);
    }

    /// Declares `value` as a graph output of element type `elem_type` and shape `dims`
    /// (`None` for `N`), named `name` (an `Identity` node renames it).
    pub fn typed_output(
        &mut self,
        value: &str,
        name: &str,
        elem_type: i32,
        dims: &[Option<usize>],
        doc: &str,
    ) {
        self.proto.node.push(NodeProto {
            input: vec![value.to_string()],
            output: vec![name.to_string()],
            name: format!("{name}_out"),
            op_type: "Identity".into(),
            ..NodeProto::default()
        });
        self.proto
            .output
            .push(value_info(name, elem_type, dims, doc));
    }

    /// Adds a float constant (an initializer) and returns its name.
    pub fn constant(&mut self, name: &str, dims: &[usize], values: &[f32]) -> String {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.constant_raw(name, dims, FLOAT, raw)
    }

    /// Adds an `int64` constant (an initializer) and returns its name.
    pub fn constant_i64(&mut self, name: &str, dims: &[usize], values: &[i64]) -> String {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.constant_raw(name, dims, INT64, raw)
    }

    /// Adds a `uint64` constant (an initializer) and returns its name.
    pub fn constant_u64(&mut self, name: &str, dims: &[usize], values: &[u64]) -> String {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.constant_raw(name, dims, UINT64, raw)
    }

    /// Adds a constant of element type `data_type` from its little-endian bytes.
    pub fn constant_raw(
        &mut self,
        name: &str,
        dims: &[usize],
        data_type: i32,
        raw: Vec<u8>,
    ) -> String {
        self.proto.initializer.push(TensorProto {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type,
            name: name.to_string(),
            raw_data: raw,
        });
        name.to_string()
    }

    /// A scalar float constant.
    pub fn scalar(&mut self, name: &str, value: f32) -> String {
        self.constant(name, &[], &[value])
    }

    /// Adds a node `op(inputs)` of the default domain with attributes and returns the name
    /// of its output.
    pub fn node(&mut self, op: &str, inputs: &[&str], attrs: &[(&str, Attr)]) -> String {
        self.node_in("", op, inputs, attrs)
    }

    /// Adds a node `op(inputs)` of operator domain `domain` and returns its output's name.
    pub fn node_in(
        &mut self,
        domain: &str,
        op: &str,
        inputs: &[&str],
        attrs: &[(&str, Attr)],
    ) -> String {
        self.next += 1;
        let out = format!("{}_{}", op.to_ascii_lowercase(), self.next);
        self.proto.node.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            name: format!("node_{}", self.next),
            op_type: op.to_string(),
            attribute: attrs.iter().map(|(n, v)| v.to_proto(n)).collect(),
            domain: domain.to_string(),
        });
        out
    }

    /// The names of the values defined inside the graph so far: node outputs and
    /// initializers.
    pub fn defined_names(&self) -> impl Iterator<Item = &str> {
        let outputs = self.proto.node.iter().flat_map(|n| n.output.iter());
        let constants = self.proto.initializer.iter().map(|t| &t.name);
        outputs.chain(constants).map(String::as_str)
    }

    /// The finished graph.
    pub fn finish(self) -> GraphProto {
        self.proto
    }
}

fn value_info(name: &str, elem_type: i32, dims: &[Option<usize>], doc: &str) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| match d {
            Some(v) => Dimension {
                dim_value: Some(*v as i64),
                dim_param: None,
            },
            None => Dimension {
                dim_value: None,
                dim_param: Some("N".into()),
            },
        })
        .collect();
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type,
                shape: Some(TensorShapeProto { dim }),
            }),
        }),
        doc_string: doc.to_string(),
    }
}
