//! Refusing an output that is one of the command's own inputs.

use std::fs;
use std::path::Path;

use crate::error::{Error, Result};

/// Refuses to write `output` when it is one of `inputs`: the same path after resolving links,
/// or the same file under another name (a hard link: same device and inode). Call it before
/// anything is written. Inputs that do not exist, and an output that does not exist yet, are
/// never the same file.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let model = dir.path().join("model.safetensors");
/// std::fs::write(&model, b"weights")?;
/// let e = io::output::refuse_own_input(&model, &[&model]).unwrap_err();
/// assert!(e.to_string().starts_with("refusing to write"));
/// io::output::refuse_own_input(&dir.path().join("model.onnx"), &[&model])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn refuse_own_input(output: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(out_meta) = fs::metadata(output) else {
        return Ok(());
    };
    for input in inputs {
        let Ok(in_meta) = fs::metadata(input) else {
            continue;
        };
        if same_identity(&out_meta, &in_meta) || same_resolved_path(output, input) {
            return Err(Error::invalid(format!(
                "refusing to write `{}`: it is this command's input `{}`, which would be lost; \
                 choose another output",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_identity(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_identity(_a: &fs::Metadata, _b: &fs::Metadata) -> bool {
    false
}

fn same_resolved_path(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}
