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
//! Each vector algorithm is written once over [`vector::F32s`] and compiled per path by
//! [`multiversion!`], the one place the paths' `#[target_feature]`s ([`path_features!`]) are
//! spelled.

/// The instructions of the vector path `avx2`, `avx512` or `neon`: the one spelling of each
/// path's feature names, those [`SimdPath::supported`] detects and those every kernel
/// compiled for the path is compiled with, so that an item compiled for a path runs on every
/// CPU where the path is chosen. Expands to `$crate::simd::$then!([features] $args)`.
macro_rules! path_features {
    (avx2 => $then:ident!($($args:tt)*)) => {
        $crate::simd::$then!(["avx2", "fma"] $($args)*)
    };
    (avx512 => $then:ident!($($args:tt)*)) => {
        $crate::simd::$then!(
            ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma"] $($args)*
        )
    };
    (neon => $then:ident!($($args:tt)*)) => {
        $crate::simd::$then!(["neon"] $($args)*)
    };
}

/// `$item` with one `#[target_feature]` per feature name (an attribute takes a literal, not a
/// constant, hence a macro).
macro_rules! enable_features {
    ([$($feature:tt),*] $item:item) => {
        $(#[target_feature(enable = $feature)])* $item
    };
}

/// Whether this x86-64 CPU has every feature named.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_detected {
    ([$($feature:tt),*]) => {
        true $(&& std::arch::is_x86_feature_detected!($feature))*
    };
}

/// Whether this aarch64 CPU has every feature named.
#[cfg(target_arch = "aarch64")]
macro_rules! aarch64_detected {
    ([$($feature:tt),*]) => {
        true $(&& std::arch::is_aarch64_feature_detected!($feature))*
    };
}

