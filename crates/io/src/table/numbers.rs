//! [`NumberFormat`]: how a column writes its numbers (`1,234.56`, `1.234,56`, `45.2%`,
//! `$1,234.56`, `1 234 EUR`, `(12.50)`), decided once from the whole column and used to
//! read every cell of it, in training and on new rows alike.

use serde::{Deserialize, Serialize};

/// Currency signs dropped before or after a number.
pub(crate) const CURRENCY_SIGNS: [char; 9] = ['$', '€', '£', '¥', '₹', '₽', '₩', '₺', '¢'];
/// Currency codes (ISO 4217) dropped before or after a number, with or without a space.
const CURRENCY_CODES: [&str; 24] = [
    "USD", "EUR", "GBP", "JPY", "CHF", "CNY", "INR", "CAD", "AUD", "SEK", "NOK", "DKK", "PLN",
    "CZK", "HUF", "RUB", "BRL", "MXN", "ZAR", "KRW", "SGD", "HKD", "NZD", "TRY",
];

/// How a column writes its numbers: the decimal mark, the digit-group mark and the signs
/// around them. A cell is read by dropping a currency sign or code (before or after), a
/// trailing `%` and parentheses around a negative, then the group marks (which must group
/// the whole part by three digits), then reading the decimal mark as a point.
///
/// A percentage is read as written: `45.2%` is 45.2, not 0.452 (the schema says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberFormat {
    /// The decimal mark: `.` or `,`.
    pub decimal: char,
    /// The digit-group mark (`,`, `.`, a space or `'`), if the column writes one.
    pub group: Option<char>,
    /// Whether some cells end in `%`.
    pub percent: bool,
    /// Whether some cells carry a currency sign or code.
    pub currency: bool,
    /// Whether some negatives are written in parentheses.
    pub parentheses: bool,
}

impl Default for NumberFormat {
    fn default() -> Self {
        NumberFormat::PLAIN
    }
}

/// The signs found around one cell's number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Affixes {
    pub percent: bool,
    pub currency: bool,
    pub parentheses: bool,
    /// Whether a group mark was written.
    pub grouped: bool,
}

impl NumberFormat {
    /// Numbers as Rust and most programs write them: `-1234.56`, `1e5`.
    pub const PLAIN: NumberFormat = NumberFormat {
        decimal: '.',
        group: None,
        percent: false,
        currency: false,
        parentheses: false,
    };

    /// The formats a column is tried with, in order of preference when several read the same
    /// cells (the plain form first; a comma grouping thousands before a decimal comma).
    pub(crate) const CANDIDATES: [(char, Option<char>); 7] = [
        ('.', None),
        ('.', Some(',')),
        (',', Some('.')),
        (',', None),
        ('.', Some(' ')),
        (',', Some(' ')),
        ('.', Some('\'')),
    ];

    /// Whether this is [`NumberFormat::PLAIN`] (the cells need no more than a plain read).
    pub fn is_plain(&self) -> bool {
        *self == NumberFormat::PLAIN
    }

    /// The format with these marks and no signs.
    pub(crate) fn marks(decimal: char, group: Option<char>) -> Self {
        NumberFormat {
            decimal,
            group,
            ..NumberFormat::PLAIN
        }
    }

    /// The number a cell holds in this format, if it is one (finite).
    pub fn read(&self, cell: &str) -> Option<f64> {
        if self.is_plain() {
            return super::cells::number(cell);
        }
        self.read_affixes(cell).map(|(v, _)| v)
    }

