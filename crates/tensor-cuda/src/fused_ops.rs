//! The [`FusedOps`] implementation of [`CudaBackend`]: each operation names its kernel in
//! `ops/` (the fused GEMMs: a cuBLAS product, then an in-place epilogue kernel).

use crate::backend::CudaBackend;
use crate::storage::CudaStorage;
use tensor_core::check::check_fused_gemm;
use tensor_core::mlp_pass::{self, MlpPass, MlpPassOut};
use tensor_core::params::{
    AdamMoments, BiasAct, FourierFeatures, GemmActGrad, GemmBiasAct, HashGridLookup,
    HashGridScatter, LossGrad,
};
use tensor_core::{Activation, AdamStep, FusedOps, Result, SgdStep};

impl FusedOps for CudaBackend {
    fn bias_act(
        &self,
        p: BiasAct<'_, CudaStorage>,
        z: &mut CudaStorage,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.bias_act(z, p.bias, p.rows, p.cols, p.act, out)
    }

    fn gemm_bias_act(&self, p: GemmBiasAct<'_, CudaStorage>, c: &mut CudaStorage) -> Result<()> {
        let spec = p.gemm;
        check_fused_gemm(self, "gemm_bias_act", &spec, ("bias", p.bias, spec.n), c)?;
        self.inner.gemm(spec, self.tf32(), p.a, p.b, c)?;
        self.inner
            .bias_act_in_place(c, p.bias, spec.m, spec.n, p.act)
    }

    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, CudaStorage>,
        out: MlpPassOut<'_, '_, CudaStorage>,
    ) -> Result<bool> {
        mlp_pass::unfused(pass, out)
    }

    fn gemm_act_grad(&self, p: GemmActGrad<'_, CudaStorage>, c: &mut CudaStorage) -> Result<()> {
        let spec = p.gemm;
        check_fused_gemm(self, "gemm_act_grad", &spec, ("at", p.at, c.len), c)?;
        self.inner.gemm(spec, self.tf32(), p.a, p.b, c)?;
        self.inner.act_grad_in_place(c, p.at, p.act)
    }

    fn act_backward(
        &self,
        grad_out: &CudaStorage,
        z: &CudaStorage,
        act: Activation,
        grad_z: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.act_backward(grad_out, z, act, grad_z)
    }

    fn loss_grad(
        &self,
        p: LossGrad<'_, CudaStorage>,
        grad: &mut CudaStorage,
        loss: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .loss_grad(p.kind, p.pred, p.target, p.rows, p.cols, grad, loss)
    }

    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        moments: AdamMoments<'_, CudaStorage>,
    ) -> Result<()> {
        self.inner
            .adam_step(step, param, grad, moments.m, moments.v)
    }

    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut CudaStorage,
        grad: &CudaStorage,
        velocity: Option<&mut CudaStorage>,
    ) -> Result<()> {
        self.inner.sgd_step(step, param, grad, velocity)
    }

    fn fourier_features(
        &self,
        p: FourierFeatures<'_, CudaStorage>,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .fourier_features(p.x, p.freqs, p.rows, p.d, p.m, out)
    }

    fn hashgrid_forward(
        &self,
        p: HashGridLookup<'_, CudaStorage>,
        out: &mut CudaStorage,
    ) -> Result<()> {
        self.inner
            .hashgrid_forward(p.spec, p.layout, p.points, p.n, p.tables, out)
    }

    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, CudaStorage>,
        grad_tables: &mut CudaStorage,
    ) -> Result<()> {
        self.inner.hashgrid_backward(
            p.spec,
            p.layout,
            p.points,
            p.n,
            p.grad_features,
            grad_tables,
            p.accumulate,
        )
    }
}
