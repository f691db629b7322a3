//! Checkpoints: round trips, bad files, mismatches.

use std::path::Path;

use io::Error;
use io::checkpoint::{Checkpoint, NamedTensor, first_difference};
use serde_json::json;

fn sample() -> Checkpoint {
    let mut ck = Checkpoint::new(json!({
        "step": 1200,
        "architecture": {"input": 2, "layers": [{"width": 64, "activation": "sine"}, {"width": 1, "activation": "identity"}]},
        "standardizer": {"mean": [0.5, -1.0], "std": [2.0, 1.0]},
        "lr": 1e-4
    }));
    let w: Vec<f32> = (0..128)
        .map(|i| (i as f32 * 0.37).sin() * 1e-3 + i as f32)
        .collect();
    ck.insert("layers.0.weight", vec![64, 2], w).unwrap();
    ck.insert("layers.0.bias", vec![64], vec![f32::MIN_POSITIVE; 64])
        .unwrap();
    ck.insert("layers.1.weight", vec![1, 64], vec![-0.0; 64])
        .unwrap();
    ck.insert("adam.step", vec![], vec![1200.0]).unwrap();
    ck
}

#[test]
fn save_load_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.safetensors");
    let ck = sample();
    ck.save(&path).unwrap();
    let back = Checkpoint::load(&path).unwrap();
    assert_eq!(back, ck);
    for (name, t) in &ck.tensors {
        let b = &back.tensors[name];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&b.data), bits(&t.data), "{name} bit for bit");
    }
    assert_eq!(back.metadata["step"], 1200);
    assert_eq!(back.tensor("adam.step").unwrap().shape, Vec::<usize>::new());
    // Only the checkpoint is left in the folder: no temporary files.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["model.safetensors"]);
}

/// The file follows the safetensors layout: 8-byte little-endian header length, a JSON header
/// with dtype/shape/data_offsets and `__metadata__` (string -> string), then raw data.
#[test]
fn file_is_standard_safetensors() {
    let bytes = sample().to_bytes().unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    assert_eq!(header["layers.0.bias"]["dtype"], "F32");
    assert_eq!(header["layers.0.weight"]["shape"], json!([64, 2]));
    let meta = header["__metadata__"]["iron_learn"].as_str().unwrap();
    let meta: serde_json::Value = serde_json::from_str(meta).unwrap();
    assert_eq!(meta["architecture"]["input"], 2);
    let (start, end) = (
        header["adam.step"]["data_offsets"][0].as_u64().unwrap() as usize,
        header["adam.step"]["data_offsets"][1].as_u64().unwrap() as usize,
    );
    let v = f32::from_le_bytes(bytes[8 + n + start..8 + n + end].try_into().unwrap());
    assert_eq!(v, 1200.0);
    assert_eq!(n % 8, 0, "header padded to 8 bytes");
}

/// The file written tensor by tensor is byte for byte what the safetensors crate's own
/// serialiser makes of the same tensors and metadata, and `save` writes the same bytes.
#[test]
fn streamed_file_matches_the_safetensors_serialiser() {
    let ck = sample();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = ck
        .tensors
        .iter()
        .map(|(name, t)| {
            let bytes: &[u8] = bytemuck::cast_slice(&t.data);
            let view = safetensors::tensor::TensorView::new(
                safetensors::Dtype::F32,
                t.shape.clone(),
                bytes,
            )
            .unwrap();
            (name.clone(), view)
        })
        .collect();
    let info = std::collections::HashMap::from([(
        "iron_learn".to_string(),
        serde_json::to_string(&ck.metadata).unwrap(),
    )]);
    let reference = safetensors::serialize(views, Some(info)).unwrap();
    assert_eq!(ck.to_bytes().unwrap(), reference);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.safetensors");
    ck.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), reference);
}

fn load_bytes(dir: &Path, name: &str, bytes: &[u8]) -> Error {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let e = Checkpoint::load(&path).unwrap_err();
    assert!(e.to_string().contains(name), "message names the file: {e}");
    e
}

#[test]
fn truncated_file_is_reported_as_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let full = sample().to_bytes().unwrap();
    for cut in [0, 5, 20, full.len() / 2, full.len() - 1] {
        let e = load_bytes(dir.path(), "cut.safetensors", &full[..cut]);
        assert!(
            matches!(e, Error::CheckpointTruncated { .. }),
            "cut at {cut}: {e:?}"
        );
        assert!(e.to_string().contains("is truncated"), "{e}");
    }
}

