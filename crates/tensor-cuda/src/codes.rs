//! The integer codes that select an operation inside a kernel; they mirror the `#define`s in
//! `kernels/common.cuh` (activations, unary ops), `kernels/binary.cu` and `kernels/reduce.cu`.

use tensor_core::{Activation, BinaryOp, ReduceOp, UnaryOp};

/// An activation's code and its parameter (alpha for leaky ReLU, w0 for sine, else 0).
pub(crate) fn activation(act: Activation) -> (i32, f32) {
    match act {
        Activation::Identity => (0, 0.0),
        Activation::Sigmoid => (1, 0.0),
        Activation::Tanh => (2, 0.0),
        Activation::Relu => (3, 0.0),
        Activation::LeakyRelu { alpha } => (4, alpha),
        Activation::Sine { w0 } => (5, w0),
    }
}

/// The arguments of `unary_f32` that select and parameterise one operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UnaryCode {
    /// The operation.
    pub op: i32,
    /// The activation, for `Act` and `ActGrad`.
    pub act: i32,
    /// First parameter (exponent, lower bound, scale or activation parameter).
    pub p0: f32,
    /// Second parameter (upper bound or shift).
    pub p1: f32,
}

/// The kernel arguments for `op`.
pub(crate) fn unary(op: UnaryOp) -> UnaryCode {
    let plain = |op| UnaryCode {
        op,
        act: 0,
        p0: 0.0,
        p1: 0.0,
    };
    match op {
        UnaryOp::Neg => plain(0),
        UnaryOp::Exp => plain(1),
        UnaryOp::Ln => plain(2),
        UnaryOp::Sqrt => plain(3),
        UnaryOp::Abs => plain(4),
        UnaryOp::Sin => plain(5),
        UnaryOp::Cos => plain(6),
        UnaryOp::Powf(p) => UnaryCode { p0: p, ..plain(7) },
        UnaryOp::Square => plain(8),
        UnaryOp::Recip => plain(9),
        UnaryOp::Clamp { min, max } => UnaryCode {
            p0: min,
            p1: max,
            ..plain(10)
        },
        UnaryOp::Affine { scale, shift } => UnaryCode {
            p0: scale,
            p1: shift,
            ..plain(11)
        },
        UnaryOp::Softplus => plain(12),
        UnaryOp::Step => plain(13),
        UnaryOp::Act(a) => {
            let (act, p0) = activation(a);
            UnaryCode {
                act,
                p0,
                ..plain(14)
            }
        }
        UnaryOp::ActGrad(a) => {
            let (act, p0) = activation(a);
            UnaryCode {
                act,
                p0,
                ..plain(15)
            }
        }
    }
}

/// The code of a binary operation.
pub(crate) fn binary(op: BinaryOp) -> i32 {
    match op {
        BinaryOp::Add => 0,
        BinaryOp::Sub => 1,
        BinaryOp::Mul => 2,
        BinaryOp::Div => 3,
        BinaryOp::Maximum => 4,
        BinaryOp::Minimum => 5,
        BinaryOp::Pow => 6,
        BinaryOp::Gt => 7,
        BinaryOp::Ge => 8,
        BinaryOp::Lt => 9,
        BinaryOp::Le => 10,
        BinaryOp::Eq => 11,
    }
}

