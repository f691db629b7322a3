//! Where cuBLAS is looked for, in order:
//!
//! 1. `$IRON_LEARN_CUBLAS`, a path to the library file;
//! 2. `libcublas.so.13`, `libcublas.so.12` and `libcublas.so` on the loader's search path;
//! 3. the same names in CUDA toolkits: `$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`;
//! 4. NVIDIA's Python wheels: `nvidia/cu13/lib` (`nvidia-cublas`, CUDA 13) and
//!    `nvidia/cublas/lib` (`nvidia-cublas-cu12`) in every `site-packages` folder found
//!    without running Python: active virtual and conda environments, the prefixes of the
//!    `python3` programs on `PATH`, `$PYTHONPATH`, the user's site folder, pyenv's versions
//!    and the system's;
//! 5. every `libcublas.so*` that `ldconfig -p` lists for this architecture, newest first
//!    (run only when everything before failed).

use std::path::{Path, PathBuf};

/// The environment variable that names the cuBLAS library file to use.
pub const CUBLAS_ENV: &str = "IRON_LEARN_CUBLAS";

/// The cuBLAS library names tried, newest first.
const CUBLAS_NAMES: [&str; 3] = ["libcublas.so.13", "libcublas.so.12", "libcublas.so"];

/// The cuBLAS files of NVIDIA's wheels, relative to a `site-packages` folder.
const WHEEL_FILES: [&str; 3] = [
    "nvidia/cu13/lib/libcublas.so.13",
    "nvidia/cublas/lib/libcublas.so.13",
    "nvidia/cublas/lib/libcublas.so.12",
];

/// The library folders of a CUDA toolkit.
#[cfg(target_arch = "aarch64")]
const TOOLKIT_LIB_DIRS: [&str; 3] = ["lib64", "targets/sbsa-linux/lib", "lib"];
#[cfg(not(target_arch = "aarch64"))]
const TOOLKIT_LIB_DIRS: [&str; 3] = ["lib64", "targets/x86_64-linux/lib", "lib"];

/// How `ldconfig -p` marks libraries of this architecture.
#[cfg(target_arch = "aarch64")]
const LDCONFIG_ARCH: &str = "AArch64";
#[cfg(target_arch = "x86_64")]
const LDCONFIG_ARCH: &str = "x86-64";
#[cfg(not(any(target_arch = "aarch64", target_arch = "x86_64")))]
const LDCONFIG_ARCH: &str = "";

/// Everything the search reads from the system, so that tests can give it a made-up one.
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchEnv {
    /// `$IRON_LEARN_CUBLAS`.
    pub explicit: Option<PathBuf>,
    /// CUDA toolkit roots, in order.
    pub toolkits: Vec<PathBuf>,
    /// Folders on `PATH`, in order.
    pub path: Vec<PathBuf>,
    /// `$VIRTUAL_ENV` and `$CONDA_PREFIX`.
    pub environments: Vec<PathBuf>,
    /// `$PYTHONPATH`.
    pub python_path: Vec<PathBuf>,
    /// The home folder.
    pub home: Option<PathBuf>,
    /// `$PYENV_ROOT` (default `~/.pyenv`).
    pub pyenv_root: Option<PathBuf>,
    /// Prefixes of the system's Python installations (`/usr/local`, `/usr`).
    pub system_prefixes: Vec<PathBuf>,
    /// Runs `ldconfig -p` and returns what it printed.
    pub ldconfig: Option<fn() -> Option<String>>,
}

