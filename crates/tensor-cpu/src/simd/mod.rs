//! Which vector instructions the kernels of this crate use: decided once per process, in
//! this module only, from the CPU's features and the `IRON_LEARN_SIMD` variable.
//!
//! `IRON_LEARN_SIMD=scalar|avx2|avx512|neon` forces a path (so that every path can be
//! tested on one machine); a path the CPU lacks, or a name that is no path, is refused by
//! [`simd_path`] in one line, and the kernels then run the path detected from the CPU.
//!
//! The paths, from the slowest:
//! - `scalar`: none of this crate's vector kernels (the skinny products fall back to the
//!   general GEMM, the fused training pass to layer-by-layer products, element-wise loops to
//!   the baseline instruction set); the reference the others are checked against.
//! - `avx2`: AVX2 and FMA (x86-64).
//! - `avx512`: AVX-512 F, BW, DQ and VL on top of AVX2 (x86-64).
//! - `neon`: Advanced SIMD (aarch64, where every CPU has it).
//!
//! Each vector algorithm is written once over [`vector::F32s`] and instantiated per path.

/// Puts the `#[target_feature]` of the vector path `avx2`, `avx512` or `neon` on each item
/// that follows: the one spelling of each path's instructions, those that
/// [`SimdPath::supported`] detects, so that an item compiled for a path runs on every CPU
/// where the path is chosen. (An attribute takes a literal, not a constant.)
macro_rules! target_features {
    (avx2: $($item:item)*) => {
        $( #[target_feature(enable = "avx2,fma")] $item )*
    };
    (avx512: $($item:item)*) => {
        $( #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")] $item )*
    };
    (neon: $($item:item)*) => {
        $( #[target_feature(enable = "neon")] $item )*
    };
}

pub(crate) use target_features;

pub(crate) mod vector;

use std::sync::OnceLock;

/// The environment variable that forces a path.
pub const SIMD_VAR: &str = "IRON_LEARN_SIMD";

/// A set of vector instructions the kernels of this crate can run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdPath {
    /// No vector kernel of this crate: the reference path.
    Scalar,
    /// AVX2 with FMA, 8 lanes of `f32`.
    Avx2,
    /// AVX-512 (F, BW, DQ, VL), 16 lanes of `f32`.
    Avx512,
    /// aarch64 Advanced SIMD, 4 lanes of `f32` (kernels pair two registers).
    Neon,
}

impl SimdPath {
    /// Every path, in the order of the names [`SimdPath::name`] gives.
    pub const ALL: [SimdPath; 4] = [
        SimdPath::Scalar,
        SimdPath::Avx2,
        SimdPath::Avx512,
        SimdPath::Neon,
    ];

    /// The path's name, as `IRON_LEARN_SIMD` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SimdPath::Scalar => "scalar",
            SimdPath::Avx2 => "avx2",
            SimdPath::Avx512 => "avx512",
            SimdPath::Neon => "neon",
        }
    }

    /// The path named `name` (as [`SimdPath::name`] writes it, any case).
    pub fn from_name(name: &str) -> Option<SimdPath> {
        let name = name.trim().to_ascii_lowercase();
        SimdPath::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether this CPU can run the path.
    pub fn supported(self) -> bool {
        match self {
            SimdPath::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx512 => {
                SimdPath::Avx2.supported()
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512dq")
                    && is_x86_feature_detected!("avx512vl")
            }
            #[cfg(target_arch = "aarch64")]
            SimdPath::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The fastest path this CPU can run.
    pub fn detected() -> SimdPath {
        [SimdPath::Avx512, SimdPath::Avx2, SimdPath::Neon]
            .into_iter()
            .find(|p| p.supported())
            .unwrap_or(SimdPath::Scalar)
    }
}

impl std::fmt::Display for SimdPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The path the request `forced` (the value of `IRON_LEARN_SIMD`, if set) selects on this
/// CPU, or the one-line reason it is refused.
fn choose(forced: Option<&str>) -> Result<SimdPath, String> {
    let Some(name) = forced.filter(|v| !v.trim().is_empty()) else {
        return Ok(SimdPath::detected());
    };
    let usable: Vec<&str> = SimdPath::ALL
        .into_iter()
        .filter(|p| p.supported())
        .map(SimdPath::name)
        .collect();
    match SimdPath::from_name(name) {
        Some(path) if path.supported() => Ok(path),
        Some(path) => Err(format!(
            "{name:?} asks for the {path} path, which this CPU cannot run (it can run: {})",
            usable.join(", ")
        )),
        None => Err(format!(
            "{name:?} is not a path (scalar, avx2, avx512 or neon; this CPU can run: {})",
            usable.join(", ")
        )),
    }
}

/// The choice made once for this process.
fn chosen() -> &'static Result<SimdPath, String> {
    static CHOSEN: OnceLock<Result<SimdPath, String>> = OnceLock::new();
    CHOSEN.get_or_init(|| choose(std::env::var(SIMD_VAR).ok().as_deref()))
}

/// The path the kernels of this crate run in this process: the fastest the CPU has, or the
/// one `IRON_LEARN_SIMD` forces; an error (one line, [`tensor_core::Error::InvalidArgument`])
/// when the variable names no path or one this CPU lacks.
pub fn simd_path() -> tensor_core::Result<SimdPath> {
    chosen()
        .clone()
        .map_err(|reason| tensor_core::Error::InvalidArgument {
            op: SIMD_VAR,
            reason,
        })
}

/// The path the kernels run: as [`simd_path`], the detected path where the variable was
/// refused.
#[inline]
pub(crate) fn active() -> SimdPath {
    match chosen() {
        Ok(path) => *path,
        Err(_) => SimdPath::detected(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for p in SimdPath::ALL {
            assert_eq!(SimdPath::from_name(p.name()), Some(p));
            assert_eq!(SimdPath::from_name(&p.name().to_uppercase()), Some(p));
        }
        assert_eq!(SimdPath::from_name("sse"), None);
        let e = choose(Some("sse")).unwrap_err();
        assert!(e.starts_with("\"sse\" is not a path"), "{e}");
        assert!(e.contains("scalar"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn an_unset_or_empty_variable_gives_the_detected_path() {
        assert_eq!(choose(None), Ok(SimdPath::detected()));
        assert_eq!(choose(Some(" ")), Ok(SimdPath::detected()));
        assert_eq!(choose(Some("scalar")), Ok(SimdPath::Scalar));
        assert!(SimdPath::detected().supported());
    }

    #[test]
    fn a_path_the_cpu_lacks_is_refused_in_one_line() {
        #[cfg(target_arch = "x86_64")]
        let lacking = SimdPath::Neon;
        #[cfg(not(target_arch = "x86_64"))]
        let lacking = SimdPath::Avx2;
        assert!(!lacking.supported());
        let e = choose(Some(lacking.name())).unwrap_err();
        assert!(e.contains("which this CPU cannot run"), "{e}");
        assert!(e.contains("it can run: scalar"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
