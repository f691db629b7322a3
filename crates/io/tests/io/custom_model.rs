//! A model type defined outside the library, in one file of its own (`affine.rs`: an affine
//! map `y = x W + b`, an `nn::Layer` and an `nn::Model`). With one [`register`] call it is
//! saved, loaded back by its kind, predicted on raw rows and drawn as an image through the
//! same `FittedModel` calls that the command line uses.

use crate::affine::{Affine, AffineConfig, affine};
use io::fitted::{FittedModel, ModelInfo, register};
use io::image::coords::pixel_to_coord;
use io::image::{ColorMode, load_picture};
use io::{Checkpoint, Standardizer};
use nn::{Layer, Model, ParamMut, ParamRef};
use tensor_core::{Backend, Tensor};
use tensor_cpu::CpuBackend;

/// The one registration call a new model type needs.
fn registered() {
    register::<CpuBackend, Affine<CpuBackend>>().expect("a new kind registers");
}

#[test]
fn a_registered_model_type_saves_loads_and_predicts_in_user_units() {
    registered();
    let cpu = CpuBackend::new();
    let (w, b) = ([0.5f32, -2.0, 1.5, 0.25], [0.1f32, -0.3]);
    let scaler = Standardizer {
        mean: vec![10.0, 1.0],
        std: vec![2.0, 0.5],
    };
    let targets = Standardizer {
        mean: vec![100.0, -5.0],
        std: vec![4.0, 2.0],
    };
    let info = ModelInfo::regression(&["size", "age"], &["price", "tax"])
        .with_features(scaler.clone())
        .with_targets(targets.clone());
    let model = FittedModel::new(affine(&cpu, 2, &w, &b), info).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("affine.safetensors");
    model.save(&path).unwrap();

    let ck = Checkpoint::load(&path).unwrap();
    assert_eq!(ck.metadata["model_kind"], "test_affine");
    assert_eq!(ck.metadata["architecture"]["inputs"], 2);
    assert_eq!(ck.tensors["model.weight"].data, w);

    let back = FittedModel::load(&path, &cpu).unwrap();
    assert_eq!(back.network().kind(), "test_affine");
    assert!(
        back.network()
            .downcast_ref::<Affine<CpuBackend>>()
            .is_some()
    );
    assert!(back.network().as_mlp().is_none());
    let rows = [12.0f32, 2.0, 7.0, 0.5, 10.0, 1.0];
    let got = back.predict(&rows).unwrap();
    assert_eq!(got.columns, ["price", "tax"]);
    for (r, row) in rows.chunks(2).enumerate() {
        let x: Vec<f64> = (0..2)
            .map(|j| (row[j] as f64 - scaler.mean[j] as f64) / scaler.std[j] as f64)
            .collect();
        for k in 0..2 {
            let raw = x[0] * w[k] as f64 + x[1] * w[2 + k] as f64 + b[k] as f64;
            let want = raw * targets.std[k] as f64 + targets.mean[k] as f64;
            let v = got.values[r * 2 + k] as f64;
            assert!(
                (v - want).abs() < 1e-4,
                "row {r}, output {k}: {v} vs {want}"
            );
        }
    }
}

#[test]
fn a_registered_model_type_draws_an_image() {
    registered();
    let cpu = CpuBackend::new();
    let (w, b) = ([0.2f32, 0.1], [0.5f32]);
    let model = FittedModel::new(affine(&cpu, 2, &w, &b), ModelInfo::image(4, 3, &["value"]));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("affine.safetensors");
    model.unwrap().save(&path).unwrap();
    let back = FittedModel::load(&path, &cpu).unwrap();
    let png = dir.path().join("affine.png");
    assert_eq!(back.render_png(4, &png).unwrap(), (4, 3));
    let picture = load_picture(&png, ColorMode::Grayscale).unwrap();
    for y in 0..3 {
        for x in 0..4 {
            let (cx, cy) = (pixel_to_coord(x, 4), pixel_to_coord(y, 3));
            let want = (w[0] * cx + w[1] * cy + b[0]).clamp(0.0, 1.0);
            let v = picture.data[y * 4 + x];
            assert!(
                (v - want).abs() <= 0.5 / 255.0 + 1e-6,
                "pixel ({x}, {y}): {v} vs {want}"
            );
        }
    }
}

/// Registering a type again, a built-in one included, changes nothing.
#[test]
fn registering_a_type_twice_changes_nothing() {
    registered();
    registered();
    let before = io::fitted::known_kinds::<CpuBackend>();
    register::<CpuBackend, nn::Mlp<CpuBackend>>().unwrap();
    assert_eq!(io::fitted::known_kinds::<CpuBackend>(), before);
    assert_eq!(before.iter().filter(|k| **k == "mlp").count(), 1);
    assert_eq!(
        before[..3],
        ["mlp", "hash_grid_mlp", "mlp_ensemble"],
        "built-in kinds first"
    );
}

