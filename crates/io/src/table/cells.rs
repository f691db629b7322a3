//! What one text cell says: missing, a number, yes or no, a date.

use serde::{Deserialize, Serialize};

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

/// How a column writes the day and month of dates whose year comes last (`03/04/2024`);
/// dates whose year comes first (`2024-03-04`, `2024/03/04`) read the same in every order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateOrder {
    /// Year first only (ISO): a date whose year comes last is not read.
    #[default]
    YearFirst,
    /// Month, day, year (`03/15/2024`, as in the United States).
    MonthFirst,
    /// Day, month, year (`15/03/2024`, `15.03.2024`).
    DayFirst,
}

impl DateOrder {
    /// Every order, year first first.
    pub const ALL: [DateOrder; 3] = [
        DateOrder::YearFirst,
        DateOrder::MonthFirst,
        DateOrder::DayFirst,
    ];

    /// The example a note shows: `03/15/2024`, `15/03/2024` or `2024-03-15`.
    pub fn example(self) -> &'static str {
        match self {
            DateOrder::YearFirst => "2024-03-15",
            DateOrder::MonthFirst => "03/15/2024",
            DateOrder::DayFirst => "15/03/2024",
        }
    }

    /// Whether it reads only dates whose year comes first.
    pub fn is_year_first(self) -> bool {
        self == DateOrder::YearFirst
    }

    /// [`is_year_first`](Self::is_year_first) by reference (for serde's
    /// `skip_serializing_if`).
    pub fn is_year_first_ref(&self) -> bool {
        self.is_year_first()
    }
}

/// A date or date-time: `YYYY-MM-DD` (or with `/` or `.` between the parts), or, in a
/// column whose [`DateOrder`] says which of day and month comes first, `M/D/YYYY` or
/// `D/M/YYYY` (with `/`, `.` or `-`; one or two digits for day and month); optionally
/// followed by `T` or a space and `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fff`, optionally ending
/// in `Z` or an offset such as `+02:00` (the offset is not applied: the hour is the local
/// hour written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Year.
    pub year: i32,
    /// Month, 1-12.
    pub month: u32,
    /// Day of the month, 1-31.
    pub day: u32,
    /// Hour, 0-23, when a time is written.
    pub hour: Option<u32>,
}

impl DateTime {
    /// Parses a cell as a date whose year comes first; `None` when it is not one.
    pub fn parse(cell: &str) -> Option<Self> {
        Self::parse_in(cell, DateOrder::YearFirst)
    }

    /// Parses a cell of a column whose dates are written in `order`; `None` when it is not
    /// a date in it.
    pub fn parse_in(cell: &str, order: DateOrder) -> Option<Self> {
        let t = trim(cell).as_bytes();
        let end = t
            .iter()
            .position(|&b| b == b' ' || b == b'T')
            .unwrap_or(t.len());
        let (year, month, day) = match year_first(&t[..end]) {
            Some(ymd) => ymd,
            None if order.is_year_first() => return None,
            None => year_last(&t[..end], order)?,
        };
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        let hour = match &t[end..] {
            [] => None,
            [b'T' | b' ', rest @ ..] => Some(time_hour(rest)?),
            _ => return None,
        };
        Some(DateTime {
            year,
            month,
            day,
            hour,
        })
    }

    /// The seconds from 1970-01-01 00:00 to this date at its hour (0 when no time is
    /// written; minutes and seconds are not kept): the form in which an exported ONNX graph
    /// takes a date.
    pub fn seconds_since_epoch(&self) -> f64 {
        let days = self.days_since_epoch() as f64;
        days * 86_400.0 + f64::from(self.hour.unwrap_or(0)) * 3_600.0
    }

    /// Day of the week, 0 for Monday to 6 for Sunday.
    pub fn weekday(&self) -> u32 {
        (self.days_since_epoch() + 3).rem_euclid(7) as u32
    }

