//! Recursive descent from tokens to a postfix program.
//!
//! ```text
//! sum     := product (('+' | '-') product)*
//! product := unary (('*' | '/') unary)*
//! unary   := ('-' | '+') unary | power
//! power   := atom (('^' | '**') unary)?
//! atom    := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'
//! ```
//!
//! So `^` binds tighter than unary minus (`-x^2` is `-(x^2)`, as in mathematics and Python) and
//! is right-associative (`2^3^2` is `2^9`), and an exponent may carry a sign (`2^-x`).

use super::ExprError;
use super::functions::{CONSTANTS, Function1, Function2, lookup};
use super::lexer::{Spanned, Token};

/// Deepest nesting of parentheses, signs, powers and calls accepted.
pub(super) const MAX_DEPTH: usize = 200;

/// One instruction of the postfix program.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
    /// Push a constant.
    Const(f64),
    /// Push x.
    X,
    /// Negate the top.
    Neg,
    /// Pop b, a; push a + b.
    Add,
    /// Pop b, a; push a - b.
    Sub,
    /// Pop b, a; push a * b.
    Mul,
    /// Pop b, a; push a / b.
    Div,
    /// Pop b, a; push a ^ b.
    Pow,
    /// Apply a one-argument function to the top.
    Call1(Function1),
    /// Pop b, a; push f(a, b).
    Call2(Function2),
}

/// A parser over the tokens of one expression.
pub(super) struct Parser<'a> {
    tokens: &'a [Spanned],
    next: usize,
    depth: usize,
    end: usize,
    /// The program being built.
    pub(super) ops: Vec<Op>,
}

impl<'a> Parser<'a> {
    /// A parser at the first token; `end` is the position just after the text.
    pub(super) fn new(tokens: &'a [Spanned], end: usize) -> Self {
        Parser {
            tokens,
            next: 0,
            depth: 0,
            end,
            ops: Vec::new(),
        }
    }

    /// Parses the whole expression.
    pub(super) fn parse(mut self) -> Result<Vec<Op>, ExprError> {
        if self.tokens.is_empty() {
            return Err(ExprError::new("the expression is empty", 1));
        }
        self.sum()?;
        if let Some((token, pos)) = self.peek() {
            let message = match token {
                Token::Close => "unmatched `)`".to_string(),
                Token::Number(_) | Token::Name(_) | Token::Open => format!(
                    "missing operator before {} (write 2*x, not 2x)",
                    token.describe()
                ),
                other => format!("unexpected {}", other.describe()),
            };
            return Err(ExprError::new(message, pos));
        }
        Ok(self.ops)
    }

    fn peek(&self) -> Option<(Token, usize)> {
        self.tokens.get(self.next).cloned()
    }

    fn bump(&mut self) -> Option<(Token, usize)> {
        let t = self.peek();
        self.next += 1;
        t
    }

    /// Position of the next token (or the end of the text).
    fn here(&self) -> usize {
        self.peek().map_or(self.end, |(_, p)| p)
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::new(
                format!("the expression nests more than {MAX_DEPTH} levels deep"),
                self.here(),
            ));
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<(), ExprError> {
        self.product()?;
        loop {
            let op = match self.peek() {
                Some((Token::Plus, _)) => Op::Add,
                Some((Token::Minus, _)) => Op::Sub,
                _ => return Ok(()),
            };
            self.bump();
            self.product()?;
            self.ops.push(op);
        }
    }

    fn product(&mut self) -> Result<(), ExprError> {
        self.unary()?;
        loop {
            let op = match self.peek() {
                Some((Token::Star, _)) => Op::Mul,
                Some((Token::Slash, _)) => Op::Div,
                _ => return Ok(()),
            };
            self.bump();
            self.unary()?;
            self.ops.push(op);
        }
    }

    fn unary(&mut self) -> Result<(), ExprError> {
        self.enter()?;
        match self.peek() {
            Some((Token::Minus, _)) => {
                self.bump();
                self.unary()?;
                self.ops.push(Op::Neg);
            }
            Some((Token::Plus, _)) => {
                self.bump();
                self.unary()?;
            }
            _ => self.power()?,
        }
        self.depth -= 1;
        Ok(())
    }

    fn power(&mut self) -> Result<(), ExprError> {
        self.atom()?;
        if let Some((Token::Power, _)) = self.peek() {
            self.bump();
            self.unary()?;
            self.ops.push(Op::Pow);
        }
        Ok(())
    }

    fn atom(&mut self) -> Result<(), ExprError> {
        let Some((token, pos)) = self.bump() else {
            return Err(ExprError::new("the expression ends too early", self.end));
        };
        match token {
            Token::Number(v) => self.ops.push(Op::Const(v)),
            Token::Open => {
                self.enter()?;
                self.sum()?;
                self.expect_close(pos)?;
                self.depth -= 1;
            }
            Token::Name(name) => self.name(&name, pos)?,
            other => {
                return Err(ExprError::new(
                    format!(
                        "expected a number, x, a function or `(`, found {}",
                        other.describe()
                    ),
                    pos,
                ));
            }
        }
        Ok(())
    }

    fn expect_close(&mut self, open: usize) -> Result<(), ExprError> {
        match self.bump() {
            Some((Token::Close, _)) => Ok(()),
            Some((t, p)) => Err(ExprError::new(
                format!(
                    "expected `)` to close the `(` at position {open}, found {}",
                    t.describe()
                ),
                p,
            )),
            None => Err(ExprError::new(
                format!("the `(` at position {open} is never closed"),
                self.end,
            )),
        }
    }

    fn name(&mut self, name: &str, pos: usize) -> Result<(), ExprError> {
        let lower = name.to_ascii_lowercase();
        let called = matches!(self.peek(), Some((Token::Open, _)));
        if !called {
            if lower == "x" {
                self.ops.push(Op::X);
                return Ok(());
            }
            if let Some((_, v)) = CONSTANTS.iter().find(|(n, _)| *n == lower) {
                self.ops.push(Op::Const(*v));
                return Ok(());
            }
            if lookup(&lower).is_some() {
                return Err(ExprError::new(
                    format!("`{name}` is a function: write {lower}(...)"),
                    pos,
                ));
            }
            return Err(ExprError::new(
                format!(
                    "unknown name \"{name}\" (only x is a variable; constants: {})",
                    super::functions::CONSTANTS.map(|(n, _)| n).join(", ")
                ),
                pos,
            ));
        }
        let Some(function) = lookup(&lower) else {
            return Err(ExprError::new(
                format!(
                    "unknown function \"{name}\" (known: {})",
                    super::functions::names().join(", ")
                ),
                pos,
            ));
        };
        let (_, open) = self.bump().expect("peeked an opening parenthesis");
        self.enter()?;
        let mut args = 0;
        loop {
            self.sum()?;
            args += 1;
            match self.peek() {
                Some((Token::Comma, _)) => {
                    self.bump();
                }
                _ => break,
            }
        }
        self.expect_close(open)?;
        self.depth -= 1;
        let op = match function {
            super::functions::Function::One(f) if args == 1 => Op::Call1(f),
            super::functions::Function::Two(f) if args == 2 => Op::Call2(f),
            f => {
                let want = f.arity();
                return Err(ExprError::new(
                    format!(
                        "{lower} takes {want} argument{}, got {args}",
                        if want == 1 { "" } else { "s" }
                    ),
                    pos,
                ));
            }
        };
        self.ops.push(op);
        Ok(())
    }
}
