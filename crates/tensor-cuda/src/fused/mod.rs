//! The fused operations of the CUDA backend, one module per operation of
//! [`tensor_core::FusedOps`]: each holds `impl NameOp for CudaBackend` and the launch of
//! its kernel (`kernels/NAME.cu` or the file its family shares), or names the default
//! composition. A missing module leaves its trait unimplemented, and `CudaBackend` no
//! backend.

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