    /// Days since 1970-01-01 (a Thursday), by the civil-calendar formula.
    fn days_since_epoch(&self) -> i64 {
        let (y, m) = if self.month <= 2 {
            (i64::from(self.year) - 1, i64::from(self.month) + 9)
        } else {
            (i64::from(self.year), i64::from(self.month) - 3)
        };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * m + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

/// Year, month and day of `YYYY-MM-DD`, `YYYY/MM/DD` or `YYYY.MM.DD` (one separator).
fn year_first(t: &[u8]) -> Option<(i32, u32, u32)> {
    if t.len() != 10 || !matches!(t[4], b'-' | b'/' | b'.') || t[7] != t[4] {
        return None;
    }
    Some((
        digits(&t[0..4])? as i32,
        digits(&t[5..7])?,
        digits(&t[8..10])?,
    ))
}

/// Year, month and day of `A/B/YYYY` (or with `.` or `-`; one separator; A and B of one or
/// two digits), A the month or the day as `order` says.
fn year_last(t: &[u8], order: DateOrder) -> Option<(i32, u32, u32)> {
    let sep = *t.iter().find(|b| !b.is_ascii_digit())?;
    if !matches!(sep, b'/' | b'.' | b'-') {
        return None;
    }
    let mut parts = t.split(|&b| b == sep);
    let (a, b, y) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !(1..=2).contains(&a.len()) || !(1..=2).contains(&b.len()) {
        return None;
    }
    if y.len() != 4 {
        return None;
    }
    let (a, b, year) = (digits(a)?, digits(b)?, digits(y)? as i32);
    match order {
        DateOrder::MonthFirst => Some((year, a, b)),
        DateOrder::DayFirst => Some((year, b, a)),
        DateOrder::YearFirst => None,
    }
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    b.iter().try_fold(0u32, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

/// The hour of `HH:MM[:SS[.fff]][Z|+HH:MM|-HH:MM]`.
fn time_hour(t: &[u8]) -> Option<u32> {
    if t.len() < 5 || t[2] != b':' {
        return None;
    }
    let hour = digits(&t[0..2])?;
    let minute = digits(&t[3..5])?;
    if hour > 23 || minute > 59 {
        return None;
    }
    let mut rest = &t[5..];
    if let [b':', s1, s2, more @ ..] = rest {
        if digits(&[*s1, *s2])? > 60 {
            return None;
        }
        rest = more;
        if let [b'.', frac @ ..] = rest {
            let n = frac.iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            rest = &frac[n..];
        }
    }
    match rest {
        [] | [b'Z' | b'z'] => Some(hour),
        [b'+' | b'-', h1, h2, b':', m1, m2] if digits(&[*h1, *h2, *m1, *m2]).is_some() => {
            Some(hour)
        }
        _ => None,
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
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

    #[test]
    fn iso_dates_and_weekdays() {
        let d = DateTime::parse("2024-02-29").unwrap();
        assert_eq!((d.year, d.month, d.day, d.hour), (2024, 2, 29, None));
        assert_eq!(d.weekday(), 3, "29 February 2024 was a Thursday");
        assert_eq!(DateTime::parse("1970-01-01").unwrap().weekday(), 3);
        assert_eq!(
            d.seconds_since_epoch(),
            1_709_164_800.0,
            "date -d 2024-02-29Z +%s"
        );
        let before = DateTime::parse("1969-12-31 23:10").unwrap();
        assert_eq!(before.seconds_since_epoch(), -3_600.0);
        assert_eq!(
            DateTime::parse("2000-01-03").unwrap().weekday(),
            0,
            "a Monday"
        );
        let t = DateTime::parse("2023-07-09T17:45:10.250+02:00").unwrap();
        assert_eq!((t.hour, t.weekday()), (Some(17), 6));
        assert_eq!(DateTime::parse("2023-07-09 08:05").unwrap().hour, Some(8));
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "2023-1-01",
            "20230101",
            "2023-01-01T25:00",
            "2023-01-01x",
        ] {
            assert_eq!(DateTime::parse(bad), None, "{bad}");
        }
    }
}
