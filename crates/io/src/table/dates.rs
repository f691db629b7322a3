//! Dates in table cells: [`DateTime`], read year first (`2024-03-15`) or, in a column
//! whose [`DateOrder`] says which of day and month comes first, year last (`3/15/2024`,
//! `15.03.2024`), or with the month's name (`5 Jul 2019`), each with an optional time.

use super::cells::trim;
use serde::{Deserialize, Serialize};

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

    /// How messages name it: `month first (03/15/2024)`.
    pub fn written(self) -> &'static str {
        match self {
            DateOrder::YearFirst => "year first (2024-03-15)",
            DateOrder::MonthFirst => "month first (03/15/2024)",
            DateOrder::DayFirst => "day first (15/03/2024)",
        }
    }

    /// What a note says the model reads in a date column of this order.
    pub fn dates_read(self) -> &'static str {
        match self {
            DateOrder::YearFirst => "dates like 2024-03-15",
            DateOrder::MonthFirst => "dates like 03/15/2024, month first",
            DateOrder::DayFirst => "dates like 15/03/2024, day first",
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
    /// a date in it. Dates with the month's name (`5 Jul 2019`, `05-Jul-2019`,
    /// `Jul 5, 2019`) read in every order.
    pub fn parse_in(cell: &str, order: DateOrder) -> Option<Self> {
        let t = trim(cell);
        let (date, time) = numeric_date(t.as_bytes(), order).or_else(|| named_month_date(t))?;
        let (year, month, day) = date;
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        let hour = match time.trim() {
            "" => None,
            time => Some(time_hour(time)?),
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

/// A numeric date at the start of `t` (up to a space or a `T`) and the time after it.
fn numeric_date(t: &[u8], order: DateOrder) -> Option<((i32, u32, u32), &str)> {
    let end = t
        .iter()
        .position(|&b| b == b' ' || b == b'T')
        .unwrap_or(t.len());
    let date = match year_first(&t[..end]) {
        Some(ymd) => ymd,
        None if order.is_year_first() => return None,
        None => year_last(&t[..end], order)?,
    };
    let time = match &t[end..] {
        [] => "",
        [b'T' | b' ', rest @ ..] => std::str::from_utf8(rest).ok()?,
        _ => return None,
    };
    Some((date, time))
}

/// The three parts of a date separated by one of `/`, `.` or `-` (the same twice).
fn three_parts(t: &[u8]) -> Option<[&[u8]; 3]> {
    let sep = *t.iter().find(|b| !b.is_ascii_digit())?;
    if !matches!(sep, b'/' | b'.' | b'-') {
        return None;
    }
    let mut parts = t.split(|&b| b == sep);
    let three = [parts.next()?, parts.next()?, parts.next()?];
    parts.next().is_none().then_some(three)
}

/// Whether `cell` is written as a date whose year has two digits (`7/5/19`, `05.07.19`,
/// optionally with a time), which is not read as a date: the century is not known.
pub(super) fn two_digit_year_date(cell: &str) -> bool {
    let t = trim(cell).as_bytes();
    let end = t.iter().position(|&b| b == b' ').unwrap_or(t.len());
    three_parts(&t[..end]).is_some_and(|[a, b, y]| {
        short(a) && short(b) && y.len() == 2 && [a, b, y].iter().all(|p| digits(p).is_some())
    })
}

/// Whether `b` is a day or month of one or two digits.
fn short(b: &[u8]) -> bool {
    (1..=2).contains(&b.len())
}

/// Year, month and day of `YYYY-MM-DD`, `YYYY/MM/DD` or `YYYY.MM.DD` (one separator; one
/// or two digits for month and day).
fn year_first(t: &[u8]) -> Option<(i32, u32, u32)> {
    let [y, m, d] = three_parts(t)?;
    if y.len() != 4 || !short(m) || !short(d) {
        return None;
    }
    Some((digits(y)? as i32, digits(m)?, digits(d)?))
}

/// Year, month and day of `A/B/YYYY` (or with `.` or `-`; one separator; A and B of one or
/// two digits), A the month or the day as `order` says.
fn year_last(t: &[u8], order: DateOrder) -> Option<(i32, u32, u32)> {
    let [a, b, y] = three_parts(t)?;
    if !short(a) || !short(b) || y.len() != 4 {
        return None;
    }
    let (a, b, year) = (digits(a)?, digits(b)?, digits(y)? as i32);
    match order {
        DateOrder::MonthFirst => Some((year, a, b)),
        DateOrder::DayFirst => Some((year, b, a)),
        DateOrder::YearFirst => None,
    }
}

/// The names of the months, in English.
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month (1-12) named by `word`: its full English name or its first three letters
/// (`Sept` too), in any case.
fn month_named(word: &str) -> Option<u32> {
    let w = word.to_ascii_lowercase();
    let w = w.trim_end_matches('.');
    if w.len() < 3 || !w.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let at = MONTHS
        .iter()
        .position(|m| *m == w || m[..3] == *w || (w == "sept" && *m == "september"))?;
    Some(at as u32 + 1)
}

/// A date written with its month's name, day before or after it and the year last
/// (`5 Jul 2019`, `05-Jul-2019`, `Jul 5, 2019`, `July 5 2019`), and the time after it.
fn named_month_date(t: &str) -> Option<((i32, u32, u32), &str)> {
    // A date and a time fit in 40 bytes; most texts are turned away here.
    let b = t.as_bytes();
    if b.len() > 40 || !b.first()?.is_ascii_alphanumeric() || !b.iter().any(u8::is_ascii_digit) {
        return None;
    }
    let mut words = t.split([' ', ',', '-']).filter(|w| !w.is_empty());
    let (a, b, y) = (words.next()?, words.next()?, words.next()?);
    let number = |w: &str| {
        (short(w.as_bytes()))
            .then(|| digits(w.as_bytes()))
            .flatten()
    };
    let (month, day) = match (month_named(a), month_named(b)) {
        (Some(m), None) => (m, number(b)?),
        (None, Some(m)) => (m, number(a)?),
        _ => return None,
    };
    if y.len() != 4 {
        return None;
    }
    let year = digits(y.as_bytes())? as i32;
    let time = match t.find(y) {
        Some(at) => &t[at + y.len()..],
        None => "",
    };
    Some(((year, month, day), time))
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    b.iter().try_fold(0u32, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

/// The hour of `H:MM[:SS[.fff]][Z|+HH:MM|-HH:MM]` (one or two digits for the hour), or of
/// `H:MM[:SS] AM` / `PM` (any case, the space optional) on a 12-hour clock.
fn time_hour(t: &str) -> Option<u32> {
    let lower = t.to_ascii_lowercase();
    let (clock, half) = match lower
        .strip_suffix("am")
        .or_else(|| lower.strip_suffix("a.m."))
    {
        Some(c) => (c.trim_end(), Some(0)),
        None => match lower
            .strip_suffix("pm")
            .or_else(|| lower.strip_suffix("p.m."))
        {
            Some(c) => (c.trim_end(), Some(12)),
            None => (lower.as_str(), None),
        },
    };
    let t = clock.as_bytes();
    let colon = t.iter().position(|&b| b == b':')?;
    if !(1..=2).contains(&colon) || t.len() < colon + 3 {
        return None;
    }
    let hour = digits(&t[..colon])?;
    let minute = digits(&t[colon + 1..colon + 3])?;
    if minute > 59 {
        return None;
    }
    let hour = match half {
        None if hour <= 23 => hour,
        Some(pm) if (1..=12).contains(&hour) => hour % 12 + pm,
        _ => return None,
    };
    let mut rest = &t[colon + 3..];
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
    match (rest, half) {
        ([], _) => Some(hour),
        ([b'z'], None) => Some(hour),
        ([b'+' | b'-', h1, h2, b':', m1, m2], None) if digits(&[*h1, *h2, *m1, *m2]).is_some() => {
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
            "2023-1-011",
            "20230101",
            "2023-01-01T25:00",
            "2023-01-01x",
            "2023-01/01",
        ] {
            assert_eq!(DateTime::parse(bad), None, "{bad}");
        }
    }

    /// (year, month, day, hour) of `cell` in `order`.
    fn parts(cell: &str, order: DateOrder) -> Option<(i32, u32, u32, Option<u32>)> {
        DateTime::parse_in(cell, order).map(|d| (d.year, d.month, d.day, d.hour))
    }

    #[test]
    fn other_ways_of_writing_dates_and_times() {
        use DateOrder::*;
        assert_eq!(parts("2019-7-5", YearFirst), Some((2019, 7, 5, None)));
        assert_eq!(
            parts("7/5/2019 3:31", MonthFirst),
            Some((2019, 7, 5, Some(3)))
        );
        assert_eq!(
            parts("7/5/2019 3:31", DayFirst),
            Some((2019, 5, 7, Some(3)))
        );
        assert_eq!(parts("7/5/2019 3:31", YearFirst), None);
        assert_eq!(
            parts("2019-07-05 3:31", YearFirst),
            Some((2019, 7, 5, Some(3)))
        );
        assert_eq!(
            parts("7/5/2019 2:31 PM", MonthFirst),
            Some((2019, 7, 5, Some(14)))
        );
        assert_eq!(
            parts("7/5/2019 12:05 am", MonthFirst),
            Some((2019, 7, 5, Some(0)))
        );
        assert_eq!(
            parts("7/5/2019 12:05PM", MonthFirst),
            Some((2019, 7, 5, Some(12)))
        );
        assert_eq!(parts("7/5/2019 13:05 PM", MonthFirst), None);
        for named in [
            "5 Jul 2019",
            "05-Jul-2019",
            "Jul 5, 2019",
            "July 5 2019",
            "5 july 2019",
        ] {
            for order in DateOrder::ALL {
                assert_eq!(parts(named, order), Some((2019, 7, 5, None)), "{named}");
            }
        }
        assert_eq!(
            parts("Sept 30, 2021 18:00", YearFirst),
            Some((2021, 9, 30, Some(18)))
        );
        for bad in [
            "Jul 2019",
            "5 Jol 2019",
            "31 Jun 2019",
            "7/5/19",
            "Jul 5 19",
            "1.2.3",
        ] {
            for order in DateOrder::ALL {
                assert_eq!(parts(bad, order), None, "{bad}");
            }
        }
    }
}
