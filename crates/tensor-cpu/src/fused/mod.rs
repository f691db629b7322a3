//! The fused operations of the CPU backend, one module per operation of
//! [`tensor_core::FusedOps`]: each holds `impl NameOp for CpuBackend` and the kernel, or
//! calls the kernels of a larger module (`gemm`, `fourier`, `hashgrid`, `mlp_pass`). A
//! missing module leaves its trait unimplemented, and `CpuBackend` no backend.

mod act_backward;
mod adam_step;
mod bias_act;
mod fourier_features;
mod gemm_act_grad;
mod gemm_bias_act;
mod hashgrid_backward;
mod hashgrid_forward;
mod loss_grad;
mod relu_mlp_mse_pass;
mod sgd_step;
