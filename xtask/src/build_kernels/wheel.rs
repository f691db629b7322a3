//! Finding the NVIDIA Python wheels (`nvidia-cuda-nvrtc-cu12`, `nvidia-cuda-nvcc-cu12`).

use std::path::PathBuf;
use std::process::Command;

/// The folder of the Python package `nvidia.<module>` (e.g. `cuda_nvrtc`), asked of
/// `python3` (or `python`), or `None` when no interpreter has it.
pub fn package_dir(module: &str) -> Option<PathBuf> {
    let script = format!("import nvidia.{module} as m; print(list(m.__path__)[0])");
    ["python3", "python"].iter().find_map(|python| {
        let out = Command::new(python).args(["-c", &script]).output().ok()?;
        if !out.status.success() {
            return None;
        }
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        dir.is_dir().then_some(dir)
    })
}

/// The first existing file among `candidates`.
pub fn first_existing(candidates: impl IntoIterator<Item = PathBuf>) -> Option<PathBuf> {
    candidates.into_iter().find(|p| p.is_file())
}

/// `bin/NAME` under `$CUDA_HOME`, `$CUDA_PATH` and `/usr/local/cuda`, then NAME on `PATH`.
pub fn toolkit_program(name: &str) -> Option<PathBuf> {
    let roots = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .chain([PathBuf::from("/usr/local/cuda")]);
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    first_existing(
        on_path
            .into_iter()
            .map(|d| d.join(name))
            .chain(roots.map(|r| r.join("bin").join(name))),
    )
}
