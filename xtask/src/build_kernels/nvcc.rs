//! Compiling with nvcc from a CUDA toolkit.

use super::source::KernelSource;
use super::{Compiler, VIRTUAL_ARCH, wheel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// An nvcc executable and its release ("12.4").
pub struct Nvcc {
    path: PathBuf,
    release: String,
}

impl Nvcc {
    /// Finds nvcc on `PATH` or under `$CUDA_HOME`/`/usr/local/cuda`.
    pub fn find() -> Result<Self, String> {
        let path =
            wheel::toolkit_program("nvcc").ok_or("nvcc not found on PATH or in $CUDA_HOME/bin")?;
        let out = Command::new(&path)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let release = text
            .split("release ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .unwrap_or("unknown")
            .trim()
            .to_string();
        if !release.starts_with("12.") {
            eprintln!(
                "warning: nvcc {release}: a compiler other than CUDA 12 may not support \
                 {VIRTUAL_ARCH} (CUDA 13 dropped it) or may write PTX that needs a newer ISA \
                 than the one declared; `--compiler nvrtc` with the 12.4 wheel gives the \
                 reference output"
            );
        }
        Ok(Nvcc { path, release })
    }
}

impl Compiler for Nvcc {
    fn describe(&self) -> String {
        format!("nvcc {}", self.release)
    }

    fn compile(&self, kernel: &KernelSource, dir: &Path) -> Result<String, String> {
        let out_file = std::env::temp_dir().join(format!(
            "iron-learn-{}-{}.ptx",
            kernel.stem,
            std::process::id()
        ));
        let output = Command::new(&self.path)
            .current_dir(dir)
            .args([
                "-ptx",
                &format!("-arch={VIRTUAL_ARCH}"),
                "-fmad=false",
                "-lineinfo",
                "-o",
            ])
            .arg(&out_file)
            .arg(kernel.file_name())
            .output()
            .map_err(|e| format!("cannot run nvcc: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "nvcc failed:\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let ptx = std::fs::read_to_string(&out_file).map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&out_file);
        ptx
    }
}
