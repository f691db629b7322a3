//! How an `f32` prints, without printing it where that can be avoided: the cells a
//! [`TextColumn`](super::TextColumn) keeps as numbers are the texts that are exactly how
//! their `f32` prints ([`as_number`]).

use std::fmt::{self, Write};

/// A stack buffer for how an `f32` prints.
struct Printed {
    bytes: [u8; 64],
    len: usize,
}

impl Write for Printed {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The number a text is kept as: `Some(v)` when the text is exactly how `v` prints.
pub(crate) fn as_number(t: &str) -> Option<f32> {
    let b = t.as_bytes();
    let [first, ..] = *b else {
        return None;
    };
    if !(first.is_ascii_digit() || first == b'-') || b.len() > 48 {
        return None;
    }
    if let Some(v) = short_decimal(b) {
        return Some(v);
    }
    if !b[1..].iter().all(|c| c.is_ascii_digit() || *c == b'.') {
        return None;
    }
    let v: f32 = t.parse().ok().filter(|v: &f32| v.is_finite())?;
    if prints_as_written(b) {
        return Some(v);
    }
    let mut p = Printed {
        bytes: [0; 64],
        len: 0,
    };
    write!(p, "{v}").ok()?;
    (&p.bytes[..p.len] == b).then_some(v)
}

/// Powers of ten that an `f32` holds exactly (5^10 is below 2^24).
const EXACT_TENS: [f32; 11] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/// The `f32` of digits that [`prints_as_written`] with at most 10 of them after the point,
/// without the general parser: their at most 6 significant digits make a whole number below
/// 2^24 and the power of ten is exact, so one division, rounded as IEEE division is, gives
/// the nearest `f32`, as parsing does. `None` for any other text. One pass over the bytes,
/// checking what [`prints_as_written`] checks.
fn short_decimal(b: &[u8]) -> Option<f32> {
    // Slice patterns rather than iterators: this runs on every cell read.
    let (negative, digits) = match b {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, b),
    };
    let (mut whole, mut int, mut rest) = (0u32, 0usize, digits);
    while let [c @ b'0'..=b'9', tail @ ..] = rest {
        whole = whole * 10 + u32::from(*c - b'0');
        (int, rest) = (int + 1, tail);
        if int > 6 {
            return None;
        }
    }
    // No leading zero but a lone `0`, whose value alone is 0.
    if int == 0 || (int > 1 && matches!(digits, [b'0', ..])) {
        return None;
    }
    let mut significant = if whole == 0 { 0 } else { int };
    let mut places = 0;
    if let [b'.', fraction @ ..] = rest {
        let (mut f, mut last) = (fraction, b'.');
        while let [c @ b'0'..=b'9', tail @ ..] = f {
            whole = whole * 10 + u32::from(*c - b'0');
            significant += usize::from(whole > 0);
            (places, last, f) = (places + 1, *c, tail);
            if significant > 6 || places > 10 {
                return None;
            }
        }
        rest = f;
        if matches!(last, b'.' | b'0') {
            return None;
        }
    }
    if !rest.is_empty() {
        return None;
    }
    let v = whole as f32 / EXACT_TENS[places];
    Some(if negative { -v } else { v })
}

