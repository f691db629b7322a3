//! Functions of x typed by the user, parsed with `exmex`.

use anyhow::{Result, bail};
use exmex::{Express, FlatEx};

/// A parsed expression in the single variable `x`.
pub struct Function {
    expr: FlatEx<f64>,
    uses_x: bool,
    text: String,
}

impl Function {
    /// Parses `text`; the only variable allowed is `x`.
    pub fn parse(text: &str) -> Result<Self> {
        let expr = match exmex::parse::<f64>(text) {
            Ok(e) => e,
            Err(e) => bail!("cannot read the expression {text:?}: {}", e.msg()),
        };
        let names = expr.var_names();
        if let Some(other) = names.iter().find(|n| n.as_str() != "x") {
            bail!("the expression {text:?} uses the variable {other:?}; only x is allowed");
        }
        let uses_x = !names.is_empty();
        Ok(Function {
            expr,
            uses_x,
            text: text.to_string(),
        })
    }

    /// The value at `x` (NaN or infinite where the function is undefined).
    pub fn eval(&self, x: f64) -> f64 {
        let vars = [x];
        let args: &[f64] = if self.uses_x { &vars } else { &[] };
        self.expr.eval(args).unwrap_or(f64::NAN)
    }

    /// The expression as the user typed it.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Parses a range written `A:B` with `A < B`.
pub fn parse_range(text: &str) -> Result<(f64, f64)> {
    let Some((a, b)) = text.split_once(':') else {
        bail!("range {text:?} should be written A:B, e.g. -3:3");
    };
    let parse = |s: &str| -> Result<f64> {
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => bail!("range {text:?}: {s:?} is not a finite number"),
        }
    };
    let (a, b) = (parse(a)?, parse(b)?);
    if a >= b {
        bail!("range {text:?} is empty: the start must be below the end");
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_evaluates_and_is_undefined_at_zero() {
        let f = Function::parse("(x^2+x^3+x^4+x^6)/x^5").unwrap();
        let x: f64 = 1.5;
        let expected = (x.powi(2) + x.powi(3) + x.powi(4) + x.powi(6)) / x.powi(5);
        assert!((f.eval(x) - expected).abs() < 1e-12);
        assert!(!f.eval(0.0).is_finite());
    }

    #[test]
    fn functions_and_constants() {
        let f = Function::parse("sin(x) + 2").unwrap();
        assert!((f.eval(0.5) - (0.5f64.sin() + 2.0)).abs() < 1e-12);
        assert_eq!(Function::parse("3").unwrap().eval(7.0), 3.0);
    }

    #[test]
    fn bad_expressions_are_errors() {
        assert!(Function::parse("sin(x").is_err());
        let e = Function::parse("x + y").err().unwrap().to_string();
        assert!(e.contains("\"y\""), "{e}");
        assert!(parse_range("3:1").is_err());
        assert!(parse_range("a:1").is_err());
        assert_eq!(parse_range("-2.5:4").unwrap(), (-2.5, 4.0));
    }
}
