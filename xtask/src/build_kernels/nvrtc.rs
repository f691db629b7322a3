//! Compiling with NVRTC, loaded at run time (no toolkit needed: the
//! `nvidia-cuda-nvrtc-cu12` wheel ships `libnvrtc.so.12`).

use super::source::KernelSource;
use super::{Compiler, VIRTUAL_ARCH, wheel};
use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

type Program = *mut c_void;
type NvrtcResult = c_int;

/// The NVRTC entry points used here, resolved from the loaded library.
pub struct Nvrtc {
    version: (c_int, c_int),
    get_error_string: unsafe extern "C" fn(NvrtcResult) -> *const c_char,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> NvrtcResult,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult,
    get_log_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_log: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    destroy_program: unsafe extern "C" fn(*mut Program) -> NvrtcResult,
    // The libraries stay loaded as long as the function pointers above are used.
    _builtins: Option<Library>,
    _lib: Library,
}

/// Where libnvrtc may be: `$NVRTC_LIBRARY`, the wheel, then the loader's search path.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("NVRTC_LIBRARY") {
        out.push(PathBuf::from(p));
    }
    if let Some(dir) = wheel::package_dir("cuda_nvrtc") {
        out.push(dir.join("lib").join("libnvrtc.so.12"));
    }
    out.extend(["libnvrtc.so.12", "libnvrtc.so"].map(PathBuf::from));
    out
}

/// Loads `libnvrtc-builtins` from the folder of `lib` first, so that NVRTC finds it there
/// even when that folder is not on the loader's search path.
fn preload_builtins(lib: &Path) -> Option<Library> {
    let dir = lib.parent()?;
    let entry = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("libnvrtc-builtins.so")
        })?;
    // SAFETY: loading the NVRTC builtins library runs no initialisation with preconditions.
    unsafe { Library::new(entry.path()) }.ok()
}

impl Nvrtc {
    /// Loads NVRTC from the first candidate that opens.
    pub fn load() -> Result<Self, String> {
        let tried = candidates();
        for path in &tried {
            // SAFETY: libnvrtc's initialisers have no preconditions.
            let Ok(lib) = (unsafe { Library::new(path) }) else {
                continue;
            };
            let builtins = preload_builtins(path);
            return Self::from_library(lib, builtins)
                .map_err(|e| format!("{}: {e}", path.display()));
        }
        Err(format!(
            "libnvrtc not found (tried {}); `pip install nvidia-cuda-nvrtc-cu12==12.4.*` or set NVRTC_LIBRARY",
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    fn from_library(lib: Library, builtins: Option<Library>) -> Result<Self, String> {
        // SAFETY: each symbol is looked up with the signature of the NVRTC C API.
        unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("missing {}: {e}", $name))?
                };
            }
            let version_fn: unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult =
                sym!("nvrtcVersion");
            let mut version = (0, 0);
            version_fn(&mut version.0, &mut version.1);
            Ok(Nvrtc {
                version,
                get_error_string: sym!("nvrtcGetErrorString"),
                create_program: sym!("nvrtcCreateProgram"),
                compile_program: sym!("nvrtcCompileProgram"),
                get_log_size: sym!("nvrtcGetProgramLogSize"),
                get_log: sym!("nvrtcGetProgramLog"),
                get_ptx_size: sym!("nvrtcGetPTXSize"),
                get_ptx: sym!("nvrtcGetPTX"),
                destroy_program: sym!("nvrtcDestroyProgram"),
                _builtins: builtins,
                _lib: lib,
            })
        }
    }

    fn check(&self, what: &str, code: NvrtcResult) -> Result<(), String> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: nvrtcGetErrorString returns a static string for any code.
        let msg = unsafe { CStr::from_ptr((self.get_error_string)(code)) };
        Err(format!("{what}: {}", msg.to_string_lossy()))
    }

    fn log(&self, prog: Program) -> String {
        let mut size = 0usize;
        // SAFETY: `prog` is a live program; the buffer has the size NVRTC reported.
        unsafe {
            if (self.get_log_size)(prog, &mut size) != 0 || size == 0 {
                return String::new();
            }
            let mut buf = vec![0u8; size];
            (self.get_log)(prog, buf.as_mut_ptr().cast());
            String::from_utf8_lossy(&buf)
                .trim_end_matches('\0')
                .to_string()
        }
    }

    fn compile_in(&self, prog: Program) -> Result<String, String> {
        let options: Vec<CString> = [
            format!("--gpu-architecture={VIRTUAL_ARCH}"),
            "--fmad=false".into(),
            "--generate-line-info".into(),
        ]
        .into_iter()
        .map(|o| CString::new(o).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
        let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `prog` is live, the option strings outlive the call.
        let code = unsafe { (self.compile_program)(prog, ptrs.len() as c_int, ptrs.as_ptr()) };
        let log = self.log(prog);
        if code != 0 {
            return Err(format!("compilation failed:\n{log}"));
        }
        if !log.trim().is_empty() {
            eprintln!("{log}");
        }
        let mut size = 0usize;
        // SAFETY: `prog` compiled; the buffer has the size NVRTC reported.
        unsafe {
            self.check("nvrtcGetPTXSize", (self.get_ptx_size)(prog, &mut size))?;
            let mut buf = vec![0u8; size];
            self.check("nvrtcGetPTX", (self.get_ptx)(prog, buf.as_mut_ptr().cast()))?;
            Ok(String::from_utf8_lossy(&buf)
                .trim_end_matches('\0')
                .to_string())
        }
    }
}

impl Compiler for Nvrtc {
    fn describe(&self) -> String {
        format!("NVRTC {}.{}", self.version.0, self.version.1)
    }

    fn compile(&self, kernel: &KernelSource, _dir: &Path) -> Result<String, String> {
        let to_c = |s: &str| CString::new(s).map_err(|e| e.to_string());
        let src = to_c(&kernel.text)?;
        let name = to_c(&kernel.file_name())?;
        let header_texts: Vec<CString> = kernel
            .headers
            .iter()
            .map(|(_, t)| to_c(t))
            .collect::<Result<_, _>>()?;
        let header_names: Vec<CString> = kernel
            .headers
            .iter()
            .map(|(n, _)| to_c(n))
            .collect::<Result<_, _>>()?;
        let text_ptrs: Vec<*const c_char> = header_texts.iter().map(|c| c.as_ptr()).collect();
        let name_ptrs: Vec<*const c_char> = header_names.iter().map(|c| c.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: every string is NUL-terminated and outlives the call.
        let code = unsafe {
            (self.create_program)(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                text_ptrs.len() as c_int,
                text_ptrs.as_ptr(),
                name_ptrs.as_ptr(),
            )
        };
        self.check("nvrtcCreateProgram", code)?;
        let result = self.compile_in(prog);
        // SAFETY: `prog` was created above and is destroyed once.
        unsafe { (self.destroy_program)(&mut prog) };
        result
    }
}
