//! Element-wise operations: unary functions, broadcasting binary operations, operators.

use super::Tensor;
use crate::params::{BinaryAssignSpec, BinarySpec};
use crate::{Activation, Backend, BinaryOp, Result, UnaryOp};
use std::ops::{Add, Div, Mul, Sub};

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:expr;)*) => {
        $( $(#[$doc])* pub fn $name(&self) -> Result<Tensor<B>> { self.unary($op) } )*
    };
}

impl<B: Backend> Tensor<B> {
    /// `op` applied to every element, into a new tensor.
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor<B>> {
        let mut out = Tensor::uninit(&self.backend, self.shape.clone())?;
        self.unary_into(op, &mut out)?;
        Ok(out)
    }

    /// `op` applied to every element, into `out` (same shape).
    pub fn unary_into(&self, op: UnaryOp, out: &mut Tensor<B>) -> Result<()> {
        out.check_shape(&self.shape, "unary_into")?;
        self.backend.unary(op, &self.storage, &mut out.storage)
    }

    /// `op` applied to every element in place.
    pub fn unary_assign(&mut self, op: UnaryOp) -> Result<()> {
        self.backend.unary_assign(op, &mut self.storage)
    }

    unary_methods! {
        /// `-x`.
        neg => UnaryOp::Neg;
        /// `e^x`.
        exp => UnaryOp::Exp;
        /// Natural logarithm.
        ln => UnaryOp::Ln;
        /// Square root.
        sqrt => UnaryOp::Sqrt;
        /// Absolute value.
        abs => UnaryOp::Abs;
        /// Sine.
        sin => UnaryOp::Sin;
        /// Cosine.
        cos => UnaryOp::Cos;
        /// `x * x`.
        square => UnaryOp::Square;
        /// `1 / x`.
        recip => UnaryOp::Recip;
        /// Hyperbolic tangent.
        tanh => UnaryOp::Act(Activation::Tanh);
        /// Logistic sigmoid (stable for large inputs).
        sigmoid => UnaryOp::Act(Activation::Sigmoid);
        /// `max(x, 0)`.
        relu => UnaryOp::Act(Activation::Relu);
        /// `ln(1 + e^x)` (stable for large inputs).
        softplus => UnaryOp::Softplus;
    }

    /// Leaky ReLU with slope `alpha` for negative inputs.
    pub fn leaky_relu(&self, alpha: f32) -> Result<Tensor<B>> {
        self.unary(UnaryOp::Act(Activation::LeakyRelu { alpha }))
    }

    /// An activation function applied forward.
    pub fn activation(&self, act: Activation) -> Result<Tensor<B>> {
        self.unary(UnaryOp::Act(act))
    }

    /// `x^p`.
    pub fn powf(&self, p: f32) -> Result<Tensor<B>> {
        self.unary(UnaryOp::Powf(p))
    }

    /// Values limited to `[min, max]`.
    pub fn clamp(&self, min: f32, max: f32) -> Result<Tensor<B>> {
        self.unary(UnaryOp::Clamp { min, max })
    }

    /// `x * scale + shift`.
    pub fn affine(&self, scale: f32, shift: f32) -> Result<Tensor<B>> {
        self.unary(UnaryOp::Affine { scale, shift })
    }

    /// `x * factor` in place.
    pub fn scale_assign(&mut self, factor: f32) -> Result<()> {
        self.unary_assign(UnaryOp::Affine {
            scale: factor,
            shift: 0.0,
        })
    }

    /// `op(self, other)` with broadcasting, into a new tensor.
    pub fn binary(&self, op: BinaryOp, other: &Tensor<B>) -> Result<Tensor<B>> {
        let shape = self.shape.broadcast(&other.shape, "binary")?;
        let mut out = Tensor::uninit(&self.backend, shape)?;
        self.binary_into(op, other, &mut out)?;
        Ok(out)
    }

    /// `op(self, other)` with broadcasting, into `out` (of the broadcast shape).
    pub fn binary_into(&self, op: BinaryOp, other: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let shape = self.shape.broadcast(&other.shape, "binary_into")?;
        out.check_shape(&shape, "binary_into")?;
        let spec = BinarySpec {
            op,
            a_shape: &self.shape,
            b_shape: &other.shape,
            out_shape: &out.shape,
        };
        self.backend
            .binary(spec, &self.storage, &other.storage, &mut out.storage)
    }

    /// `self = op(self, other)` where `other` broadcasts to `self`'s shape.
    pub fn binary_assign(&mut self, op: BinaryOp, other: &Tensor<B>) -> Result<()> {
        let shape = self.shape.broadcast(&other.shape, "binary_assign")?;
        self.check_shape(&shape, "binary_assign")?;
        let spec = BinaryAssignSpec {
            op,
            a_shape: &self.shape,
            b_shape: &other.shape,
        };
        self.backend
            .binary_assign(spec, &mut self.storage, &other.storage)
    }

    /// `self += other` (broadcast).
    pub fn add_assign(&mut self, other: &Tensor<B>) -> Result<()> {
        self.binary_assign(BinaryOp::Add, other)
    }

    /// `self -= other` (broadcast).
    pub fn sub_assign(&mut self, other: &Tensor<B>) -> Result<()> {
        self.binary_assign(BinaryOp::Sub, other)
    }

    /// `self *= other` (broadcast).
    pub fn mul_assign(&mut self, other: &Tensor<B>) -> Result<()> {
        self.binary_assign(BinaryOp::Mul, other)
    }

    /// Element-wise maximum.
    pub fn maximum(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Maximum, other)
    }

    /// Element-wise minimum.
    pub fn minimum(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Minimum, other)
    }

    /// Mask of `self > other` (1.0 or 0.0).
    pub fn gt(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Gt, other)
    }

    /// Mask of `self >= other`.
    pub fn ge(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Ge, other)
    }

    /// Mask of `self < other`.
    pub fn lt(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Lt, other)
    }

    /// Mask of `self <= other`.
    pub fn le(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Le, other)
    }

    /// Mask of `self == other`.
    pub fn eq_mask(&self, other: &Tensor<B>) -> Result<Tensor<B>> {
        self.binary(BinaryOp::Eq, other)
    }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr, $scale:expr, $shift:expr) => {
        impl<B: Backend> $trait<&Tensor<B>> for &Tensor<B> {
            type Output = Result<Tensor<B>>;
            fn $method(self, rhs: &Tensor<B>) -> Result<Tensor<B>> {
                self.binary($op, rhs)
            }
        }
        impl<B: Backend> $trait<f32> for &Tensor<B> {
            type Output = Result<Tensor<B>>;
            #[allow(clippy::redundant_closure_call)]
            fn $method(self, rhs: f32) -> Result<Tensor<B>> {
                self.affine(($scale)(rhs), ($shift)(rhs))
            }
        }
    };
}

binary_operator!(Add, add, BinaryOp::Add, |_| 1.0, |s| s);
binary_operator!(Sub, sub, BinaryOp::Sub, |_| 1.0, |s: f32| -s);
binary_operator!(Mul, mul, BinaryOp::Mul, |s| s, |_| 0.0);
binary_operator!(Div, div, BinaryOp::Div, |s: f32| 1.0 / s, |_| 0.0);
