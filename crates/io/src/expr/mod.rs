//! Functions of x typed by the user (`approx --fn`), with the precedence of mathematics and
//! Python: `-x^2` is `-(x^2)`, `2^3^2` is `2^9`, `1e3*x` is `1000*x`.
//!
//! ```
//! use io::expr::Function;
//! let f = Function::parse("sin(5*x)*exp(-x^2)")?;
//! let x = 0.3f64;
//! assert!((f.eval(x) - (5.0 * x).sin() * (-x * x).exp()).abs() < 1e-15);
//! let e = Function::parse("sin(x) + foo(x)").unwrap_err().to_string();
//! assert!(e.contains("position 10") && e.contains("unknown function \"foo\""));
//! # Ok::<(), io::expr::ParseError>(())
//! ```
//!
//! Operators: `+ - * /`, `^` (or `**`) for powers, parentheses. Names: the variable `x`, the
//! constants `pi`, `e`, `tau`, and the functions `sin cos tan asin acos atan sinh cosh tanh
//! asinh acosh atanh exp ln log (natural) log10 log2 sqrt cbrt abs floor ceil round sign`
//! and `min max pow atan2` (two arguments). An expression is compiled to a postfix program
//! and evaluated without recursion, so no input can overflow the stack.

mod functions;
mod lexer;
mod parser;
mod sample;

pub use sample::{Samples, ScaledSamples};

use crate::error::{Error, Result};
use parser::Op;

/// A problem at one place of an expression.
#[derive(Debug, Clone, PartialEq)]
struct ExprError {
    message: String,
    /// 1-based character position.
    position: usize,
}

impl ExprError {
    fn new(message: impl Into<String>, position: usize) -> Self {
        ExprError {
            message: message.into(),
            position,
        }
    }
}

/// An expression that cannot be read: what is wrong and where (1-based, in characters).
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// The expression as typed.
    pub text: String,
    /// What is wrong.
    pub message: String,
    /// Where, counted in characters from 1.
    pub position: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot read the expression {:?} at position {}: {}",
            self.text, self.position, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// A parsed expression in the single variable `x`.
#[derive(Debug, Clone)]
pub struct Function {
    program: Vec<Op>,
    stack_size: usize,
    text: String,
}

impl Function {
    /// Parses `text`; the only variable allowed is `x`.
    pub fn parse(text: &str) -> std::result::Result<Self, ParseError> {
        let fail = |e: ExprError| ParseError {
            text: text.to_string(),
            message: e.message,
            position: e.position,
        };
        let tokens = lexer::tokenize(text).map_err(fail)?;
        let end = text.chars().count() + 1;
        let program = parser::Parser::new(&tokens, end).parse().map_err(fail)?;
        let stack_size = stack_size(&program);
        Ok(Function {
            program,
            stack_size,
            text: text.to_string(),
        })
    }

    /// The value at `x` (NaN where the function is undefined, infinite where it overflows).
    pub fn eval(&self, x: f64) -> f64 {
        let mut stack: Vec<f64> = Vec::with_capacity(self.stack_size);
        for op in &self.program {
            let v = match *op {
                Op::Const(c) => c,
                Op::X => x,
                Op::Neg => -stack.pop().unwrap_or(f64::NAN),
                Op::Call1(f) => f(stack.pop().unwrap_or(f64::NAN)),
                binary => {
                    let b = stack.pop().unwrap_or(f64::NAN);
                    let a = stack.pop().unwrap_or(f64::NAN);
                    match binary {
                        Op::Add => a + b,
                        Op::Sub => a - b,
                        Op::Mul => a * b,
                        Op::Div => a / b,
                        Op::Pow => a.powf(b),
                        Op::Call2(f) => f(a, b),
                        _ => f64::NAN,
                    }
                }
            };
            stack.push(v);
        }
        stack.pop().unwrap_or(f64::NAN)
    }

    /// The expression as the user typed it.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// The deepest the evaluation stack gets.
fn stack_size(program: &[Op]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for op in program {
        match op {
            Op::Const(_) | Op::X => depth += 1,
            Op::Neg | Op::Call1(_) => {}
            _ => depth = depth.saturating_sub(1),
        }
        max = max.max(depth);
    }
    max
}

/// Parses a range written `A:B` with `A < B`; the error says what is wrong in one line.
pub fn parse_range(text: &str) -> Result<(f64, f64)> {
    let Some((a, b)) = text.split_once(':') else {
        return Err(Error::invalid(format!(
            "range {text:?} should be written A:B, e.g. -3:3"
        )));
    };
    let parse = |s: &str| -> Result<f64> {
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v.abs() <= f64::from(f32::MAX) => Ok(v),
            Ok(v) if v.is_finite() => Err(Error::invalid(format!(
                "range {text:?}: {s:?} is beyond 32-bit floats (at most {:e} in size)",
                f32::MAX
            ))),
            _ => Err(Error::invalid(format!(
                "range {text:?}: {s:?} is not a finite number"
            ))),
        }
    };
    let (a, b) = (parse(a)?, parse(b)?);
    if a >= b {
        return Err(Error::invalid(format!(
            "range {text:?} is empty: the start must be below the end"
        )));
    }
    if b - a < MIN_RANGE_WIDTH.max(a.abs().max(b.abs()) * MIN_RANGE_SHARE) {
        return Err(Error::invalid(format!(
            "range {text:?} is too narrow for 32-bit floats: its width must be at least \
             {MIN_RANGE_WIDTH:e} and a thousandth of its larger end"
        )));
    }
    Ok((a, b))
}

/// The narrowest range of x: narrower, its points' spread would read as a constant.
pub const MIN_RANGE_WIDTH: f64 = 1e-9;

/// The least width of a range of x as a share of its larger end: narrower, its points
/// would round to a few 32-bit values.
pub const MIN_RANGE_SHARE: f64 = 1e-3;

/// A number as a person writes it: `2.5`, `-3`, `1e300`, `1.5e-7` (shortest digits that read
/// back to the same value; exponent form beyond 16 digits or below 1e-5, never a 301-digit
/// integer).
pub fn written(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests;
