//! One pass over a column, counting what its cells could be: the numbers (in the format
//! that reads the most of them), yes/no words, dates, codes written with leading zeros.

use super::cells::{is_missing, number, yes_no};
use super::column::Stored;
use super::dates::{DateOrder, DateTime, two_digit_year_date};
use super::numbers::{CURRENCY_SIGNS, Detected, NumberFormat, detect};
use super::text::{Cell, ColumnRef};

/// What one pass over a column counts.
pub(super) struct Counts<'a> {
    pub missing: usize,
    /// Cells read as numbers in [`format`](Self::format).
    pub numbers: usize,
    /// Distinct values among those numbers (texts and values held as numbers counted apart).
    pub distinct_numbers: usize,
    pub yes_no: usize,
    /// Cells read as dates in [`date_order`](Self::date_order), and those with a time.
    pub dates: usize,
    pub times: usize,
    /// How the column writes its dates: the order that reads the most of its cells.
    pub date_order: DateOrder,
    /// Cells written as dates with two-digit years (not read as dates).
    pub short_year_dates: usize,
    pub distinct: usize,
    /// Whether some level reads as yes, and some as no.
    pub yes: bool,
    pub no: bool,
    /// The first three texts met that are not numbers (in text order), and how many
    /// distinct texts are not.
    pub words: Vec<&'a str>,
    pub distinct_words: usize,
    /// The first three texts that are not dates in [`date_order`](Self::date_order) (nor
    /// missing).
    pub not_dates: Vec<&'a str>,
    pub counts_rows: bool,
    /// How the column writes its numbers.
    pub format: NumberFormat,
    /// Whether a decimal comma reads strictly more of its cells than a decimal point.
    pub comma_sure: bool,
    /// Whether the numbers are codes of one width written with leading zeros (`02134`).
    pub zero_padded: bool,
}

/// Counts a column: the numbers cell by cell, the texts once per distinct text. With
/// `prefer_comma`, a column whose `1,234` reads either way takes the comma as decimal.
pub(super) fn count<'a>(column: ColumnRef<'a>, prefer_comma: bool) -> Counts<'a> {
    let data = column.data();
    let mut per_code = vec![0usize; data.codes()];
    let mut numbers: Vec<u32> = Vec::new();
    for cell in column.stored() {
        match cell {
            Stored::Code(code) => per_code[code as usize] += 1,
            Stored::Number(v) => numbers.push(v.to_bits()),
        }
    }
    let mut c = Counts {
        missing: 0,
        numbers: numbers.len(),
        distinct_numbers: 0,
        yes_no: 0,
        dates: 0,
        times: 0,
        date_order: DateOrder::YearFirst,
        short_year_dates: 0,
        distinct: 0,
        yes: false,
        no: false,
        words: Vec::new(),
        distinct_words: 0,
        not_dates: Vec::new(),
        counts_rows: counts_rows(column),
        format: NumberFormat::PLAIN,
        comma_sure: false,
        zero_padded: false,
    };
    for &bits in &numbers {
        if let Some(b) = Cell::Number(f32::from_bits(bits)).yes_no() {
            c.yes_no += 1;
            (c.yes, c.no) = (c.yes || b, c.no || !b);
        }
    }
    numbers.sort_unstable();
    let runs = runs(&numbers);
    drop(numbers);
    let mut texts: Vec<(&str, usize)> = Vec::new();
    let mut padded: Vec<(usize, usize)> = Vec::new();
    let mut formatted = false;
    let mut dates = DateCounts::default();
    for (code, &n) in per_code.iter().enumerate().filter(|(_, n)| **n > 0) {
        let cell = data.code_text(code as u32);
        if is_missing(cell) {
            c.missing += n;
            continue;
        }
        c.distinct += 1;
        let plain = number(cell).is_some();
        if could_be_number(cell) {
            texts.push((cell, n));
            formatted |= !plain;
        }
        if cell.len() > 1 && cell.starts_with('0') && cell.bytes().all(|b| b.is_ascii_digit()) {
            padded.push((cell.len(), n));
        }
        dates.add(cell, n);
        if two_digit_year_date(cell) {
            c.short_year_dates += n;
        }
        if let Some(b) = yes_no(cell) {
            c.yes_no += n;
            (c.yes, c.no) = (c.yes || b, c.no || !b);
        }
    }
    let detected = if formatted {
        detect(&texts, &runs, prefer_comma)
    } else {
        let held: usize = runs.iter().map(|r| r.1).sum();
        let written: usize = texts
            .iter()
            .filter(|t| number(t.0).is_some())
            .map(|t| t.1)
            .sum();
        Detected {
            format: NumberFormat::PLAIN,
            cells: held + written,
            comma_sure: false,
        }
    };
    c.format = detected.format;
    c.numbers = detected.cells;
    c.comma_sure = detected.comma_sure;
    c.distinct += runs.len();
    let read: Vec<bool> = texts.iter().map(|t| c.format.read(t.0).is_some()).collect();
    c.distinct_numbers = runs.len() + read.iter().filter(|&&r| r).count();
    c.distinct_words = c.distinct - c.distinct_numbers;
    c.words = words(data, &per_code, &c.format);
    c.zero_padded = zero_padded(&padded, &runs, &texts, c.numbers);
    let k = dates.best();
    (c.date_order, c.dates, c.times) = (DateOrder::ALL[k], dates.dates[k], dates.times[k]);
    c.not_dates = std::mem::take(&mut dates.not_dates[k]);
    c
}

