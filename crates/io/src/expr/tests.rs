use super::*;

/// Equal up to rounding (the 100 000-term sum below accumulates about 1e-12 relative error).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-10 * (1.0 + b.abs()) || (a.is_nan() && b.is_nan())
}

fn check(text: &str, reference: impl Fn(f64) -> f64) {
    let f = Function::parse(text).unwrap_or_else(|e| panic!("{}", e.message));
    let shown: String = text.chars().take(60).collect();
    for x in [-2.5, -1.0, -0.3, 0.0, 0.7, 1.0, 3.25] {
        let (got, want) = (f.eval(x), reference(x));
        assert!(close(got, want), "{shown} at x = {x}: {got} vs {want}");
    }
}

#[test]
fn unary_minus_binds_looser_than_power() {
    check("-x^2", |x| -(x * x));
    check("exp(-x^2)", |x| (-(x * x)).exp());
    check("sin(5*x)*exp(-x^2)", |x| (5.0 * x).sin() * (-(x * x)).exp());
    check("-2^2 + x", |x| -4.0 + x);
    check("(-x)^2", |x| x * x);
    check("2^-x", |x| 2f64.powf(-x));
    check("--x", |x| x);
    check("-x*-x", |x| x * x);
    check("x - -x", |x| 2.0 * x);
}

#[test]
fn precedence_and_associativity() {
    check("2^3^2", |_| 512.0);
    check("x**2**2", |x| x.powf(4.0));
    check("1 + 2*x - x/4", |x| 1.0 + 2.0 * x - x / 4.0);
    check("8/2/2", |_| 2.0);
    check("10 - 3 - 2", |_| 5.0);
    check("2*x^3", |x| 2.0 * x.powi(3));
    check("(x^2+x^3+x^4+x^6)/x^5", |x| {
        (x.powi(2) + x.powi(3) + x.powi(4) + x.powi(6)) / x.powi(5)
    });
}

#[test]
fn numbers_functions_and_constants() {
    check("1e3*x", |x| 1000.0 * x);
    check("2.5E-1 + .5 + 3.", |_| 3.75);
    check("1e+2", |_| 100.0);
    check("pi*x + e + tau", |x| {
        std::f64::consts::PI * x + std::f64::consts::E + std::f64::consts::TAU
    });
    check("π", |_| std::f64::consts::PI);
    check("SIN(x) + Cos(x)", |x| x.sin() + x.cos());
    check("log(abs(x)+1) + log10(100) + log2(8)", |x| {
        (x.abs() + 1.0).ln() + 5.0
    });
    check("max(x, 0) + min(x, 0)", |x| x);
    check("pow(2, x) + atan2(x, 2)", |x| 2f64.powf(x) + x.atan2(2.0));
    check("sqrt(x)", f64::sqrt);
    check("sign(x) * floor(x) + ceil(x) + round(x)", |x| {
        let s = if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            x
        };
        s * x.floor() + x.ceil() + x.round()
    });
    check("3", |_| 3.0);
    check("  x  ", |x| x);
}

fn error(text: &str) -> ParseError {
    match Function::parse(text) {
        Ok(_) => panic!("{text:?} should not parse"),
        Err(e) => e,
    }
}

#[test]
fn errors_name_the_position_and_the_problem() {
    let cases: [(&str, usize, &str); 16] = [
        ("sin(x", 6, "never closed"),
        ("x + y", 5, "unknown name \"y\""),
        ("foo(x)", 1, "unknown function \"foo\""),
        ("2x", 2, "missing operator"),
        ("x +", 4, "ends too early"),
        ("", 1, "empty"),
        ("x )", 3, "unmatched `)`"),
        ("x $ 2", 3, "unexpected character `$`"),
        ("1e", 1, "exponent needs digits"),
        ("sin x", 1, "is a function"),
        ("max(x)", 1, "takes 2 arguments, got 1"),
        ("sin(x, 2)", 1, "takes 1 argument, got 2"),
        ("x * * 2", 5, "found `*`"),
        ("(x", 3, "never closed"),
        ("1e999", 1, "too large"),
        ("x,2", 2, "unexpected `,`"),
    ];
    for (text, position, needle) in cases {
        let e = error(text);
        assert_eq!(e.position, position, "{text:?}: {e}");
        assert!(e.to_string().contains(needle), "{text:?}: {e}");
        let shown = e.to_string();
        assert!(shown.contains(&format!("{text:?}")), "{shown}");
        assert!(!shown.contains('\n') && !shown.contains("Token"), "{shown}");
    }
}

#[test]
fn deep_nesting_is_an_error_and_long_chains_evaluate_without_recursion() {
    let deep = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
    let minus = format!("{}x", "-".repeat(5000));
    for text in [deep, minus] {
        match Function::parse(&text) {
            Ok(_) => panic!("a 5000-level expression should not parse"),
            Err(e) => assert!(e.message.contains("nests more than"), "{}", e.message),
        }
    }
    let nested_ok = format!("{}x{}", "(".repeat(50), ")".repeat(50));
    check(&nested_ok, |x| x);
    // 100 000 terms: parsed iteratively, evaluated on an explicit stack.
    let chain = vec!["x"; 100_000].join("+");
    check(&chain, |x| 100_000.0 * x);
}

#[test]
fn ranges() {
    assert_eq!(parse_range("-2.5:4").unwrap(), (-2.5, 4.0));
    assert!(parse_range("3:1").is_err());
    assert!(parse_range("a:1").is_err());
    assert!(parse_range("1").is_err());
    // Beyond 32-bit floats, or too narrow for their points to differ.
    for bad in ["-1e39:1", "0:1e-40", "1e30:1.0000001e30", "1000:1000.5"] {
        let e = parse_range(bad).unwrap_err().to_string();
        assert!(e.contains("32-bit floats"), "{bad}: {e}");
    }
    assert_eq!(parse_range("0:1e-7").unwrap(), (0.0, 1e-7));
    // An unknown name lists every constant there is.
    let e = crate::expr::Function::parse("y + 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("constants: pi, e, tau"), "{e}");
    assert_eq!(parse_range("1e30:1e31").unwrap(), (1e30, 1e31));
}

#[test]
fn numbers_are_written_as_a_person_writes_them() {
    assert_eq!(written(-1e300), "-1e300");
    assert_eq!(written(1e300), "1e300");
    assert_eq!(written(2.5), "2.5");
    assert_eq!(written(-3.0), "-3");
    assert_eq!(written(0.0), "0");
    assert_eq!(written(1.5e-7), "1.5e-7");
    assert_eq!(written(123_456.0), "123456");
    for v in [1e300, -2.5e-9, 0.1, 7e15, 3.3e16] {
        assert_eq!(written(v).parse::<f64>().unwrap(), v);
    }
}
