//! The PTX modules built from `kernels/*.cu`, the table of their kernels with parameter
//! types, and the checked launch of one kernel.

use crate::counters::CounterCells;
use crate::error::{USE_CPU, describe};
use crate::ops::HashGridParams;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, result};
use cudarc::nvrtc::Ptx;
use std::ffi::c_void;
use std::sync::Arc;
use tensor_core::{Error, Result};

/// The PTX of every kernel file, embedded at compile time: `(file stem, PTX text)`.
pub(crate) const MODULES: [(&str, &str); 9] = [
    ("binary", include_str!("../../../kernels/ptx/binary.ptx")),
    ("copy", include_str!("../../../kernels/ptx/copy.ptx")),
    ("fill", include_str!("../../../kernels/ptx/fill.ptx")),
    ("fourier", include_str!("../../../kernels/ptx/fourier.ptx")),
    ("fused", include_str!("../../../kernels/ptx/fused.ptx")),
    ("gather", include_str!("../../../kernels/ptx/gather.ptx")),
    (
        "hashgrid",
        include_str!("../../../kernels/ptx/hashgrid.ptx"),
    ),
    ("reduce", include_str!("../../../kernels/ptx/reduce.ptx")),
    ("unary", include_str!("../../../kernels/ptx/unary.ptx")),
];

/// The type of one kernel parameter, as the Rust side passes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Param {
    /// A device pointer (`.u64`).
    Ptr,
    /// A 64-bit count or stride (`.u64`).
    U64,
    /// A 32-bit integer code or flag (`.u32`).
    I32,
    /// A float (`.f32`).
    F32,
    /// The by-value [`NdLayout`] struct (`.align 8 .b8 [200]`).
    Nd,
    /// The by-value [`HashGridParams`] struct (`.align 8 .b8 [784]`).
    Grid,
}

/// Every kernel the backend launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum K {
    Fill,
    Unary,
    BinarySame,
    Binary2d,
    BinaryNd,
    ReduceRowsWarp,
    ReduceRowsBlock,
    ReduceCols,
    GatherRows,
    CopyBlock,
    Transpose,
    BiasAct,
    ActBackward,
    LossMse,
    LossBce,
    LossSoftmaxCe,
    AdamStep,
    SgdStep,
    FourierFeatures,
    HashGridForward,
    HashGridBackward,
}

/// A kernel: its module (file stem), entry name and parameter list.
pub(crate) struct Spec {
    pub module: &'static str,
    pub name: &'static str,
    pub params: &'static [Param],
}

use Param::{F32, Grid, I32, Nd, Ptr, U64};

/// The kernels in the order of [`K`].
pub(crate) const SPECS: [Spec; 21] = [
    Spec {
        module: "fill",
        name: "fill_f32",
        params: &[Ptr, U64, F32],
    },
    Spec {
        module: "unary",
        name: "unary_f32",
        params: &[Ptr, Ptr, U64, I32, I32, F32, F32],
    },
    Spec {
        module: "binary",
        name: "binary_same",
        params: &[Ptr, Ptr, Ptr, U64, I32],
    },
    Spec {
        module: "binary",
        name: "binary_2d",
        params: &[Ptr, Ptr, Ptr, U64, U64, U64, U64, U64, U64, I32],
    },
    Spec {
        module: "binary",
        name: "binary_nd",
        params: &[Ptr, Ptr, Ptr, U64, Nd, I32],
    },
    Spec {
        module: "reduce",
        name: "reduce_rows_warp",
        params: &[Ptr, Ptr, Ptr, U64, U64, I32, F32],
    },
    Spec {
        module: "reduce",
        name: "reduce_rows_block",
        params: &[Ptr, Ptr, Ptr, Ptr, U64, U64, U64, U64, I32, F32],
    },
    Spec {
        module: "reduce",
        name: "reduce_cols",
        params: &[Ptr, Ptr, Ptr, Ptr, U64, U64, U64, U64, U64, I32, F32],
    },
    Spec {
        module: "gather",
        name: "gather_rows",
        params: &[Ptr, U64, U64, Ptr, U64, U64, Ptr],
    },
    Spec {
        module: "copy",
        name: "copy_block",
        params: &[Ptr, U64, Ptr, U64, U64, U64],
    },
    Spec {
        module: "copy",
        name: "transpose_f32",
        params: &[Ptr, U64, U64, Ptr],
    },
    Spec {
        module: "fused",
        name: "bias_act",
        params: &[Ptr, Ptr, U64, U64, I32, F32, Ptr],
    },
    Spec {
        module: "fused",
        name: "act_backward",
        params: &[Ptr, Ptr, U64, I32, F32, Ptr],
    },
    Spec {
        module: "fused",
        name: "loss_mse",
        params: &[Ptr, Ptr, U64, F32, Ptr, Ptr],
    },
    Spec {
        module: "fused",
        name: "loss_bce",
        params: &[Ptr, Ptr, U64, F32, Ptr, Ptr],
    },
    Spec {
        module: "fused",
        name: "loss_softmax_ce",
        params: &[Ptr, Ptr, U64, U64, F32, Ptr, Ptr],
    },
    Spec {
        module: "fused",
        name: "adam_step",
        params: &[
            Ptr, Ptr, Ptr, Ptr, U64, F32, F32, F32, F32, F32, F32, I32, F32, F32, F32,
        ],
    },
    Spec {
        module: "fused",
        name: "sgd_step",
        params: &[Ptr, Ptr, Ptr, U64, F32, F32, I32, F32],
    },
    Spec {
        module: "fourier",
        name: "fourier_features",
        params: &[Ptr, Ptr, U64, U64, U64, Ptr],
    },
    Spec {
        module: "hashgrid",
        name: "hashgrid_forward",
        params: &[Ptr, Ptr, U64, U64, U64, Grid, Ptr],
    },
    Spec {
        module: "hashgrid",
        name: "hashgrid_backward",
        params: &[Ptr, Ptr, U64, U64, U64, Grid, Ptr],
    },
];

