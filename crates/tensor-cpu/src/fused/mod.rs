//! The fused operations of the CPU backend, one module per operation (declared from
//! [`tensor_core::for_each_fused_op!`]): each holds `impl NameOp for CpuBackend` and the
//! kernel, or calls the kernels of a larger module (`gemm`, `fourier`, `hashgrid`,
//! `mlp_pass`).

/// Declares one module per fused operation.
macro_rules! declare_fused_ops {
    ([ $($name:ident: $op:ident { $($check:ident),* $(,)? }),* $(,)? ]) => {
        $( pub(crate) mod $name; )*
    };
}

tensor_core::for_each_fused_op!(declare_fused_ops);
