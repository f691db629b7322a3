//! The table of kernels: for each [`K`], its module (kernel file), entry name and parameter
//! types, looked up by name through a `match`.

use cudarc::driver::{CudaFunction, CudaModule};
use std::sync::Arc;

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
    /// The by-value [`NdLayout`](super::NdLayout) struct (`.align 8 .b8 [200]`).
    Nd,
    /// The by-value [`HashGridParams`](crate::ops::HashGridParams) struct
    /// (`.align 8 .b8 [784]`).
    Grid,
}

/// A kernel: its module (kernel file stem), entry name and parameter list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The kernel file, `kernels/MODULE.cu`.
    pub module: &'static str,
    /// The `extern "C"` entry point.
    pub name: &'static str,
    /// Its parameters, in order.
    pub params: &'static [Param],
}

/// Defines [`K`] (one variant per kernel), [`K::spec`] (a `match` from variant to module,
/// entry name and parameters) and [`Functions`] (one loaded function per kernel, a field
/// named after the entry point). Each line reads `Variant => module::entry(params)`.
macro_rules! kernel_table {
    ($($variant:ident => $module:ident :: $entry:ident ( $($param:ident),* ),)*) => {
        /// Every kernel the backend launches.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum K {
            $(
                #[doc = concat!("`", stringify!($entry), "` in `kernels/", stringify!($module), ".cu`.")]
                $variant,
            )*
        }

        impl K {
            /// Every kernel (for checks of the whole table).
            #[cfg_attr(not(test), allow(dead_code))]
            pub(crate) const ALL: &'static [K] = &[$(K::$variant),*];

            /// The kernel's module, entry name and parameters.
            pub(crate) const fn spec(self) -> Spec {
                match self {
                    $(K::$variant => Spec {
                        module: stringify!($module),
                        name: stringify!($entry),
                        params: &[$(Param::$param),*],
                    },)*
                }
            }
        }

        /// The loaded function of every kernel.
        pub(crate) struct Functions {
            $($entry: CudaFunction,)*
        }

        impl Functions {
            /// Looks every kernel up in the loaded modules; `find` returns the module of a
            /// kernel file stem.
            pub(crate) fn load(
                find: impl Fn(&str) -> Option<Arc<CudaModule>>,
            ) -> Result<Functions, (Spec, Option<cudarc::driver::DriverError>)> {
                let get = |k: K| {
                    let spec = k.spec();
                    let module = find(spec.module).ok_or((spec, None))?;
                    module.load_function(spec.name).map_err(|e| (spec, Some(e)))
                };
                Ok(Functions { $($entry: get(K::$variant)?,)* })
            }

            /// The function of kernel `k`.
            pub(crate) fn get(&self, k: K) -> &CudaFunction {
                match k {
                    $(K::$variant => &self.$entry,)*
                }
            }
        }
    };
}

kernel_table! {
    Fill => fill::fill_f32(Ptr, U64, F32),
    Unary => unary::unary_f32(Ptr, Ptr, U64, I32, I32, F32, F32),
    BinarySame => binary::binary_same(Ptr, Ptr, Ptr, U64, I32),
    Binary2d => binary::binary_2d(Ptr, Ptr, Ptr, U64, U64, U64, U64, U64, U64, I32),
    BinaryNd => binary::binary_nd(Ptr, Ptr, Ptr, U64, Nd, I32),
    ReduceRowsWarp => reduce::reduce_rows_warp(Ptr, Ptr, Ptr, U64, U64, I32, F32),
    ReduceRowsBlock => reduce::reduce_rows_block(Ptr, Ptr, Ptr, Ptr, U64, U64, U64, U64, I32, F32),
    ReduceCols => reduce::reduce_cols(Ptr, Ptr, Ptr, Ptr, U64, U64, U64, U64, U64, I32, F32),
    GatherRows => gather::gather_rows(Ptr, U64, U64, Ptr, U64, U64, Ptr),
    CopyBlock => copy::copy_block(Ptr, U64, Ptr, U64, U64, U64),
    Transpose => copy::transpose_f32(Ptr, U64, U64, Ptr),
    BiasAct => fused::bias_act(Ptr, Ptr, U64, U64, I32, F32, Ptr),
    ActBackward => fused::act_backward(Ptr, Ptr, U64, I32, F32, Ptr),
    LossMse => fused::loss_mse(Ptr, Ptr, U64, F32, Ptr, Ptr),
    LossBce => fused::loss_bce(Ptr, Ptr, U64, F32, Ptr, Ptr),
    LossSoftmaxCe => fused::loss_softmax_ce(Ptr, Ptr, U64, U64, F32, Ptr, Ptr),
    AdamStep => fused::adam_step(
        Ptr, Ptr, Ptr, Ptr, U64, F32, F32, F32, F32, F32, F32, I32, F32, F32, F32
    ),
    SgdStep => fused::sgd_step(Ptr, Ptr, Ptr, U64, F32, F32, I32, F32),
    FourierFeatures => fourier::fourier_features(Ptr, Ptr, U64, U64, U64, Ptr),
    HashGridForward => hashgrid::hashgrid_forward(Ptr, Ptr, U64, U64, U64, Grid, Ptr),
    HashGridBackward => hashgrid::hashgrid_backward(Ptr, Ptr, U64, U64, U64, Grid, Ptr),
}