#[test]
fn garbage_file_is_not_safetensors() {
    let dir = tempfile::tempdir().unwrap();
    let e = load_bytes(
        dir.path(),
        "notes.txt",
        b"These are my notes, not a model at all.\n",
    );
    assert!(matches!(e, Error::NotSafetensors { .. }), "{e:?}");
    // An ONNX graph (protobuf) is named as one.
    let e = load_bytes(
        dir.path(),
        "model.onnx",
        b"\x08\x08\x12\x0airon-learn\x3a\x10",
    );
    assert!(
        matches!(e, Error::NotSafetensors { .. }) && e.to_string().contains("ONNX graph"),
        "{e}"
    );
    // A plausible length followed by something that is not JSON.
    let mut b = 16u64.to_le_bytes().to_vec();
    b.extend_from_slice(b"{not json at all");
    let e = load_bytes(dir.path(), "bad_header.safetensors", &b);
    assert!(
        matches!(e, Error::NotSafetensors { .. }) && e.to_string().contains("JSON"),
        "{e}"
    );
    // Valid header, but trailing bytes after the data.
    let mut b = sample().to_bytes().unwrap();
    b.extend_from_slice(&[0, 0, 0, 0]);
    let e = load_bytes(dir.path(), "long.safetensors", &b);
    assert!(matches!(e, Error::NotSafetensors { .. }), "{e:?}");
}

#[test]
fn non_f32_dtype_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = [1u8, 0, 0, 0, 0, 0, 0, 0];
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F64, vec![1], &data).unwrap();
    let bytes = safetensors::serialize([("w", view)], None).unwrap();
    let e = load_bytes(dir.path(), "f64.safetensors", &bytes);
    assert!(
        matches!(e, Error::UnsupportedDtype { ref tensor, .. } if tensor == "w"),
        "{e:?}"
    );
    assert!(e.to_string().contains("F64"), "{e}");
}

#[test]
fn file_without_metadata_loads_with_null_metadata() {
    let data = 2.5f32.to_le_bytes();
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![1], &data).unwrap();
    let bytes = safetensors::serialize([("w", view)], None).unwrap();
    let ck = Checkpoint::from_bytes(&bytes, "plain.safetensors").unwrap();
    assert_eq!(ck.metadata, serde_json::Value::Null);
    assert_eq!(ck.tensor("w").unwrap().data, [2.5]);
}

#[test]
fn missing_file_error() {
    let e = Checkpoint::load("/no/such/folder/model.safetensors").unwrap_err();
    assert!(matches!(e, Error::FileNotFound { .. }));
    assert!(e.to_string().contains("/no/such/folder/model.safetensors"));
}