/// The largest rank of the general broadcasting kernel (`MAX_DIMS` in binary.cu).
pub(crate) const MAX_DIMS: usize = 8;

/// The collapsed broadcast passed by value to `binary_nd` (`NdLayout` in binary.cu):
/// dimensions innermost first and the operands' strides along them.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct NdLayout {
    pub dims: [u64; MAX_DIMS],
    pub a_strides: [u64; MAX_DIMS],
    pub b_strides: [u64; MAX_DIMS],
    pub rank: u64,
}

/// One kernel argument.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg<'a> {
    Ptr(u64),
    U64(u64),
    I32(i32),
    F32(f32),
    Nd(&'a NdLayout),
    Grid(&'a HashGridParams),
}

impl Arg<'_> {
    fn kind(&self) -> Param {
        match self {
            Arg::Ptr(_) => Param::Ptr,
            Arg::U64(_) => Param::U64,
            Arg::I32(_) => Param::I32,
            Arg::F32(_) => Param::F32,
            Arg::Nd(_) => Param::Nd,
            Arg::Grid(_) => Param::Grid,
        }
    }

    /// The address of the value, as `cuLaunchKernel` wants it.
    fn as_param(&self) -> *mut c_void {
        match self {
            Arg::Ptr(v) | Arg::U64(v) => v as *const u64 as *mut c_void,
            Arg::I32(v) => v as *const i32 as *mut c_void,
            Arg::F32(v) => v as *const f32 as *mut c_void,
            Arg::Nd(l) => *l as *const NdLayout as *mut c_void,
            Arg::Grid(g) => *g as *const HashGridParams as *mut c_void,
        }
    }
}

/// `usize` to the `u64` kernels take (lossless on every supported target).
pub(crate) fn u(n: usize) -> Arg<'static> {
    Arg::U64(n as u64)
}

/// Grid and block dimensions of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cfg {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
}

/// Threads per block of the one-dimensional kernels.
pub(crate) const BLOCK: u32 = 256;

/// The largest grid dimension used in y and z (the hardware limit is 65535); kernels loop
/// over whatever a grid does not cover.
pub(crate) const MAX_GRID_YZ: u64 = 65_535;

impl Cfg {
    /// A one-dimensional launch over `n` items with grid-stride loops: enough blocks to fill
    /// the device (`waves` blocks per multiprocessor) but no more than the work needs.
    pub(crate) fn linear(n: u64, sm_count: u32, waves: u32) -> Cfg {
        let cap = u64::from(sm_count) * u64::from(waves);
        let blocks = n.div_ceil(u64::from(BLOCK)).clamp(1, cap.max(1));
        Cfg {
            grid: (blocks as u32, 1, 1),
            block: (BLOCK, 1, 1),
        }
    }
}

/// The loaded modules' kernels, indexed by [`K`].
pub(crate) struct Kernels {
    functions: Vec<CudaFunction>,
}

impl Kernels {
    /// Loads every PTX module into `ctx` (the driver compiles PTX for the device here) and
    /// looks up every kernel.
    pub(crate) fn load(ctx: &Arc<CudaContext>) -> Result<Kernels> {
        let mut modules = Vec::with_capacity(MODULES.len());
        for (stem, ptx) in MODULES {
            let module = ctx.load_module(Ptx::from_src(ptx)).map_err(|e| {
                Error::DeviceUnavailable(format!(
                    "the CUDA driver could not load the kernels of {stem}.cu ({}); the PTX \
                     needs a driver from CUDA 12.4 or later; {USE_CPU}",
                    describe(&e)
                ))
            })?;
            modules.push((stem, module));
        }
        let functions = SPECS
            .iter()
            .map(|spec| {
                let (_, module) = modules
                    .iter()
                    .find(|(stem, _)| *stem == spec.module)
                    .ok_or_else(|| Error::Device {
                        op: "load kernels",
                        message: format!("no module {} for kernel {}", spec.module, spec.name),
                    })?;
                module.load_function(spec.name).map_err(|e| Error::Device {
                    op: "load kernels",
                    message: format!("kernel {} not found: {}", spec.name, describe(&e)),
                })
            })
            .collect::<Result<_>>()?;
        Ok(Kernels { functions })
    }