/// The code of a reduction.
pub(crate) fn reduce(op: ReduceOp) -> i32 {
    match op {
        ReduceOp::Sum => 0,
        ReduceOp::Mean => 1,
        ReduceOp::Max => 2,
        ReduceOp::Min => 3,
        ReduceOp::ArgMax => 4,
        ReduceOp::ArgMin => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `#define NAME value` pairs of a kernel source.
    fn defines(src: &str) -> Vec<(String, i32)> {
        src.lines()
            .filter_map(|l| {
                let mut it = l.strip_prefix("#define ")?.split_whitespace();
                let name = it.next()?.to_string();
                let value = it.next()?.parse().ok()?;
                Some((name, value))
            })
            .collect()
    }

    fn value(defs: &[(String, i32)], name: &str) -> i32 {
        defs.iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} is not defined"))
            .1
    }

    #[test]
    fn codes_match_the_kernel_sources() {
        let common = defines(include_str!("../kernels/common.cuh"));
        let binary_defs = defines(include_str!("../kernels/binary.cu"));
        let reduce_defs = defines(include_str!("../kernels/reduce.cu"));
        let acts = [
            (Activation::Identity, "ACT_IDENTITY"),
            (Activation::Sigmoid, "ACT_SIGMOID"),
            (Activation::Tanh, "ACT_TANH"),
            (Activation::Relu, "ACT_RELU"),
            (Activation::LeakyRelu { alpha: 0.1 }, "ACT_LEAKY_RELU"),
            (Activation::Sine { w0: 30.0 }, "ACT_SINE"),
        ];
        for (a, name) in acts {
            assert_eq!(activation(a).0, value(&common, name), "{name}");
        }
        let unaries = [
            (UnaryOp::Neg, "UN_NEG"),
            (UnaryOp::Exp, "UN_EXP"),
            (UnaryOp::Ln, "UN_LN"),
            (UnaryOp::Sqrt, "UN_SQRT"),
            (UnaryOp::Abs, "UN_ABS"),
            (UnaryOp::Sin, "UN_SIN"),
            (UnaryOp::Cos, "UN_COS"),
            (UnaryOp::Powf(2.0), "UN_POWF"),
            (UnaryOp::Square, "UN_SQUARE"),
            (UnaryOp::Recip, "UN_RECIP"),
            (UnaryOp::Clamp { min: 0.0, max: 1.0 }, "UN_CLAMP"),
            (
                UnaryOp::Affine {
                    scale: 1.0,
                    shift: 0.0,
                },
                "UN_AFFINE",
            ),
            (UnaryOp::Softplus, "UN_SOFTPLUS"),
            (UnaryOp::Step, "UN_STEP"),
            (UnaryOp::Act(Activation::Relu), "UN_ACT"),
            (UnaryOp::ActGrad(Activation::Relu), "UN_ACT_GRAD"),
        ];
        for (op, name) in unaries {
            assert_eq!(unary(op).op, value(&common, name), "{name}");
        }
        let binaries = [
            (BinaryOp::Add, "BIN_ADD"),
            (BinaryOp::Sub, "BIN_SUB"),
            (BinaryOp::Mul, "BIN_MUL"),
            (BinaryOp::Div, "BIN_DIV"),
            (BinaryOp::Maximum, "BIN_MAXIMUM"),
            (BinaryOp::Minimum, "BIN_MINIMUM"),
            (BinaryOp::Pow, "BIN_POW"),
            (BinaryOp::Gt, "BIN_GT"),
            (BinaryOp::Ge, "BIN_GE"),
            (BinaryOp::Lt, "BIN_LT"),
            (BinaryOp::Le, "BIN_LE"),
            (BinaryOp::Eq, "BIN_EQ"),
        ];
        for (op, name) in binaries {
            assert_eq!(binary(op), value(&binary_defs, name), "{name}");
        }
        let reductions = [
            (ReduceOp::Sum, "RED_SUM"),
            (ReduceOp::Mean, "RED_MEAN"),
            (ReduceOp::Max, "RED_MAX"),
            (ReduceOp::Min, "RED_MIN"),
            (ReduceOp::ArgMax, "RED_ARGMAX"),
            (ReduceOp::ArgMin, "RED_ARGMIN"),
        ];
        for (op, name) in reductions {
            assert_eq!(reduce(op), value(&reduce_defs, name), "{name}");
        }
    }

    #[test]
    fn parameters_travel_with_the_op() {
        let c = unary(UnaryOp::Clamp {
            min: -1.0,
            max: 2.0,
        });
        assert_eq!((c.p0, c.p1), (-1.0, 2.0));
        let a = unary(UnaryOp::ActGrad(Activation::Sine { w0: 30.0 }));
        assert_eq!((a.act, a.p0), (5, 30.0));
        let l = unary(UnaryOp::Act(Activation::LeakyRelu { alpha: 0.01 }));
        assert_eq!((l.act, l.p0), (4, 0.01));
    }
}