impl SearchEnv {
    /// The environment of this process.
    pub(crate) fn from_process() -> SearchEnv {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let paths = |name: &str| {
            var(name)
                .map(|v| std::env::split_paths(&v).collect())
                .unwrap_or_default()
        };
        let home = var("HOME").map(PathBuf::from);
        SearchEnv {
            explicit: var(CUBLAS_ENV).map(PathBuf::from),
            toolkits: ["CUDA_HOME", "CUDA_PATH"]
                .iter()
                .filter_map(|v| var(v).map(PathBuf::from))
                .chain([PathBuf::from("/usr/local/cuda")])
                .collect(),
            path: paths("PATH"),
            environments: ["VIRTUAL_ENV", "CONDA_PREFIX"]
                .iter()
                .filter_map(|v| var(v).map(PathBuf::from))
                .collect(),
            python_path: paths("PYTHONPATH"),
            pyenv_root: var("PYENV_ROOT")
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".pyenv"))),
            home,
            system_prefixes: vec!["/usr/local".into(), "/usr".into()],
            ldconfig: Some(run_ldconfig),
        }
    }

    /// Every candidate before `ldconfig`'s, in order: the explicit file, the bare names for
    /// the loader, then the toolkit and wheel files that exist.
    pub(crate) fn candidates(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.explicit.iter().cloned().collect();
        out.extend(CUBLAS_NAMES.map(PathBuf::from));
        for root in &self.toolkits {
            for dir in TOOLKIT_LIB_DIRS {
                out.extend(CUBLAS_NAMES.map(|n| root.join(dir).join(n)));
            }
        }
        for site in self.site_packages() {
            out.extend(
                WHEEL_FILES
                    .map(|f| site.join(f))
                    .into_iter()
                    .filter(|p| p.is_file()),
            );
        }
        dedup(out)
    }

    /// The `libcublas.so*` files `ldconfig -p` lists for this architecture, newest first.
    pub(crate) fn ldconfig_candidates(&self) -> Vec<PathBuf> {
        self.ldconfig
            .and_then(|run| run())
            .map(|text| parse_ldconfig(&text, LDCONFIG_ARCH))
            .unwrap_or_default()
    }

    /// The `site-packages` (and `dist-packages`) folders that exist, in search order.
    pub(crate) fn site_packages(&self) -> Vec<PathBuf> {
        let mut prefixes: Vec<PathBuf> = self.environments.clone();
        for dir in &self.path {
            for program in ["python3", "python"] {
                let exe = dir.join(program);
                if !exe.is_file() {
                    continue;
                }
                if let Some(prefix) = dir.parent() {
                    prefixes.push(prefix.to_path_buf());
                }
                // A symlink into an installation (`/usr/bin/python3 -> python3.12`, a
                // virtual environment's `python -> /opt/python/bin/python3.12`).
                if let Some(prefix) = exe.canonicalize().ok().and_then(|p| grandparent(&p)) {
                    prefixes.push(prefix);
                }
            }
        }
        let mut sites: Vec<PathBuf> = Vec::new();
        for prefix in dedup(prefixes) {
            sites.extend(python_lib_dirs(&prefix.join("lib")));
        }
        sites.extend(self.python_path.iter().filter(|p| p.is_dir()).cloned());
        if let Some(home) = &self.home {
            sites.extend(python_lib_dirs(&home.join(".local/lib")));
        }
        if let Some(root) = &self.pyenv_root {
            for version in sorted_entries(&root.join("versions")) {
                sites.extend(python_lib_dirs(&version.join("lib")));
            }
        }
        for prefix in &self.system_prefixes {
            sites.extend(python_lib_dirs(&prefix.join("lib")));
            let shared = prefix.join("lib/python3/dist-packages");
            if shared.is_dir() {
                sites.push(shared);
            }
        }
        dedup(sites)
    }
}

/// `lib/python3.X/site-packages` and `lib/python3.X/dist-packages` under `lib`.
fn python_lib_dirs(lib: &Path) -> Vec<PathBuf> {
    sorted_entries(lib)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python3"))
        })
        .flat_map(|p| [p.join("site-packages"), p.join("dist-packages")])
        .filter(|p| p.is_dir())
        .collect()
}

/// The entries of `dir`, sorted by name (newest Python version last); none when unreadable.
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

/// The folder two levels up (`/opt/py/bin/python3` -> `/opt/py`).
fn grandparent(p: &Path) -> Option<PathBuf> {
    Some(p.parent()?.parent()?.to_path_buf())
}

/// `items` without repeats, in first-seen order.
fn dedup(items: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The cuBLAS files in the output of `ldconfig -p` for architecture `arch` (as ldconfig
/// writes it, "x86-64"; empty for any), highest version suffix first.
pub(crate) fn parse_ldconfig(text: &str, arch: &str) -> Vec<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = text
        .lines()
        .filter_map(|line| {
            let (left, path) = line.trim().split_once(" => ")?;
            let (name, flags) = left.split_once(' ')?;
            let version = name.strip_prefix("libcublas.so")?;
            let major = match version.strip_prefix('.') {
                Some(v) => v.split('.').next()?.parse().ok()?,
                None if version.is_empty() => 0,
                None => return None,
            };
            (arch.is_empty() || flags.contains(arch)).then(|| (major, PathBuf::from(path.trim())))
        })
        .collect();
    found.sort_by_key(|(major, _)| std::cmp::Reverse(*major));
    dedup(found.into_iter().map(|(_, p)| p).collect())
}

/// `ldconfig -p`, from `PATH` or the usual system folders.
fn run_ldconfig() -> Option<String> {
    ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
        .iter()
        .find_map(|program| {
            let out = std::process::Command::new(program)
                .arg("-p")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
        })
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