#[test]
fn missing_tensor_and_shape_mismatch() {
    let ck = sample();
    ck.check_tensors(&[("layers.0.weight", &[64, 2]), ("layers.0.bias", &[64])])
        .unwrap();
    let e = ck
        .check_tensors(&[("layers.0.weight", &[64, 2]), ("layers.2.weight", &[1])])
        .unwrap_err();
    assert!(
        matches!(e, Error::MissingTensor { ref name, .. } if name == "layers.2.weight"),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("layers.0.bias"),
        "lists what is there: {e}"
    );
    let e = ck
        .check_tensors(&[("layers.0.weight", &[2, 64])])
        .unwrap_err();
    match &e {
        Error::ShapeMismatch {
            name,
            expected,
            found,
        } => {
            assert_eq!(name, "layers.0.weight");
            assert_eq!(
                (expected.as_slice(), found.as_slice()),
                (&[2, 64][..], &[64, 2][..])
            );
        }
        other => panic!("wrong error {other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "checkpoint tensor `layers.0.weight` has shape [64, 2] but the model expects [2, 64]"
    );
    let mut ck = ck;
    assert!(ck.take("layers.0.bias").is_ok());
    assert!(matches!(
        ck.take("layers.0.bias").unwrap_err(),
        Error::MissingTensor { .. }
    ));
}

#[test]
fn architecture_mismatch_names_the_field() {
    let ck = sample();
    let arch = ck.metadata["architecture"].clone();
    ck.check_architecture(&arch).unwrap();
    let mut other = arch.clone();
    other["layers"][0]["width"] = json!(128);
    let e = ck.check_architecture(&other).unwrap_err();
    match &e {
        Error::ArchitectureMismatch {
            field,
            expected,
            found,
        } => {
            assert_eq!(field, "architecture.layers[0].width");
            assert_eq!((expected.as_str(), found.as_str()), ("128", "64"));
        }
        other => panic!("wrong error {other:?}"),
    }
    let mut other = arch.clone();
    other["layers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"width": 1}));
    let e = ck.check_architecture(&other).unwrap_err();
    assert!(
        e.to_string().contains("`architecture.layers[2]`")
            && e.to_string().contains("found nothing"),
        "{e}"
    );
    let mut other = arch.clone();
    other["input"] = json!(3.0);
    assert!(
        ck.check_architecture(&other)
            .unwrap_err()
            .to_string()
            .contains("`architecture.input`")
    );
    // 2 and 2.0 are the same number.
    let mut same = arch;
    same["input"] = json!(2.0);
    ck.check_architecture(&same).unwrap();
    let bare = Checkpoint::new(json!({"step": 1}));
    let e = bare.check_architecture(&json!({"input": 2})).unwrap_err();
    assert!(
        e.to_string().contains("`architecture`") && e.to_string().contains("found nothing"),
        "{e}"
    );
}

#[test]
fn first_difference_walks_in_order() {
    assert_eq!(first_difference(&json!({"a": 1}), &json!({"a": 1})), None);
    let d = first_difference(
        &json!({"a": 1, "b": {"c": [1, 2]}}),
        &json!({"a": 1, "b": {"c": [1, 3]}, "z": 0}),
    )
    .unwrap();
    assert_eq!(d.path, "b.c[1]");
    let d = first_difference(&json!({"a": 1}), &json!({"a": 1, "extra": true})).unwrap();
    assert_eq!(
        (d.path.as_str(), d.expected, d.found),
        ("extra", None, Some(json!(true)))
    );
    let d = first_difference(&json!({"a": 1}), &json!({})).unwrap();
    assert_eq!((d.path.as_str(), d.found), ("a", None));
    let d = first_difference(&json!([1]), &json!("x")).unwrap();
    assert_eq!(d.path, "");
}

#[test]
fn overwriting_keeps_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ck.safetensors");
    for step in 0..20u32 {
        let mut ck = Checkpoint::new(json!({"step": step}));
        // Sizes change from save to save.
        let n = 1 + (step as usize * 37) % 300;
        ck.insert("w", vec![n], vec![step as f32; n]).unwrap();
        ck.save(&path).unwrap();
        let back = Checkpoint::load(&path).unwrap();
        assert_eq!(back, ck);
    }
    let entries = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(entries, 1, "no temporary files left behind");
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let mut ck = Checkpoint::default();
    assert!(ck.insert("w", vec![2, 3], vec![0.0; 5]).is_err());
    assert!(ck.insert("__metadata__", vec![1], vec![0.0]).is_err());
    assert!(NamedTensor::new(vec![usize::MAX, 2], vec![]).is_err());
    ck.tensors.insert(
        "broken".into(),
        NamedTensor {
            shape: vec![4],
            data: vec![1.0],
        },
    );
    assert!(ck.to_bytes().is_err());
    let dir = tempfile::tempdir().unwrap();
    assert!(ck.save(dir.path().join("x.safetensors")).is_err());
    let good = sample();
    let e = good
        .save(dir.path().join("missing_dir/x.safetensors"))
        .unwrap_err();
    assert!(e.to_string().contains("missing_dir"), "{e}");
    // Renaming over a folder fails, and leaves the folder alone.
    assert!(good.save(dir.path()).is_err());
    assert!(dir.path().is_dir());
}

/// Metadata numbers survive a save and a load bit for bit, written with any number of digits.
/// Found by fuzzing (fuzz/regressions/checkpoint): `1.017126306891441345` loaded as the float
/// printed `1.0171263068914411`, which loaded again as `1.0171263068914413`, because JSON
/// floats were parsed to within an ulp only; serde_json's `float_roundtrip` makes parsing
/// exact.
#[test]
fn metadata_floats_round_trip_exactly() {
    let texts = [
        "1.017126306891441345",
        "1.0171263068914411",
        "0.0005050000036135316",
        "9.99999993922529e-9",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "0.30000000000000004",
    ];
    for text in texts {
        let meta: serde_json::Value = serde_json::from_str(&format!("{{\"v\": {text}}}")).unwrap();
        let v = meta["v"].as_f64().unwrap();
        let ck = Checkpoint::new(meta);
        let back = Checkpoint::from_bytes(&ck.to_bytes().unwrap(), "m").unwrap();
        let again = back.metadata["v"].as_f64().unwrap();
        assert_eq!(again.to_bits(), v.to_bits(), "{text}");
        // The parse itself is exact: it matches Rust's correctly rounded parser.
        assert_eq!(
            v.to_bits(),
            text.parse::<f64>().unwrap().to_bits(),
            "{text}"
        );
    }
    // The file the fuzzer found loads and round-trips.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions/checkpoint/metadata-float-round-trip.safetensors");
    let ck = Checkpoint::load(&path).unwrap();
    let back = Checkpoint::from_bytes(&ck.to_bytes().unwrap(), "again").unwrap();
    assert_eq!(back.metadata, ck.metadata);
}