    /// The number of a cell in this format's marks, any signs allowed, with the signs found.
    pub(crate) fn read_affixes(&self, cell: &str) -> Option<(f64, Affixes)> {
        let mut a = Affixes::default();
        let mut t = super::cells::trim(cell);
        if let Some(inner) = t.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
            a.parentheses = true;
            t = inner.trim();
        }
        let mut negative = a.parentheses;
        (t, negative) = strip_sign(t, negative)?;
        if let Some(rest) = strip_currency_prefix(t) {
            a.currency = true;
            (t, negative) = strip_sign(rest, negative)?;
        }
        if let Some(rest) = t.strip_suffix('%') {
            a.percent = true;
            t = rest.trim_end();
        }
        if let Some(rest) = strip_currency_suffix(t) {
            a.currency = true;
            t = rest;
        }
        if let Some(rest) = t.strip_suffix('%').filter(|_| !a.percent) {
            a.percent = true;
            t = rest.trim_end();
        }
        let (v, grouped) = self.digits(t)?;
        a.grouped = grouped;
        let v = if negative { -v } else { v };
        v.is_finite().then_some((v, a))
    }

    /// The value of bare digits with this format's marks, and whether a group mark was used.
    fn digits(&self, t: &str) -> Option<(f64, bool)> {
        let first = t.chars().next()?;
        if !(first.is_ascii_digit() || first == self.decimal) {
            return None;
        }
        if self.decimal == '.' && self.group.is_none() {
            return super::cells::number(t).map(|v| (v, false));
        }
        let (whole, fraction) = match t.split_once(self.decimal) {
            Some((w, f)) => (w, Some(f)),
            None => (t, None),
        };
        if fraction.is_none() && self.group == Some('.') && is_ipv4(whole) {
            return None;
        }
        let mut plain = String::with_capacity(t.len());
        let grouped = match self.group {
            Some(g) if whole.contains(|c| is_group(c, g)) => {
                for (i, part) in whole.split(|c| is_group(c, g)).enumerate() {
                    let ok = if i == 0 {
                        (1..=3).contains(&part.len())
                    } else {
                        part.len() == 3
                    };
                    if !ok || !part.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    plain.push_str(part);
                }
                true
            }
            _ => {
                if !whole.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                plain.push_str(whole);
                false
            }
        };
        if let Some(f) = fraction {
            if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            plain.push('.');
            plain.push_str(f);
        }
        if plain.is_empty() || plain == "." {
            return None;
        }
        plain.parse::<f64>().ok().map(|v| (v, grouped))
    }

    /// How the column's numbers are written, as an example: `1,234.56`, `$1.234,56`, `45.2%`.
    pub fn example(&self) -> String {
        let mut s = String::new();
        if self.currency {
            s.push('$');
        }
        s.push('1');
        if let Some(g) = self.group {
            s.push(g);
        }
        s.push_str("234");
        s.push(self.decimal);
        s.push_str("56");
        if self.percent {
            s.push('%');
        }
        s
    }

    /// How the column was read, for a schema: `written 1,234.56`, with what a percentage and
    /// parentheses mean; empty for the plain form.
    pub fn describe(&self) -> String {
        if self.is_plain() {
            return String::new();
        }
        let mut s = format!("written {}", self.example());
        if self.percent {
            s.push_str("; 45.2% read as 45.2");
        }
        if self.parentheses {
            s.push_str("; (12.50) read as -12.5");
        }
        s
    }
}

/// What [`detect`] makes of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Detected {
    /// The format that reads the most cells.
    pub format: NumberFormat,
    /// Cells it reads as numbers.
    pub cells: usize,
    /// Whether a decimal comma reads strictly more cells than any decimal point: a hint
    /// for the table's other columns, whose `1,234` could be read either way.
    pub comma_sure: bool,
}

/// The format that reads the most of a column's cells: `texts` are its distinct texts that
/// are not missing nor held as numbers, with their counts; `numbers` the values held as
/// numbers (as `f32` bits, sorted) with their counts. Ties go to the plain form, then to a
/// comma grouping thousands, unless `prefer_comma` (another column of the table writes a
/// decimal comma).
pub(crate) fn detect(
    texts: &[(&str, usize)],
    numbers: &[(u32, usize)],
    prefer_comma: bool,
) -> Detected {
    let mut best: Option<(usize, usize, NumberFormat)> = None;
    let (mut best_point, mut best_comma) = (0, 0);
    for (rank, &(decimal, group)) in NumberFormat::CANDIDATES.iter().enumerate() {
        let rank = match (prefer_comma, decimal, group) {
            (true, ',', Some('.') | None) => rank.saturating_sub(3),
            _ => rank,
        };
        let mut format = NumberFormat::marks(decimal, group);
        let (mut cells, mut grouped) = numbers_read(&format, numbers);
        for &(t, n) in texts {
            if let Some((_, a)) = format.read_affixes(t) {
                cells += n;
                format.percent |= a.percent;
                format.currency |= a.currency;
                format.parentheses |= a.parentheses;
                grouped |= a.grouped;
            }
        }
        if group.is_some() && !grouped {
            continue;
        }
        if decimal == ',' {
            best_comma = best_comma.max(cells);
        } else {
            best_point = best_point.max(cells);
        }
        let better = best.is_none_or(|(c, r, _)| cells > c || (cells == c && rank < r));
        if better {
            best = Some((cells, rank, format));
        }
    }
    let (cells, _, format) = best.unwrap_or((0, 0, NumberFormat::PLAIN));
    Detected {
        format,
        cells,
        comma_sure: best_comma > best_point,
    }
}

/// The cells held as numbers that `format` reads: all of them with a decimal point; with a
/// decimal comma, whole numbers, and (where a point groups thousands) `1.234` as 1234;
/// and whether such a grouped number was read.
fn numbers_read(format: &NumberFormat, numbers: &[(u32, usize)]) -> (usize, bool) {
    if format.decimal == '.' {
        return (numbers.iter().map(|&(_, n)| n).sum(), false);
    }
    let (mut cells, mut grouped) = (0, false);
    for &(bits, n) in numbers {
        let v = f32::from_bits(bits);
        if v.fract() == 0.0 {
            cells += n;
        } else if format.read(&v.to_string()).is_some() {
            cells += n;
            grouped = true;
        }
    }
    (cells, grouped)
}

