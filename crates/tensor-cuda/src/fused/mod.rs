//! The fused operations of the CUDA backend, one module per operation (declared from
//! [`tensor_core::for_each_fused_op!`]): each holds `impl NameOp for CudaBackend` and the
//! launch of its kernel (`kernels/NAME.cu` or the file its family shares), or names the
//! default composition.

/// Declares one module per fused operation.
macro_rules! declare_fused_ops {
    ([ $($name:ident: $op:ident { $($check:ident),* $(,)? }),* $(,)? ]) => {
        $( mod $name; )*
    };
}

tensor_core::for_each_fused_op!(declare_fused_ops);
