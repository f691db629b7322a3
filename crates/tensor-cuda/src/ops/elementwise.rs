//! Element-wise unary and broadcasting binary operations.

use super::broadcast::{Plan, plan};
use crate::backend::Inner;
use crate::codes;
use crate::error::check_len;
use crate::kernels::{Arg, K};
use crate::storage::CudaStorage;
use tensor_core::{BinaryOp, Error, Result, Shape, UnaryOp};

impl Inner {
    /// `out[i] = op(x[i])` from device address `x` to `out`, `n` elements.
    fn unary_ptrs(
        &self,
        op_name: &'static str,
        op: UnaryOp,
        x: u64,
        out: u64,
        n: usize,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let c = codes::unary(op);
        self.launch(
            op_name,
            K::Unary,
            self.linear(n),
            &[
                Arg::Ptr(x),
                Arg::Ptr(out),
                Arg::U64(n as u64),
                Arg::I32(c.op),
                Arg::I32(c.act),
                Arg::F32(c.p0),
                Arg::F32(c.p1),
            ],
        )
    }

    pub(crate) fn unary(&self, op: UnaryOp, x: &CudaStorage, out: &mut CudaStorage) -> Result<()> {
        check_len("unary", "out", out.len, x.len)?;
        self.unary_ptrs("unary", op, x.ptr(), out.ptr(), x.len)
    }

    pub(crate) fn unary_assign(&self, op: UnaryOp, x: &mut CudaStorage) -> Result<()> {
        self.unary_ptrs("unary_assign", op, x.ptr(), x.ptr(), x.len)
    }

    /// Runs a broadcast plan from device addresses `a`, `b` into `out` (which may be `a`).
    fn run_plan(
        &self,
        op_name: &'static str,
        op: BinaryOp,
        plan: &Plan,
        a: u64,
        b: u64,
        out: u64,
    ) -> Result<()> {
        let code = Arg::I32(codes::binary(op));
        match plan {
            Plan::Same { n } => {
                if *n == 0 {
                    return Ok(());
                }
                self.launch(
                    op_name,
                    K::BinarySame,
                    self.linear(*n as usize),
                    &[Arg::Ptr(a), Arg::Ptr(b), Arg::Ptr(out), Arg::U64(*n), code],
                )
            }
            Plan::TwoD {
                rows,
                cols,
                a: sa,
                b: sb,
            } => {
                let n = rows * cols;
                if n == 0 {
                    return Ok(());
                }
                self.launch(
                    op_name,
                    K::Binary2d,
                    self.linear(n as usize),
                    &[
                        Arg::Ptr(a),
                        Arg::Ptr(b),
                        Arg::Ptr(out),
                        Arg::U64(*rows),
                        Arg::U64(*cols),
                        Arg::U64(sa.0),
                        Arg::U64(sa.1),
                        Arg::U64(sb.0),
                        Arg::U64(sb.1),
                        code,
                    ],
                )
            }
            Plan::Nd { n, layout } => {
                if *n == 0 {
                    return Ok(());
                }
                self.launch(
                    op_name,
                    K::BinaryNd,
                    self.linear(*n as usize),
                    &[
                        Arg::Ptr(a),
                        Arg::Ptr(b),
                        Arg::Ptr(out),
                        Arg::U64(*n),
                        Arg::Nd(layout),
                        code,
                    ],
                )
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn binary(
        &self,
        op: BinaryOp,
        a: &CudaStorage,
        a_shape: &Shape,
        b: &CudaStorage,
        b_shape: &Shape,
        out: &mut CudaStorage,
        out_shape: &Shape,
    ) -> Result<()> {
        check_len("binary", "a", a.len, a_shape.numel())?;
        check_len("binary", "b", b.len, b_shape.numel())?;
        check_len("binary", "out", out.len, out_shape.numel())?;
        let plan = plan("binary", a_shape, b_shape, out_shape)?;
        self.run_plan("binary", op, &plan, a.ptr(), b.ptr(), out.ptr())
    }

    pub(crate) fn binary_assign(
        &self,
        op: BinaryOp,
        a: &mut CudaStorage,
        a_shape: &Shape,
        b: &CudaStorage,
        b_shape: &Shape,
    ) -> Result<()> {
        check_len("binary_assign", "a", a.len, a_shape.numel())?;
        check_len("binary_assign", "b", b.len, b_shape.numel())?;
        let out_shape = a_shape.broadcast(b_shape, "binary_assign")?;
        if &out_shape != a_shape {
            return Err(Error::ShapeMismatch {
                op: "binary_assign",
                lhs: out_shape,
                rhs: a_shape.clone(),
            });
        }
        let plan = plan("binary_assign", a_shape, b_shape, a_shape)?;
        // In place: `a` has the output's layout, so each element is read and written by the
        // same thread.
        self.run_plan("binary_assign", op, &plan, a.ptr(), b.ptr(), a.ptr())
    }
}
