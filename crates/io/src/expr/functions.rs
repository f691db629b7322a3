//! The functions and constants an expression may name.

/// A function of one argument.
pub(super) type Function1 = fn(f64) -> f64;
/// A function of two arguments.
pub(super) type Function2 = fn(f64, f64) -> f64;

/// A named function.
#[derive(Debug, Clone, Copy)]
pub(super) enum Function {
    /// Takes one argument.
    One(Function1),
    /// Takes two arguments.
    Two(Function2),
}

impl Function {
    /// Number of arguments.
    pub(super) fn arity(&self) -> usize {
        match self {
            Function::One(_) => 1,
            Function::Two(_) => 2,
        }
    }
}

/// Named constants (lower case).
pub(super) const CONSTANTS: [(&str, f64); 3] = [
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
];

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        v
    }
}

const ONE: [(&str, Function1); 24] = [
    ("sin", f64::sin),
    ("cos", f64::cos),
    ("tan", f64::tan),
    ("asin", f64::asin),
    ("acos", f64::acos),
    ("atan", f64::atan),
    ("sinh", f64::sinh),
    ("cosh", f64::cosh),
    ("tanh", f64::tanh),
    ("asinh", f64::asinh),
    ("acosh", f64::acosh),
    ("atanh", f64::atanh),
    ("exp", f64::exp),
    ("ln", f64::ln),
    ("log", f64::ln),
    ("log10", f64::log10),
    ("log2", f64::log2),
    ("sqrt", f64::sqrt),
    ("cbrt", f64::cbrt),
    ("abs", f64::abs),
    ("floor", f64::floor),
    ("ceil", f64::ceil),
    ("round", f64::round),
    ("sign", sign),
];

const TWO: [(&str, Function2); 4] = [
    ("min", f64::min),
    ("max", f64::max),
    ("pow", f64::powf),
    ("atan2", f64::atan2),
];

/// The function called `name` (lower case).
pub(super) fn lookup(name: &str) -> Option<Function> {
    ONE.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| Function::One(*f))
        .or_else(|| {
            TWO.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, f)| Function::Two(*f))
        })
}

/// Every function name, for messages.
pub fn names() -> Vec<&'static str> {
    ONE.iter()
        .map(|(n, _)| *n)
        .chain(TWO.iter().map(|(n, _)| *n))
        .collect()
}