#[test]
fn a_file_of_a_kind_not_registered_on_this_backend_names_the_kinds_it_reads() {
    registered();
    let cpu = CpuBackend::new();
    let model = FittedModel::new(
        affine(&cpu, 1, &[2.0], &[1.0]),
        ModelInfo::regression(&["x"], &["y"]),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("affine.safetensors");
    model.unwrap().save(&path).unwrap();
    let mut ck = Checkpoint::load(&path).unwrap();
    ck.metadata["model_kind"] = "test_affine_v2".into();
    ck.save(&path).unwrap();
    let e = FittedModel::load(&path, &cpu).unwrap_err().to_string();
    assert!(
        e.contains("`test_affine_v2`")
            && e.contains("`hash_grid_mlp`")
            && e.contains("`test_affine`"),
        "{e}"
    );
    // Its tensors must fit its configuration, like any model's.
    ck.metadata["model_kind"] = "test_affine".into();
    ck.metadata["architecture"]["inputs"] = 3.into();
    ck.save(&path).unwrap();
    let e = FittedModel::load(&path, &cpu).unwrap_err().to_string();
    assert!(e.contains("tensors do not fit"), "{e}");
}

/// Another model type with the name `test_affine` (an affine map under another type).
struct Impostor<B: Backend>(Affine<B>);

impl<B: Backend> Layer<B> for Impostor<B> {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn input_dim(&self) -> usize {
        self.0.input_dim()
    }
    fn output_dim(&self) -> usize {
        self.0.output_dim()
    }
    fn forward(&mut self, x: &Tensor<B>) -> nn::Result<&Tensor<B>> {
        self.0.forward(x)
    }
    fn output(&self) -> Option<&Tensor<B>> {
        self.0.output()
    }
    fn backward(&mut self, x: &Tensor<B>, grad: &Tensor<B>) -> nn::Result<&Tensor<B>> {
        self.0.backward(x, grad)
    }
    fn backward_params(&mut self, x: &Tensor<B>, grad: &Tensor<B>) -> nn::Result<()> {
        self.0.backward_params(x, grad)
    }
    fn input_grad(&self) -> Option<&Tensor<B>> {
        self.0.input_grad()
    }
    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> nn::Result<()> {
        self.0.infer(x, out)
    }
    fn visit_params(&self, f: &mut dyn FnMut(ParamRef<'_, B>) -> nn::Result<()>) -> nn::Result<()> {
        self.0.visit_params(f)
    }
    fn visit_params_mut(
        &mut self,
        f: &mut dyn FnMut(ParamMut<'_, B>) -> nn::Result<()>,
    ) -> nn::Result<()> {
        self.0.visit_params_mut(f)
    }
    fn set_accumulate_grads(&mut self, accumulate: bool) {
        self.0.set_accumulate_grads(accumulate)
    }
}

impl<B: Backend> Model<B> for Impostor<B> {
    type Config = AffineConfig;
    const KIND: &'static str = Affine::<B>::KIND;

    fn backend(&self) -> &B {
        self.0.backend()
    }
    fn from_config(backend: &B, config: &AffineConfig, seed: u64) -> nn::Result<Self> {
        Affine::from_config(backend, config, seed).map(Impostor)
    }
    fn config(&self) -> &AffineConfig {
        self.0.config()
    }
    fn predict(&self, x: &Tensor<B>) -> nn::Result<Tensor<B>> {
        self.0.predict(x)
    }
}

#[test]
fn another_type_cannot_take_a_registered_kind() {
    registered();
    let e = register::<CpuBackend, Impostor<CpuBackend>>().unwrap_err();
    assert!(
        e.to_string()
            .contains("`test_affine` is already registered"),
        "{e}"
    );
    let kinds = io::fitted::known_kinds::<CpuBackend>();
    assert_eq!(kinds.iter().filter(|k| **k == "test_affine").count(), 1);
    // The file of the kind still loads as the type that holds it.
    let cpu = CpuBackend::new();
    let info = ModelInfo::regression(&["x"], &["y"]);
    let model = FittedModel::new(Impostor(affine(&cpu, 1, &[2.0], &[1.0])), info).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("impostor.safetensors");
    model.save(&path).unwrap();
    let back = FittedModel::load(&path, &cpu).unwrap();
    assert!(
        back.network()
            .downcast_ref::<Affine<CpuBackend>>()
            .is_some()
    );
}

#[test]
fn another_crate_keeps_a_value_beside_the_kind() {
    registered();
    io::fitted::register_with::<CpuBackend, Affine<CpuBackend>, u32>(7).unwrap();
    registered();
    assert_eq!(
        io::fitted::extension::<CpuBackend, u32>("test_affine"),
        Some(7)
    );
    assert_eq!(
        io::fitted::extension::<CpuBackend, u64>("test_affine"),
        None
    );
    assert_eq!(io::fitted::extension::<CpuBackend, u32>("mlp"), None);
}