/// Whether `t` reads as an IPv4 address rather than a number grouped by points: four
/// groups of digits, each at most 255, none after the first with a leading zero
/// (`192.168.100.200`, where `1.000.000.000` is a billion).
fn is_ipv4(t: &str) -> bool {
    let parts: Vec<&str> = t.split('.').collect();
    parts.len() == 4
        && parts.iter().enumerate().all(|(i, p)| {
            let digits = (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
            let leading_zero = i > 0 && p.len() > 1 && p.starts_with('0');
            digits && !leading_zero && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

/// Whether `c` is the group mark `g` (a space mark also matches the no-break spaces).
fn is_group(c: char, g: char) -> bool {
    c == g || (g == ' ' && matches!(c, '\u{a0}' | '\u{202f}'))
}

/// Drops a leading `-` or `+` (flipping `negative` for `-`); `None` for a second sign.
fn strip_sign(t: &str, negative: bool) -> Option<(&str, bool)> {
    match t.as_bytes().first() {
        Some(b'-') if !negative => Some((t[1..].trim_start(), true)),
        Some(b'+') => Some((t[1..].trim_start(), negative)),
        Some(b'-') => None,
        _ => Some((t, negative)),
    }
}

fn strip_currency_prefix(t: &str) -> Option<&str> {
    if let Some(c) = t.chars().next().filter(|c| CURRENCY_SIGNS.contains(c)) {
        return Some(t[c.len_utf8()..].trim_start());
    }
    CURRENCY_CODES
        .iter()
        .find_map(|code| t.strip_prefix(code))
        .map(str::trim_start)
}

fn strip_currency_suffix(t: &str) -> Option<&str> {
    if let Some(c) = t.chars().last().filter(|c| CURRENCY_SIGNS.contains(c)) {
        return Some(t[..t.len() - c.len_utf8()].trim_end());
    }
    CURRENCY_CODES
        .iter()
        .find_map(|code| t.strip_suffix(code))
        .map(str::trim_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(decimal: char, group: Option<char>, t: &str) -> Option<f64> {
        NumberFormat::marks(decimal, group)
            .read_affixes(t)
            .map(|(v, _)| v)
    }

    #[test]
    fn cells_read_in_each_format() {
        assert_eq!(read('.', Some(','), "1,234,567.89"), Some(1_234_567.89));
        assert_eq!(read('.', Some(','), "$1,234.56"), Some(1234.56));
        assert_eq!(read('.', Some(','), "(12.50)"), Some(-12.5));
        assert_eq!(read('.', Some(','), "-$3"), Some(-3.0));
        assert_eq!(read('.', None, "45.2%"), Some(45.2));
        assert_eq!(read('.', None, "€12"), Some(12.0));
        assert_eq!(read(',', Some('.'), "1.234.567,89"), Some(1_234_567.89));
        assert_eq!(read(',', Some('.'), "1.000.000.000"), Some(1e9));
        assert_eq!(read(',', Some('.'), "1.234.567.890"), Some(1_234_567_890.0));
        assert_eq!(
            read(',', Some('.'), "192.168.100.200"),
            None,
            "an IPv4 address"
        );
        assert_eq!(
            read(',', Some('.'), "100.200.100.200,5"),
            Some(100_200_100_200.5)
        );
        assert_eq!(read(',', None, "12,5"), Some(12.5));
        assert_eq!(read(',', Some(' '), "1 234 EUR"), Some(1234.0));
        assert_eq!(read(',', Some(' '), "1\u{a0}234,5"), Some(1234.5));
        for (d, g, t) in [
            ('.', Some(','), "1,23"),
            ('.', Some(','), "12,3456"),
            (',', Some('.'), "1.5"),
            (',', None, "1.5"),
            ('.', None, "abc"),
            ('.', None, "--3"),
            ('.', Some(','), "1,234.5.6"),
            ('.', None, "%"),
            ('.', None, "$"),
        ] {
            assert_eq!(read(d, g, t), None, "{t:?} in {d} {g:?}");
        }
    }

    #[test]
    fn examples_say_how_a_column_is_written() {
        let f = NumberFormat {
            currency: true,
            ..NumberFormat::marks(',', Some('.'))
        };
        assert_eq!(f.example(), "$1.234,56");
        assert!(NumberFormat::PLAIN.describe().is_empty());
        let p = NumberFormat {
            percent: true,
            ..NumberFormat::PLAIN
        };
        assert_eq!(p.describe(), "written 1234.56%; 45.2% read as 45.2");
        assert_eq!(p.read("45.2%"), Some(45.2));
        assert_eq!(NumberFormat::PLAIN.read("45.2%"), None);
    }
}
