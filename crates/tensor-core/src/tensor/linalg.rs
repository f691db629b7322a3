//! Matrix products and transposes.

use super::Tensor;
use crate::params::{GemmActGrad, GemmBiasAct};
use crate::{Activation, Backend, Error, Gemm, Result};

impl<B: Backend> Tensor<B> {
    /// The matrix product `self * other` of two rank-2 tensors.
    pub fn matmul(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.matmul_t(other, false, false)
    }

    /// `op(self) * op(other)`, where `op` transposes when its flag is set; no transpose is
    /// materialised.
    pub fn matmul_t(&self, other: &Tensor<B>, trans_a: bool, trans_b: bool) -> Result<Tensor<B>> {
        let spec = gemm_spec(self, other, trans_a, trans_b, 1.0, 0.0)?;
        let mut out = Tensor::uninit(&self.backend, [spec.m, spec.n])?;
        self.backend
            .gemm(spec, &self.storage, &other.storage, &mut out.storage)?;
        Ok(out)
    }

    /// `out = alpha * op(a) * op(b) + beta * out`, writing into an existing tensor.
    pub fn matmul_into(
        a: &Tensor<B>,
        b: &Tensor<B>,
        out: &mut Tensor<B>,
        trans_a: bool,
        trans_b: bool,
        alpha: f32,
        beta: f32,
    ) -> Result<()> {
        let spec = gemm_spec(a, b, trans_a, trans_b, alpha, beta)?;
        out.check_shape(&[spec.m, spec.n].into(), "matmul_into")?;
        a.backend
            .gemm(spec, &a.storage, &b.storage, &mut out.storage)
    }

    /// `out = act(op(a) * op(b) + bias)`, the bias (`[n]`) added to every row: a dense
    /// layer's forward pass in one call, without keeping the pre-activation (see
    /// [`GemmBiasActOp::gemm_bias_act`](crate::GemmBiasActOp::gemm_bias_act)).
    pub fn matmul_bias_act_into(
        (a, trans_a): (&Tensor<B>, bool),
        (b, trans_b): (&Tensor<B>, bool),
        bias: &Tensor<B>,
        act: Activation,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let spec = gemm_spec(a, b, trans_a, trans_b, 1.0, 0.0)?;
        out.check_shape(&[spec.m, spec.n].into(), "matmul_bias_act_into")?;
        if bias.dims() != [spec.n] {
            return Err(Error::ShapeMismatch {
                op: "matmul_bias_act_into (bias)",
                lhs: out.shape.clone(),
                rhs: bias.shape.clone(),
            });
        }
        let p = GemmBiasAct {
            gemm: spec,
            a: &a.storage,
            b: &b.storage,
            bias: &bias.storage,
            act,
        };
        a.backend.gemm_bias_act(p, &mut out.storage)
    }

    /// `out = (op(a) * op(b)) * act'(at)` element-wise, `at` of the result's shape: the
    /// gradient through an activation fused into the product that computes the gradient with
    /// respect to its output (see [`GemmActGradOp::gemm_act_grad`](crate::GemmActGradOp::gemm_act_grad)).
    pub fn matmul_act_grad_into(
        (a, trans_a): (&Tensor<B>, bool),
        (b, trans_b): (&Tensor<B>, bool),
        at: &Tensor<B>,
        act: Activation,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let spec = gemm_spec(a, b, trans_a, trans_b, 1.0, 0.0)?;
        out.check_shape(&[spec.m, spec.n].into(), "matmul_act_grad_into")?;
        at.check_shape(&[spec.m, spec.n].into(), "matmul_act_grad_into (at)")?;
        let p = GemmActGrad {
            gemm: spec,
            a: &a.storage,
            b: &b.storage,
            at: &at.storage,
            act,
        };
        a.backend.gemm_act_grad(p, &mut out.storage)
    }

    /// The transpose of a rank-2 tensor, into a new tensor.
    pub fn transpose(&self) -> Result<Tensor<B>> {
        let (rows, cols) = self.shape.as_matrix("transpose")?;
        let mut out = Tensor::uninit(&self.backend, [cols, rows])?;
        self.backend
            .transpose(&self.storage, rows, cols, &mut out.storage)?;
        Ok(out)
    }
}

fn gemm_spec<B: Backend>(
    a: &Tensor<B>,
    b: &Tensor<B>,
    trans_a: bool,
    trans_b: bool,
    alpha: f32,
    beta: f32,
) -> Result<Gemm> {
    let (ar, ac) = a.shape.as_matrix("matmul")?;
    let (br, bc) = b.shape.as_matrix("matmul")?;
    let (m, k) = if trans_a { (ac, ar) } else { (ar, ac) };
    let (k2, n) = if trans_b { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(Error::ShapeMismatch {
            op: "matmul",
            lhs: a.shape.clone(),
            rhs: b.shape.clone(),
        });
    }
    Ok(Gemm {
        m,
        n,
        k,
        trans_a,
        trans_b,
        alpha,
        beta,
    })
}
