//! Checkpoint <-> safetensors bytes, with precise diagnostics for bad files.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use safetensors::SafeTensors;
use safetensors::tensor::{Metadata, TensorInfo};
use serde_json::Value;

use super::{Checkpoint, METADATA_KEY, NamedTensor, Storage};
use crate::error::{Error, Result};

/// Header length above which a file is taken for something else (the safetensors limit).
const MAX_HEADER: u64 = 100_000_000;

/// The safetensors header of `ck`: its length as 8 little-endian bytes, then the JSON (built
/// with safetensors' own [`Metadata`], so the bytes are the crate's), padded with spaces to a
/// multiple of 8. The tensors follow in name order (the order safetensors writes tensors of one
/// dtype): see [`write_tensors`]. Every tensor is stored as `storage`.
pub(super) fn header(ck: &Checkpoint, storage: Storage) -> Result<Vec<u8>> {
    let cannot =
        |e: &dyn std::fmt::Display| Error::invalid(format!("cannot serialise the checkpoint: {e}"));
    let meta_text = serde_json::to_string(&ck.metadata).map_err(|e| cannot(&e))?;
    let info = HashMap::from([(METADATA_KEY.to_string(), meta_text)]);
    let mut offset = 0;
    let mut tensors = Vec::with_capacity(ck.tensors.len());
    for (name, t) in &ck.tensors {
        let end = offset + t.data.len() * storage.bytes_per_value();
        let data_offsets = (offset, end);
        let shape = t.shape.clone();
        tensors.push((
            name.clone(),
            TensorInfo {
                dtype: storage.dtype(),
                shape,
                data_offsets,
            },
        ));
        offset = end;
    }
    let metadata = Metadata::new(Some(info), tensors).map_err(|e| cannot(&e))?;
    let mut json = serde_json::to_vec(&metadata).map_err(|e| cannot(&e))?;
    json.resize(json.len().next_multiple_of(8), b' ');
    if json.len() as u64 > MAX_HEADER {
        return Err(cannot(
            &"its header is over the safetensors limit of 100 MB",
        ));
    }
    let mut bytes = (json.len() as u64).to_le_bytes().to_vec();
    bytes.extend(json);
    Ok(bytes)
}

/// Writes the tensors of `ck` after its [`header`], each as its values' little-endian
/// bytes in `storage`: for `float32` on little-endian machines (every target this project
/// builds for) those are the values as they lie in memory, so nothing is copied on the way
/// to the file; `float16` converts one tensor at a time. A value `float16` cannot hold is an
/// error of kind `InvalidData` carrying [`Error::BeyondFloat16`]'s sentence.
pub(super) fn write_tensors(
    ck: &Checkpoint,
    storage: Storage,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for (name, t) in &ck.tensors {
        if storage == Storage::Float32 && cfg!(target_endian = "little") {
            out.write_all(bytemuck::cast_slice(&t.data))?;
        } else {
            let bytes = storage
                .encode(name, &t.data)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
            out.write_all(&bytes)?;
        }
    }
    Ok(())
}

pub(super) fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
    let not_st = |detail: String| Error::NotSafetensors {
        path: path.to_path_buf(),
        detail,
    };
    let truncated = |detail: String| Error::CheckpointTruncated {
        path: path.to_path_buf(),
        detail,
    };
    let onnx = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"));
    if onnx && bytes.get(8) != Some(&b'{') {
        return Err(not_st(
            "it is an ONNX graph (for other runtimes); the model file is the run folder's \
             model.safetensors"
                .into(),
        ));
    }
    let len = bytes.len();
    let Some(head) = bytes.get(..8) else {
        return Err(truncated(format!(
            "it has {len} bytes, fewer than the 8 that give the header length"
        )));
    };
    let mut n8 = [0u8; 8];
    n8.copy_from_slice(head);
    let n = u64::from_le_bytes(n8);
    if !(2..=MAX_HEADER).contains(&n) {
        return Err(not_st(format!(
            "its first 8 bytes give a header length of {n} bytes, which no safetensors file has"
        )));
    }
    let n = n as usize;
    let rest = &bytes[8..];
    if rest.first() != Some(&b'{') {
        return Err(not_st("its header does not start with `{`".into()));
    }
    let Some(header) = rest.get(..n) else {
        return Err(truncated(format!(
            "its header needs {n} bytes after the length but the file has only {} ({len} bytes in all)",
            rest.len()
        )));
    };
    let header: Value = std::str::from_utf8(header)
        .map_err(|e| not_st(format!("its header is not UTF-8 text ({e})")))
        .and_then(|text| {
            serde_json::from_str(text)
                .map_err(|e| not_st(format!("its header is not valid JSON ({e})")))
        })?;
    let Value::Object(entries) = &header else {
        return Err(not_st("its header is not a JSON object".into()));
    };
    // Bytes the tensor data needs, from the largest end offset in the header.
    let data_end = entries
        .iter()
        .filter(|(k, _)| k.as_str() != "__metadata__")
        .filter_map(|(_, v)| v.get("data_offsets")?.get(1)?.as_u64())
        .max()
        .unwrap_or(0);
    let have = (len - 8 - n) as u64;
    if data_end > have {
        return Err(truncated(format!(
            "its tensors need {data_end} bytes of data but only {have} follow the header"
        )));
    }
    let st = SafeTensors::deserialize(bytes).map_err(|e| not_st(e.to_string()))?;
    let (_, meta) = SafeTensors::read_metadata(bytes).map_err(|e| not_st(e.to_string()))?;

    let mut tensors = BTreeMap::new();
    for (name, view) in st.iter() {
        let Some(storage) = Storage::of_dtype(view.dtype()) else {
            return Err(Error::UnsupportedDtype {
                path: path.to_path_buf(),
                tensor: name.to_string(),
                dtype: format!("{:?}", view.dtype()),
            });
        };
        let data = storage.decode(view.data());
        tensors.insert(
            name.to_string(),
            NamedTensor {
                shape: view.shape().to_vec(),
                data,
            },
        );
    }
    let metadata = match meta.metadata().as_ref().and_then(|m| m.get(METADATA_KEY)) {
        None => Value::Null,
        Some(text) => serde_json::from_str(text).map_err(|e| {
            not_st(format!(
                "its `{METADATA_KEY}` metadata is not valid JSON ({e})"
            ))
        })?,
    };
    Ok(Checkpoint { tensors, metadata })
}