/// A column's texts counted as dates in each [`DateOrder`] (in the order of
/// [`DateOrder::ALL`]).
#[derive(Default)]
struct DateCounts<'a> {
    dates: [usize; 3],
    times: [usize; 3],
    not_dates: [Vec<&'a str>; 3],
    /// Cells whose year comes last, written with `/`, and with `.` or `-`.
    slashes: usize,
    dots: usize,
}

impl<'a> DateCounts<'a> {
    /// Counts `n` cells of text `cell`.
    fn add(&mut self, cell: &'a str, n: usize) {
        for (k, order) in DateOrder::ALL.into_iter().enumerate() {
            match DateTime::parse_in(cell, order) {
                Some(d) => {
                    self.dates[k] += n;
                    self.times[k] += if d.hour.is_some() { n } else { 0 };
                    if k == 1 && DateTime::parse(cell).is_none() {
                        match cell.contains('/') {
                            true => self.slashes += n,
                            false => self.dots += n,
                        }
                    }
                }
                None => keep_first(&mut self.not_dates[k], cell),
            }
        }
    }

    /// The index of the order that reads the most cells: year first when the others read
    /// no more; between month first and day first read alike (every day at most 12), day
    /// first where the dates are written with `.` or `-` more than with `/` (`15.03.2024`,
    /// as in Europe), month first otherwise (`03/15/2024`, as in the United States).
    fn best(&self) -> usize {
        let [year, month, day] = self.dates;
        if year >= month && year >= day {
            return 0;
        }
        match month.cmp(&day) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Less => 2,
            std::cmp::Ordering::Equal if self.dots > self.slashes => 2,
            std::cmp::Ordering::Equal => 1,
        }
    }
}

/// Keeps in `first` the first three texts met (by code, the order of first appearance),
/// in text order, without comparing every text.
fn keep_first<'a>(first: &mut Vec<&'a str>, t: &'a str) {
    if first.len() < 3 {
        first.push(t);
        first.sort_unstable();
    }
}

/// Whether a text could be a number in some format: a digit in it, and at each end a
/// digit or a sign that a number may carry there (a cheap test before trying formats).
fn could_be_number(t: &str) -> bool {
    let sign = |c: char| CURRENCY_SIGNS.contains(&c) || c.is_ascii_uppercase();
    let (Some(first), Some(last)) = (t.chars().next(), t.chars().last()) else {
        return false;
    };
    let starts =
        first.is_ascii_digit() || matches!(first, '+' | '-' | '.' | ',' | '(') || sign(first);
    let ends = last.is_ascii_digit() || matches!(last, '%' | ')') || sign(last);
    starts && ends && t.bytes().any(|b| b.is_ascii_digit())
}

/// Each distinct value of sorted `f32` bits with its count.
fn runs(sorted: &[u32]) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> = Vec::new();
    for &b in sorted {
        match out.last_mut() {
            Some((last, n)) if *last == b => *n += 1,
            _ => out.push((b, 1)),
        }
    }
    out
}

/// The first three texts met that are neither missing nor numbers in `format`.
fn words<'a>(
    data: &'a super::column::TextColumn,
    per_code: &[usize],
    format: &NumberFormat,
) -> Vec<&'a str> {
    let mut words = Vec::new();
    let texts = per_code.iter().enumerate().filter(|(_, n)| **n > 0);
    for t in texts.map(|(code, _)| data.code_text(code as u32)) {
        if !is_missing(t) && format.read(t).is_none() {
            keep_first(&mut words, t);
        }
    }
    words
}

/// Whether the numbers are codes written with leading zeros: some texts of one width of at
/// least 3 digits start with `0`, and at least 90% of the cells read as numbers are whole
/// numbers written with that many digits.
fn zero_padded(
    padded: &[(usize, usize)],
    runs: &[(u32, usize)],
    texts: &[(&str, usize)],
    numbers: usize,
) -> bool {
    let Some(&(width, _)) = padded.first() else {
        return false;
    };
    if width < 3 || padded.iter().any(|p| p.0 != width) {
        return false;
    }
    let digits = |t: &str| t.len() == width && t.bytes().all(|b| b.is_ascii_digit());
    let held: usize = runs
        .iter()
        .filter(|(bits, _)| digits(&f32::from_bits(*bits).to_string()))
        .map(|r| r.1)
        .sum();
    let written: usize = texts.iter().filter(|t| digits(t.0)).map(|t| t.1).sum();
    (held + written) as f64 >= 0.9 * numbers as f64
}

/// Whether every cell is a whole number and they count the rows in order (0, 1, 2, ... or
/// 1, 2, 3, ...); stops at the first cell that does not.
fn counts_rows(column: ColumnRef<'_>) -> bool {
    let mut previous: Option<f64> = None;
    for cell in column.cells() {
        let Some(v) = cell.number() else {
            return false;
        };
        if !previous.map_or(v == 0.0 || v == 1.0, |p| v == p + 1.0) {
            return false;
        }
        previous = Some(v);
    }
    true
}