/// Defines `$name`, which runs `$body` compiled for the vector path that runs, the one way a
/// kernel body meets the paths' instructions. `$body` names the lane type of the path
/// ([`vector::F32s`]) `$V`: [`vector::Avx512`] (or [`vector::Avx2`], where the kernel says
/// `avx512 uses avx2`: 8 lanes compiled for AVX2, as on an AVX2 CPU), [`vector::Avx2`],
/// [`vector::Neon`]; each is an entry marked with the path's `#[target_feature]`
/// ([`path_features!`]) into which the `#[inline(always)]` body is inlined, so the whole
/// kernel is compiled with the path's instructions. Every other path runs `$fallback`.
///
/// `unsafe fn name(args)` takes the path as its first argument (the CPU must have it);
/// `fn name(args)` runs on [`active`] and is for bodies that are safe to call. Generic
/// parameters: types as `<E: Trait>`, constants (`usize`) as `[const D]`. For example:
///
/// ```text
/// crate::simd::multiversion! {
///     /// The doc of `sums_on`.
///     unsafe fn sums_on[const N](rows: &[f32], out: &mut [f32]);
///     avx512 uses avx2, V => sums::<V, N>(rows, out);
///     otherwise => plain_sums(rows, out);
/// }
/// ```
macro_rules! multiversion {
    (
        $(#[$doc:meta])*
        $vis:vis fn $name:ident $(<$($t:ident: $tb:ident),+>)? $([$(const $c:ident),+])?
            ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;
        avx512 uses $wide:ident, $V:ident => $body:expr;
        otherwise => $fallback:expr $(;)?
    ) => {
        $(#[$doc])*
        $vis fn $name<$($($t: $tb,)+)? $($(const $c: usize,)+)?>($($arg: $ty),*) $(-> $ret)? {
            $crate::simd::multiversion! {
                @define fn on_path $(<$($t: $tb),+>)? $([$(const $c),+])? ($($arg: $ty),*)
                    $(-> $ret)?;
                avx512 uses $wide, $V => $body;
                otherwise => $fallback;
            }
            // SAFETY: the path that runs is one the CPU has; the body is safe to call.
            unsafe {
                on_path::<$($($t,)+)? $($($c,)+)?>($crate::simd::active(), $($arg),*)
            }
        }
    };
    (
        $(#[$doc:meta])*
        $vis:vis unsafe fn $name:ident $(<$($t:ident: $tb:ident),+>)? $([$(const $c:ident),+])?
            ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;
        avx512 uses $wide:ident, $V:ident => $body:expr;
        otherwise => $fallback:expr $(;)?
    ) => {
        $crate::simd::multiversion! {
            @define
            $(#[$doc])*
            ///
            /// # Safety
            /// The CPU must have `path` (as [`crate::simd::active`] gives); otherwise as the
            /// body.
            $vis fn $name $(<$($t: $tb),+>)? $([$(const $c),+])? ($($arg: $ty),*) $(-> $ret)?;
            avx512 uses $wide, $V => $body;
            otherwise => $fallback;
        }
    };
    (
        @define
        $(#[$doc:meta])*
        $vis:vis fn $name:ident $(<$($t:ident: $tb:ident),+>)? $([$(const $c:ident),+])?
            ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;
        avx512 uses $wide:ident, $V:ident => $body:expr;
        otherwise => $fallback:expr;
    ) => {
        $(#[$doc])*
        #[allow(unused_unsafe)]
        $vis unsafe fn $name<$($($t: $tb,)+)? $($(const $c: usize,)+)?>(
            path: $crate::simd::SimdPath,
            $($arg: $ty),*
        ) $(-> $ret)? {
            $crate::simd::multiversion!(@wide $wide, fn [$($($t: $tb,)+)? $($(const $c: usize,)+)?]
                ($($arg: $ty),*) [$(-> $ret)?] $V => $body);
            $crate::simd::multiversion!(@entry "x86_64", avx2, Avx2, fn [$($($t: $tb,)+)?
                $($(const $c: usize,)+)?] ($($arg: $ty),*) [$(-> $ret)?] $V => $body);
            $crate::simd::multiversion!(@entry "aarch64", neon, Neon, fn [$($($t: $tb,)+)?
                $($(const $c: usize,)+)?] ($($arg: $ty),*) [$(-> $ret)?] $V => $body);
            // SAFETY: the CPU has the path (the caller's contract); otherwise forwarded.
            unsafe {
                match path {
                    #[cfg(target_arch = "x86_64")]
                    $crate::simd::SimdPath::Avx512 => $wide::<$($($t,)+)? $($($c,)+)?>($($arg),*),
                    #[cfg(target_arch = "x86_64")]
                    $crate::simd::SimdPath::Avx2 => avx2::<$($($t,)+)? $($($c,)+)?>($($arg),*),
                    #[cfg(target_arch = "aarch64")]
                    $crate::simd::SimdPath::Neon => neon::<$($($t,)+)? $($($c,)+)?>($($arg),*),
                    _ => $fallback,
                }
            }
        }
    };
    (@wide avx2, $($rest:tt)*) => {};
    (@wide avx512, $($rest:tt)*) => {
        $crate::simd::multiversion!(@entry "x86_64", avx512, Avx512, $($rest)*);
    };
    (@entry $arch:literal, $path:ident, $lanes:ident, fn [$($gen:tt)*] ($($params:tt)*)
        [$($ret:tt)*] $V:ident => $body:expr) => {
        #[cfg(target_arch = $arch)]
        $crate::simd::path_features!($path => enable_features!(
            #[allow(unused_unsafe)]
            unsafe fn $path<$($gen)*>($($params)*) $($ret)* {
                #[allow(dead_code)]
                type $V = $crate::simd::vector::$lanes;
                // SAFETY: forwarded from the caller.
                unsafe { $body }
            }
        ));
    };
}

#[cfg(target_arch = "aarch64")]
pub(crate) use aarch64_detected;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_detected;
pub(crate) use {enable_features, multiversion, path_features};

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
            SimdPath::Avx2 => path_features!(avx2 => x86_detected!()),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx512 => path_features!(avx512 => x86_detected!()),
            #[cfg(target_arch = "aarch64")]
            SimdPath::Neon => path_features!(neon => aarch64_detected!()),
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
