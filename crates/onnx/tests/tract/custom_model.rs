//! A model type defined outside the library (the affine map of the model-file tests: an
//! `nn::Layer` and an `nn::Model`) gains ONNX export with one [`OnnxModel`] impl and one
//! [`onnx::register`] call; a kind without an ONNX form is refused, naming it.

#[path = "../../../io/tests/io/affine.rs"]
mod affine;

use affine::{Affine, affine};
use io::Standardizer;
use io::fitted::{FittedModel, ModelInfo, Network};
use nn::{Model, NamedArray};
use onnx::{Graph, OnnxModel};
use prost::Message;
use tensor_core::{Backend, Tensor};
use tensor_cpu::CpuBackend;

/// The affine map's ONNX form: `MatMul` then `Add`.
impl<B: Backend> OnnxModel<B> for Affine<B> {
    fn to_onnx(&self, g: &mut Graph, x: &str) -> onnx::Result<String> {
        let state = self.export_state()?;
        let tensor = |name: &str| -> onnx::Result<&NamedArray> {
            state.iter().find(|a| a.name == name).ok_or_else(|| {
                onnx::Error::Unsupported(format!("the network has no tensor `{name}`"))
            })
        };
        let (w, b) = (tensor("weight")?, tensor("bias")?);
        let w = g.constant("affine_weight", &w.shape, &w.data);
        let b = g.constant("affine_bias", &b.shape, &b.data);
        let z = g.node("MatMul", &[x, &w], &[]);
        Ok(g.node("Add", &[&z, &b], &[]))
    }
}

#[test]
fn a_registered_model_type_exports_its_own_graph() {
    onnx::register::<CpuBackend, Affine<CpuBackend>>().expect("a new kind registers");
    assert!(onnx::exported_kinds::<CpuBackend>().contains(&"test_affine"));
    let cpu = CpuBackend::new();
    let (w, b) = ([0.5f32, -2.0, 1.5, 0.25, 3.0, -1.0], [0.1f32, -0.3]);
    let info = ModelInfo::regression(&["size", "age", "rooms"], &["price", "tax"])
        .with_features(Standardizer {
            mean: vec![10.0, 1.0, 3.0],
            std: vec![2.0, 0.5, 1.5],
        })
        .with_targets(Standardizer {
            mean: vec![100.0, -5.0],
            std: vec![4.0, 2.0],
        });
    let model = FittedModel::new(affine(&cpu, 3, &w, &b), info).unwrap();
    let proto = onnx::to_model_proto(&model).unwrap();
    let graph = proto.graph.as_ref().unwrap();
    let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
    // The columns side by side, input standardisation, the affine map, output de-standardisation, the named output.
    assert_eq!(
        ops,
        [
            "Concat", "Sub", "Div", "MatMul", "Add", "Mul", "Add", "Identity"
        ]
    );
    assert_eq!(proto.opset_import[0].version, onnx::OPSET);
    let kind = proto.metadata_props.iter().find(|p| p.key == "model_kind");
    assert_eq!(kind.unwrap().value, "test_affine");
    let x = crate::inputs(40, 3, 3.0, 5.0);
    let (abs, _) = crate::check("affine map", &model, &x);
    assert!(abs < 1e-3, "{abs}");
    assert!(proto.encode_to_vec().len() > 4 * (w.len() + b.len()));
}

/// A network of a kind that has no ONNX form.
#[derive(Debug)]
struct Unexported(CpuBackend);

impl Network<CpuBackend> for Unexported {
    fn kind(&self) -> &'static str {
        "capsule_net"
    }
    fn input_dim(&self) -> usize {
        1
    }
    fn output_dim(&self) -> usize {
        1
    }
    fn backend(&self) -> &CpuBackend {
        &self.0
    }
    fn predict(&self, x: &Tensor<CpuBackend>) -> nn::Result<Tensor<CpuBackend>> {
        let values = x.to_vec()?;
        Ok(Tensor::from_slice(&self.0, &values, [values.len(), 1])?)
    }
    fn config_value(&self) -> serde_json::Result<serde_json::Value> {
        Ok(serde_json::Value::Null)
    }
    fn export_state(&self) -> nn::Result<Vec<NamedArray>> {
        Ok(Vec::new())
    }
    fn num_params(&self) -> usize {
        0
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

#[test]
fn a_kind_without_an_onnx_form_is_refused_by_name() {
    let network = Box::new(Unexported(CpuBackend::new()));
    let info = ModelInfo::regression(&["x"], &["y"]);
    let model = FittedModel::from_network(network, info).unwrap();
    assert_eq!(model.predict(&[2.0]).unwrap().values, [2.0]);
    let e = onnx::export(&model).unwrap_err().to_string();
    assert!(
        e.contains("`capsule_net` model has no ONNX form") && e.contains("`mlp`"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
}
