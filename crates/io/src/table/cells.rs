//! What one text cell says: missing, a number, yes or no (a date: [`super::dates`]).

/// The texts read as a missing cell, compared without regard to case (and the empty cell).
pub const MISSING_TOKENS: [&str; 8] = ["", "na", "n/a", "nan", "null", "none", "?", "."];

/// Texts read as "yes" in a yes/no column, any case.
pub const YES_WORDS: [&str; 5] = ["yes", "true", "y", "t", "1"];
/// Texts read as "no" in a yes/no column, any case.
pub const NO_WORDS: [&str; 5] = ["no", "false", "n", "f", "0"];

/// The text without surrounding white space, as [`str::trim`] gives it; a text that starts
/// and ends with a visible ASCII character (the common cell) is returned at once.
pub(crate) fn trim(t: &str) -> &str {
    // Of the ASCII characters, `char::is_whitespace` holds for tab to carriage return and
    // the space; any other ASCII byte at an end leaves nothing to trim on that side.
    let kept = |b: u8| b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ');
    match t.as_bytes() {
        [first, .., last] if kept(*first) && kept(*last) => t,
        [only] if kept(*only) => t,
        _ => t.trim(),
    }
}

/// Whether a cell is missing: empty or one of [`MISSING_TOKENS`] in any case.
pub fn is_missing(cell: &str) -> bool {
    let t = trim(cell);
    t.len() <= 4 && MISSING_TOKENS.iter().any(|m| t.eq_ignore_ascii_case(m))
}

/// The cell as a finite number, if it is one.
pub fn number(cell: &str) -> Option<f64> {
    let t = trim(cell);
    let first = *t.as_bytes().first()?;
    // `inf`, `nan` and `infinity` parse as floats but are not numbers a table means.
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The cell as the nearest finite `f32`, if it is a number within the `f32` range.
pub fn number_f32(cell: &str) -> Option<f32> {
    number(cell)?;
    trim(cell).parse::<f32>().ok().filter(|v| v.is_finite())
}

/// Whether the cell is a finite number beyond the `f32` range (about ±3.4e38), such as
/// `1e39`: a number, but too large for a 32-bit float.
pub fn too_large_for_f32(cell: &str) -> bool {
    number(cell).is_some() && number_f32(cell).is_none()
}

/// The cell as yes (`Some(true)`) or no (`Some(false)`), if it is one of [`YES_WORDS`] or
/// [`NO_WORDS`] in any case.
pub fn yes_no(cell: &str) -> Option<bool> {
    let t = trim(cell);
    if YES_WORDS.iter().any(|w| t.eq_ignore_ascii_case(w)) {
        Some(true)
    } else if NO_WORDS.iter().any(|w| t.eq_ignore_ascii_case(w)) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_agrees_with_the_standard_trim() {
        let texts = [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\ta\n",
            "\x0ba\x0c",
            "\u{a0}a",
            "a\u{3000}",
            "\u{85}",
            "é",
            " é ",
            "x y",
            "\x1fa\x1f",
            "\r\n",
            "12.5",
        ];
        for t in texts {
            assert_eq!(trim(t), t.trim(), "{t:?}");
        }
    }

    #[test]
    fn missing_tokens_in_any_case() {
        for t in ["", " ", "NA", "n/a", "NaN", "NULL", "None", "?", "."] {
            assert!(is_missing(t), "{t:?}");
        }
        for t in ["0", "nan2", "unknown", "-"] {
            assert!(!is_missing(t), "{t:?}");
        }
    }

    #[test]
    fn numbers_are_finite_decimal_text() {
        assert_eq!(number(" 12.5 "), Some(12.5));
        assert_eq!(number("-3e2"), Some(-300.0));
        assert_eq!(number(".5"), Some(0.5));
        for t in ["inf", "NaN", "1e999", "12a", "", "x1"] {
            assert_eq!(number(t), None, "{t:?}");
        }
    }

    #[test]
    fn yes_no_words() {
        assert_eq!(yes_no("Yes"), Some(true));
        assert_eq!(yes_no("F"), Some(false));
        assert_eq!(yes_no("0"), Some(false));
        assert_eq!(yes_no("maybe"), None);
    }
}