/// Whether digits (after an optional `-`) are how their `f32` prints, without printing it:
/// no leading zero but a lone `0` before the point, no trailing zero or bare point after it,
/// at most 6 significant digits (any such decimal is the shortest text of its nearest `f32`,
/// as 6 digits are always recovered from an `f32`), and at most 30 zeros after the point
/// before them (far above the smallest normal `f32`).
fn prints_as_written(b: &[u8]) -> bool {
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    let (int, frac) = match digits.iter().position(|&c| c == b'.') {
        Some(i) => (&digits[..i], Some(&digits[i + 1..])),
        None => (digits, None),
    };
    if int.is_empty() || (int.len() > 1 && int[0] == b'0') {
        return false;
    }
    let significant = match frac {
        None => int.len(),
        Some(f) if f.is_empty() || f.ends_with(b"0") || f.contains(&b'.') => return false,
        Some(f) if int == b"0" => {
            let zeros = f.iter().take_while(|&&c| c == b'0').count();
            if zeros > 30 {
                return false;
            }
            f.len() - zeros
        }
        Some(f) => int.len() + f.len(),
    };
    significant <= 6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_kept_only_when_they_print_back_the_same() {
        assert_eq!(as_number("12.5"), Some(12.5));
        assert_eq!(as_number("-0"), Some(-0.0));
        assert_eq!(as_number("0.126"), Some(0.126));
        for t in [
            "1.50",
            "007",
            "1e5",
            "+3",
            ".5",
            "0.1000000001",
            "NA",
            "",
            "1.0",
        ] {
            assert_eq!(as_number(t), None, "{t:?}");
        }
    }

    /// The shortcut of [`prints_as_written`] agrees with printing on decimals of up to 6
    /// digits at every place of the point.
    #[test]
    fn the_shortcut_agrees_with_printing() {
        let mut shortcut = 0;
        for m in [
            1u32, 7, 10, 99, 120, 1005, 12_345, 999_999, 100_000, 654_321,
        ] {
            for k in 0..=9usize {
                let digits = format!("{m:0>w$}", w = k + 1);
                let (a, b) = digits.split_at(digits.len() - k);
                let text = match k {
                    0 => a.to_string(),
                    _ => format!("{a}.{b}")
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string(),
                };
                for t in [text.clone(), format!("-{text}")] {
                    let v: f32 = t.parse().unwrap();
                    let printed = format!("{v}") == t;
                    if prints_as_written(t.as_bytes()) {
                        assert!(printed, "{t}");
                        shortcut += 1;
                    }
                    assert_eq!(as_number(&t).is_some(), printed, "{t}");
                }
            }
        }
        assert!(shortcut > 150, "{shortcut}");
    }

    /// The short path gives the parser's `f32`, bit for bit, on decimals of up to 6
    /// significant digits with up to 12 places after the point.
    #[test]
    fn short_decimals_are_parsed_exactly() {
        let mut checked = 0;
        let mut m: u64 = 1;
        for _ in 0..4000 {
            m = m
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let digits = (m >> 40) % 1_000_000;
            let places = ((m >> 20) % 13) as u32;
            let ten = 10u64.pow(places);
            let t = format!(
                "{}.{:0>w$}",
                digits / ten,
                digits % ten,
                w = places as usize
            );
            let t = t.trim_end_matches('0').trim_end_matches('.').to_string();
            for t in [t.clone(), format!("-{t}")] {
                if let Some(v) = short_decimal(t.as_bytes()) {
                    assert_eq!(v.to_bits(), t.parse::<f32>().unwrap().to_bits(), "{t}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2000, "{checked}");
        assert_eq!(
            short_decimal(b"-0").map(f32::to_bits),
            Some((-0.0f32).to_bits())
        );
        assert_eq!(
            short_decimal(b"0.00000000001"),
            None,
            "11 places: the parser's way"
        );
    }

    /// The short path takes exactly the texts that print as written with at most 10 places.
    #[test]
    fn the_short_path_takes_what_prints_as_written() {
        for t in [
            "",
            "-",
            ".",
            "1.",
            "-.5",
            "01",
            "00",
            "0.",
            "0.0",
            "1.50",
            "1..2",
            "1.2.3",
            "123456",
            "1234567",
            "0.000001",
            "0.1234567",
            "12345.6",
            "12345.67",
            "-0.0000000001",
            "9e3",
            "1-2",
            "0.00000000010",
            "0",
            "-0",
            "7.25",
        ] {
            let b = t.as_bytes();
            let places = t.split_once('.').map_or(0, |(_, f)| f.len());
            let digits = b.iter().skip(1).all(|c| c.is_ascii_digit() || *c == b'.');
            let expected = !b.is_empty() && digits && prints_as_written(b) && places <= 10;
            assert_eq!(short_decimal(b).is_some(), expected, "{t:?}");
        }
    }
}
