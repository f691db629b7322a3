//! A small builder for an ONNX graph: constants, nodes with generated value names, typed
//! inputs and outputs.

use crate::proto::{
    AttributeProto, Dimension, FLOAT, GraphProto, INT64, NodeProto, TensorProto, TensorShapeProto,
    TensorTypeProto, TypeProto, UINT64, ValueInfoProto, attribute_type,
};

/// An attribute value.
#[derive(Debug, Clone, Copy)]
pub enum Attr {
    /// A float attribute.
    Float(f32),
    /// An integer attribute.
    Int(i64),
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
        self.proto.input.push(value_info(name, width, doc));
        name.to_string()
    }

    /// Declares `value` as a float graph output of shape `[N, width]`, named `name` (an
    /// `Identity` node renames it).
    pub fn output(&mut self, value: &str, name: &str, width: usize, doc: &str) {
        self.proto.node.push(NodeProto {
            input: vec![value.to_string()],
            output: vec![name.to_string()],
            name: format!("{name}_out"),
            op_type: "Identity".into(),
            attribute: Vec::new(),
        });
        self.proto.output.push(value_info(name, width, doc));
    }

    /// Adds a float constant (an initializer) and returns its name.
    pub fn constant(&mut self, name: &str, dims: &[usize], values: &[f32]) -> String {
        self.proto.initializer.push(TensorProto {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: FLOAT,
            name: name.to_string(),
            raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        name.to_string()
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

    fn constant_raw(&mut self, name: &str, dims: &[usize], data_type: i32, raw: Vec<u8>) -> String {
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

    /// Adds a node `op(inputs)` with attributes and returns the name of its output.
    pub fn node(&mut self, op: &str, inputs: &[&str], attrs: &[(&str, Attr)]) -> String {
        self.next += 1;
        let out = format!("{}_{}", op.to_ascii_lowercase(), self.next);
        self.proto.node.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            name: format!("node_{}", self.next),
            op_type: op.to_string(),
            attribute: attrs
                .iter()
                .map(|&(name, value)| match value {
                    Attr::Float(f) => AttributeProto {
                        name: name.into(),
                        r#type: attribute_type::FLOAT,
                        f,
                        i: 0,
                    },
                    Attr::Int(i) => AttributeProto {
                        name: name.into(),
                        r#type: attribute_type::INT,
                        f: 0.0,
                        i,
                    },
                })
                .collect(),
        });
        out
    }

    /// The finished graph.
    pub fn finish(self) -> GraphProto {
        self.proto
    }
}

fn value_info(name: &str, width: usize, doc: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: FLOAT,
                shape: Some(TensorShapeProto {
                    dim: vec![
                        Dimension {
                            dim_value: None,
                            dim_param: Some("N".into()),
                        },
                        Dimension {
                            dim_value: Some(width as i64),
                            dim_param: None,
                        },
                    ],
                }),
            }),
        }),
        doc_string: doc.to_string(),
    }
}
