//! `cargo xtask build-kernels`: compiles `crates/tensor-cuda/kernels/*.cu` to
//! `crates/tensor-cuda/kernels/ptx/*.ptx`.
//!
//! The files compiled are those of the kernel manifest (`crates/tensor-cuda/src/manifest.rs`,
//! included here by path, as the library and its freshness test use it). The compiler is
//! nvcc when one is found (`PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`), else NVRTC
//! loaded at run time from the `nvidia-cuda-nvrtc-cu12` Python wheel (or the file named by
//! `NVRTC_LIBRARY`). Every kernel targets the virtual architecture `compute_70` with
//! `--fmad=false`. The compiler writes its own PTX ISA version (8.4 for CUDA 12.4, which
//! only drivers from CUDA 12.4 on load); the task replaces it with the manifest's
//! `PTX_ISA_VERSION`, the lowest the kernels need, so that older drivers load them too. Each
//! PTX file starts with a line recording the FNV-1a hash of its source (the `.cu` file
//! followed by the `.cuh` headers it includes), which the tensor-cuda tests check. When
//! `ptxas` is found (also from the `nvidia-cuda-nvcc-cu12` wheel), every PTX file is then
//! assembled for a real GPU (sm_90 by default), which also checks that nothing in it needs a
//! newer PTX ISA than declared, and its registers and spills are reported.

#[path = "../../crates/tensor-cuda/src/manifest.rs"]
mod manifest;
mod nvcc;
mod nvrtc;
mod ptxas;
mod source;
mod wheel;

use crate::TaskResult;
use source::KernelSource;
use std::path::{Path, PathBuf};

/// The one-line description shown by `cargo xtask help`.
pub const ABOUT: &str =
    "compile kernels/*.cu to kernels/ptx/*.ptx (nvcc or NVRTC), check with ptxas";

/// The virtual architecture every kernel is compiled for.
pub use manifest::VIRTUAL_ARCH;

const USAGE: &str = "usage: cargo xtask build-kernels [options]

options:
  --compiler auto|nvcc|nvrtc  which compiler to use (default auto: nvcc if found, else NVRTC)
  --check                     compile nothing; fail if a PTX file is missing, older than its
                              source or declares another PTX ISA version than the manifest
  --ptxas-arch ARCH           the real architecture ptxas checks against (default sm_90)
  --no-ptxas                  skip the ptxas check
  -h, --help                  this text

environment:
  NVRTC_LIBRARY   path of libnvrtc.so.12 (default: found through the nvidia-cuda-nvrtc-cu12 wheel)
  CUDA_HOME       a CUDA toolkit whose bin/ holds nvcc and ptxas";

/// Which compiler turns CUDA C into PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CompilerChoice {
    Auto,
    Nvcc,
    Nvrtc,
}

struct Options {
    compiler: CompilerChoice,
    check_only: bool,
    ptxas_arch: String,
    ptxas: bool,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut opts = Options {
        compiler: CompilerChoice::Auto,
        check_only: false,
        ptxas_arch: "sm_90".into(),
        ptxas: true,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "--check" => opts.check_only = true,
            "--no-ptxas" => opts.ptxas = false,
            "--compiler" => {
                opts.compiler = match it.next().map(String::as_str) {
                    Some("auto") => CompilerChoice::Auto,
                    Some("nvcc") => CompilerChoice::Nvcc,
                    Some("nvrtc") => CompilerChoice::Nvrtc,
                    other => {
                        return Err(format!(
                            "--compiler takes auto, nvcc or nvrtc, got {other:?}"
                        ));
                    }
                }
            }
            "--ptxas-arch" => {
                opts.ptxas_arch = it
                    .next()
                    .ok_or("--ptxas-arch needs a value such as sm_90")?
                    .clone();
            }
            other => return Err(format!("unknown option `{other}`\n\n{USAGE}")),
        }
    }
    Ok(Some(opts))
}

/// The `kernels/` folder of the CUDA backend's crate (`crates/tensor-cuda/kernels`), inside the
/// crate so that its package carries the sources and the PTX it embeds.
fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("crates/tensor-cuda/kernels")
}

/// Something that compiles one kernel source to PTX.
trait Compiler {
    /// A short description for the PTX header ("NVRTC 12.4", "nvcc 12.6").
    fn describe(&self) -> String;
    /// The PTX text of `kernel`.
    fn compile(&self, kernel: &KernelSource, dir: &Path) -> Result<String, String>;
}

fn pick_compiler(choice: CompilerChoice) -> Result<Box<dyn Compiler>, String> {
    let nvcc = || nvcc::Nvcc::find().map(|c| Box::new(c) as Box<dyn Compiler>);
    let nvrtc = || nvrtc::Nvrtc::load().map(|c| Box::new(c) as Box<dyn Compiler>);
    match choice {
        CompilerChoice::Nvcc => nvcc(),
        CompilerChoice::Nvrtc => nvrtc(),
        CompilerChoice::Auto => nvcc().or_else(|nvcc_err| {
            nvrtc().map_err(|nvrtc_err| {
                format!("no CUDA compiler found.\n  nvcc: {nvcc_err}\n  NVRTC: {nvrtc_err}\ninstall one with `pip install nvidia-cuda-nvrtc-cu12==12.4.*`")
            })
        }),
    }
}

/// Runs the task.
pub fn run(args: &[String]) -> TaskResult {
    let Some(opts) = parse(args)? else {
        return Ok(());
    };
    let dir = kernels_dir();
    let kernels = source::discover(&dir)?;
    if kernels.is_empty() {
        return Err(format!("no .cu files in {}", dir.display()).into());
    }
    let ptx_dir = dir.join("ptx");

    if opts.check_only {
        let stale = source::stale_outputs(&kernels, &ptx_dir);
        if stale.is_empty() {
            println!("all {} PTX files match their sources", kernels.len());
            return Ok(());
        }
        return Err(format!(
            "PTX out of date for: {} (run `cargo xtask build-kernels`)",
            stale.join(", ")
        )
        .into());
    }

    let compiler = pick_compiler(opts.compiler)?;
    println!(
        "compiling {} kernel files with {} (declaring PTX ISA {})",
        kernels.len(),
        compiler.describe(),
        manifest::PTX_ISA_VERSION
    );
    std::fs::create_dir_all(&ptx_dir)?;
    let mut outputs = Vec::new();
    for kernel in &kernels {
        let ptx = compiler
            .compile(kernel, &dir)
            .map_err(|e| format!("{}: {e}", kernel.file_name()))?;
        let ptx = source::relative_file_names(ptx.trim_end_matches('\0'));
        let ptx = manifest::declare_isa_version(&ptx)
            .map_err(|e| format!("{}: {e}", kernel.file_name()))?;
        let text = format!("{}\n{ptx}", kernel.header_line(&compiler.describe()));
        let out = ptx_dir.join(format!("{}.ptx", kernel.stem));
        let unchanged = std::fs::read_to_string(&out).is_ok_and(|old| old == text);
        if !unchanged {
            std::fs::write(&out, &text)?;
        }
        println!(
            "  {:<12} -> ptx/{}.ptx ({} bytes{})",
            kernel.file_name(),
            kernel.stem,
            text.len(),
            if unchanged { ", unchanged" } else { "" }
        );
        outputs.push(out);
    }

    if opts.ptxas {
        match ptxas::find() {
            Some(ptxas) => ptxas::check_all(&ptxas, &opts.ptxas_arch, &outputs)?,
            None => println!(
                "ptxas not found (pip install nvidia-cuda-nvcc-cu12); skipping the {} check",
                opts.ptxas_arch
            ),
        }
    }
    Ok(())
}