    /// Launches `k` on `stream` after checking the arguments against its parameter list;
    /// `op` names the backend operation in errors.
    pub(crate) fn launch(
        &self,
        stream: &CudaStream,
        counters: &CounterCells,
        op: &'static str,
        k: K,
        cfg: Cfg,
        args: &[Arg<'_>],
    ) -> Result<()> {
        let spec = &SPECS[k as usize];
        let kinds_match = args.len() == spec.params.len()
            && args.iter().zip(spec.params).all(|(a, p)| a.kind() == *p);
        if !kinds_match {
            return Err(Error::Device {
                op,
                message: format!("internal error: wrong arguments for kernel {}", spec.name),
            });
        }
        let mut params = [std::ptr::null_mut::<c_void>(); 16];
        for (slot, arg) in params.iter_mut().zip(args) {
            *slot = arg.as_param();
        }
        let launch_err = |what: String, e| crate::error::driver(op, &what, e);
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| launch_err("binding the CUDA context".into(), e))?;
        // SAFETY: the argument kinds match the kernel's parameters (checked above, and the
        // table is checked against the PTX by a test); every pointer argument comes from a
        // live buffer whose length the caller checked against the sizes passed.
        unsafe {
            result::launch_kernel(
                self.functions[k as usize].cu_function(),
                cfg.grid,
                cfg.block,
                0,
                stream.cu_stream(),
                &mut params[..args.len()],
            )
        }
        .map_err(|e| launch_err(format!("launching kernel {}", spec.name), e))?;
        counters.launch();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameter list of `.entry name(...)` in a PTX text, each as its type words with
    /// the parameter name dropped (an array keeps its `[size]`): ".u64", ".align 8 .b8 [200]".
    fn ptx_params(ptx: &str, name: &str) -> Option<Vec<String>> {
        let start = ptx.find(&format!(".entry {name}("))?;
        let body = &ptx[start..];
        let body = &body[body.find('(')? + 1..body.find(')')?];
        Some(
            body.lines()
                .map(str::trim)
                .filter(|l| l.starts_with(".param"))
                .map(|l| {
                    l.trim_end_matches(',')
                        .split_whitespace()
                        .skip(1)
                        .filter_map(|w| match w.find("_param_") {
                            Some(_) => w.find('[').map(|b| w[b..].to_string()),
                            None => Some(w.to_string()),
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect(),
        )
    }

    #[test]
    fn kernel_table_matches_the_ptx_signatures() {
        for spec in &SPECS {
            let (_, ptx) = MODULES
                .iter()
                .find(|(stem, _)| *stem == spec.module)
                .unwrap_or_else(|| panic!("no module {}", spec.module));
            let params = ptx_params(ptx, spec.name)
                .unwrap_or_else(|| panic!("{} not in {}.ptx", spec.name, spec.module));
            let expected: Vec<String> = spec
                .params
                .iter()
                .map(|p| match p {
                    Param::Ptr | Param::U64 => ".u64".to_string(),
                    Param::I32 => ".u32".to_string(),
                    Param::F32 => ".f32".to_string(),
                    Param::Nd => format!(".align 8 .b8 [{}]", std::mem::size_of::<NdLayout>()),
                    Param::Grid => {
                        format!(".align 8 .b8 [{}]", std::mem::size_of::<HashGridParams>())
                    }
                })
                .collect();
            assert_eq!(params, expected, "parameters of {}", spec.name);
        }
    }

    #[test]
    fn every_module_is_named_after_a_kernel_file_and_used() {
        for (stem, ptx) in MODULES {
            assert!(
                ptx.contains(".target sm_70"),
                "{stem}.ptx is not for compute_70"
            );
            assert!(SPECS.iter().any(|s| s.module == stem), "{stem} is unused");
        }
        assert_eq!(SPECS.len(), K::HashGridBackward as usize + 1);
        assert_eq!(SPECS[K::ReduceCols as usize].name, "reduce_cols");
        assert_eq!(SPECS[K::Transpose as usize].name, "transpose_f32");
    }

    #[test]
    fn nd_layout_has_the_c_layout() {
        assert_eq!(std::mem::size_of::<NdLayout>(), 8 * (3 * MAX_DIMS + 1));
        assert_eq!(std::mem::align_of::<NdLayout>(), 8);
    }

    #[test]
    fn linear_launches_cover_small_and_huge_sizes() {
        assert_eq!(Cfg::linear(1, 132, 8).grid.0, 1);
        assert_eq!(Cfg::linear(256, 132, 8).grid.0, 1);
        assert_eq!(Cfg::linear(257, 132, 8).grid.0, 2);
        assert_eq!(Cfg::linear(u64::MAX / 2, 132, 8).grid.0, 132 * 8);
    }
}
