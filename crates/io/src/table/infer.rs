//! Column types decided from the training rows: [`infer_schema`].
//!
//! The rules, column by column (the target is left out):
//!
//! 1. A column named in an override takes that type (`ignore`, `numeric`, `categorical`).
//! 2. Every cell missing ([`is_missing`]): *empty*, ignored.
//! 3. One distinct value among the cells that are not missing: *constant*, ignored.
//! 4. Every cell a yes/no word ([`yes_no`]: yes/no, true/false, y/n, t/f, 0/1, any case):
//!    *yes/no*.
//! 5. Every cell a number: *number*, unless the numbers are whole and count the rows in
//!    order (0, 1, 2, ... or 1, 2, 3, ...), which makes the column an *identifier*.
//! 6. Mostly numbers: when at least [`MOSTLY_NUMBERS`] of the cells that are not missing are
//!    numbers, the column is a *number* and the few words in it (`unknown`, `12+`) are read as
//!    missing cells (imputed, with the missing indicator); below that share it is a category.
//! 7. Every cell an ISO date or date-time: *date*, expanded into year, month, day of the week
//!    and, when times are written, hour.
//! 8. Other text with a distinct value in at least [`IDENTIFIER_SHARE`] of its rows (and at
//!    least [`IDENTIFIER_MIN_ROWS`] rows): an *identifier*, ignored.
//! 9. Other text: a *category*.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::cells::{DateTime, is_missing, number, number_f32, yes_no};
use super::text::{Cell, ColumnRef, Table};
use crate::error::{Error, Result};

/// The share of numbers (among cells that are not missing) that makes a column with some
/// words in it a number column: 95%.
pub const MOSTLY_NUMBERS: f64 = 0.95;
/// The share of distinct values that makes a text column an identifier: 95% of its rows.
pub const IDENTIFIER_SHARE: f64 = 0.95;
/// Fewer rows than this never make a text column an identifier.
pub const IDENTIFIER_MIN_ROWS: usize = 20;

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnKind {
    /// Numbers (words in a mostly-numeric column read as missing).
    Number,
    /// Yes/no, true/false, y/n, t/f or 0/1.
    YesNo,
    /// Text levels.
    Category,
    /// ISO dates (`time`: date-times with an hour).
    Date {
        /// Whether times are written.
        time: bool,
    },
    /// A distinct value in almost every row, or a count of the rows: ignored.
    Identifier,
    /// One value throughout: ignored.
    Constant,
    /// No value at all: ignored.
    Empty,
    /// Ignored because the user asked.
    Ignored,
}

impl ColumnKind {
    /// Whether the column feeds the model.
    pub fn is_used(self) -> bool {
        matches!(
            self,
            ColumnKind::Number | ColumnKind::YesNo | ColumnKind::Category | ColumnKind::Date { .. }
        )
    }
}

impl fmt::Display for ColumnKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColumnKind::Number => "number",
            ColumnKind::YesNo => "yes/no",
            ColumnKind::Category => "category",
            ColumnKind::Date { time: false } => "date",
            ColumnKind::Date { time: true } => "date-time",
            ColumnKind::Identifier => "identifier",
            ColumnKind::Constant => "constant",
            ColumnKind::Empty => "empty",
            ColumnKind::Ignored => "ignored",
        })
    }
}

/// One column as the training rows show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnInfo {
    /// Column name.
    pub name: String,
    /// Decided type.
    pub kind: ColumnKind,
    /// Rows looked at.
    pub rows: usize,
    /// Missing cells (words in a number column included).
    pub missing: usize,
    /// Distinct values among the cells that are not missing.
    pub distinct: usize,
    /// Why the column is ignored, or what was read as missing; empty otherwise.
    pub note: String,
}

/// The columns' types, by name: what to override before [`infer_schema`] decides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeOverrides {
    /// Columns to read as categories whatever they hold.
    pub categorical: Vec<String>,
    /// Columns to read as numbers (cells that are not numbers become missing).
    pub numeric: Vec<String>,
    /// Columns to leave out.
    pub ignore: Vec<String>,
}

/// Decides the type of every column of `table` but `target` (see the module's rules).
///
/// Errors when an override or the target names no column, or one column is overridden twice.
pub fn infer_schema(
    table: &Table,
    target: Option<&str>,
    overrides: &TypeOverrides,
) -> Result<Vec<ColumnInfo>> {
    let lists = [
        ("--categorical", &overrides.categorical),
        ("--numeric", &overrides.numeric),
        ("--ignore", &overrides.ignore),
    ];
    let mut forced: HashMap<&str, &str> = HashMap::new();
    for (option, names) in lists {
        for name in names {
            table.require(name).map_err(|_| Error::Table {
                source_name: table.source.clone(),
                message: format!(
                    "{option} names `{name}`, which is not a column; columns: {}",
                    table.names().join(", ")
                ),
            })?;
            if let Some(other) = forced.insert(name, option) {
                return Err(Error::invalid(format!(
                    "column `{name}` is given to both {other} and {option}"
                )));
            }
        }
    }
    if let Some(t) = target {
        table.require(t)?;
    }
    let mut out = Vec::new();
    for (c, name) in table.names().iter().enumerate() {
        if Some(name.as_str()) == target {
            continue;
        }
        let info = infer_column(name, table.column(c), forced.get(name.as_str()).copied());
        if info.kind == ColumnKind::Number {
            check_f32_range(table, c)?;
        }
        out.push(info);
    }
    Ok(out)
}

/// Errors on a number beyond the `f32` range (about ±3.4e38) in column `c`, naming its line
/// (counted as one line a row after the header). Only text cells can be: numbers kept as
/// numbers are `f32` already.
fn check_f32_range(table: &Table, c: usize) -> Result<()> {
    let column = table.column(c);
    let data = column.data();
    let mut bad: Vec<Option<bool>> = vec![None; data.codes()];
    let mut too_large = |code: u32| {
        *bad[code as usize].get_or_insert_with(|| {
            let t = data.code_text(code);
            number(t).is_some() && number_f32(t).is_none()
        })
    };
    match column
        .codes()
        .position(|code| code.is_some_and(&mut too_large))
    {
        Some(r) => Err(Error::NumberTooLarge {
            source_name: table.source.clone(),
            line: table.line(r),
            column: table.names()[c].clone(),
            value: column.get(r).to_string(),
        }),
        None => Ok(()),
    }
}

/// What one pass over a column counts.
struct Counts<'a> {
    missing: usize,
    numbers: usize,
    yes_no: usize,
    dates: usize,
    times: usize,
    distinct: usize,
    /// Whether some level reads as yes, and some as no.
    yes: bool,
    no: bool,
    /// The first three levels (in text order) that are not numbers.
    words: Vec<&'a str>,
    counts_rows: bool,
}

/// Counts a column: the numbers cell by cell, the texts once per distinct text.
fn count<'a>(column: ColumnRef<'a>) -> Counts<'a> {
    let data = column.data();
    let mut per_code = vec![0usize; data.codes()];
    let mut numbers: Vec<u32> = Vec::new();
    for (r, code) in column.codes().enumerate() {
        match code {
            Some(code) => per_code[code as usize] += 1,
            None => numbers.push(column.cell(r).number_f32().map_or(0, f32::to_bits)),
        }
    }
    let mut c = Counts {
        missing: 0,
        numbers: numbers.len(),
        yes_no: 0,
        dates: 0,
        times: 0,
        distinct: 0,
        yes: false,
        no: false,
        words: Vec::new(),
        counts_rows: counts_rows(column),
    };
    for &bits in &numbers {
        if let Some(b) = Cell::Number(f32::from_bits(bits)).yes_no() {
            c.yes_no += 1;
            (c.yes, c.no) = (c.yes || b, c.no || !b);
        }
    }
    numbers.sort_unstable();
    numbers.dedup();
    c.distinct = numbers.len();
    for (code, &n) in per_code.iter().enumerate().filter(|(_, n)| **n > 0) {
        let cell = data.code_text(code as u32);
        if is_missing(cell) {
            c.missing += n;
            continue;
        }
        c.distinct += 1;
        if number(cell).is_some() {
            c.numbers += n;
        } else {
            c.words.push(cell);
            if let Some(d) = DateTime::parse(cell) {
                c.dates += n;
                c.times += if d.hour.is_some() { n } else { 0 };
            }
        }
        if let Some(b) = yes_no(cell) {
            c.yes_no += n;
            (c.yes, c.no) = (c.yes || b, c.no || !b);
        }
    }
    c.words.sort_unstable();
    c.words.truncate(3);
    c
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

fn infer_column(name: &str, column: ColumnRef<'_>, forced: Option<&str>) -> ColumnInfo {
    let c = count(column);
    let rows = column.len();
    let present = rows - c.missing;
    let distinct = c.distinct;
    let mut info = ColumnInfo {
        name: name.to_string(),
        kind: ColumnKind::Category,
        rows,
        missing: c.missing,
        distinct,
        note: String::new(),
    };
    let words = present - c.numbers;
    let word_note = |info: &mut ColumnInfo| {
        if words > 0 {
            info.missing += words;
            info.note = format!(
                "{words} cells of words read as missing (`{}`)",
                c.words
                    .iter()
                    .map(|w| super::shown(w))
                    .collect::<Vec<_>>()
                    .join("`, `")
            );
        }
    };
    let yes_no_levels = usize::from(c.yes) + usize::from(c.no);
    info.kind = match forced {
        Some("--ignore") => ColumnKind::Ignored,
        Some("--numeric") => {
            word_note(&mut info);
            ColumnKind::Number
        }
        Some(_) => ColumnKind::Category,
        None if present == 0 => ColumnKind::Empty,
        None if distinct == 1 => ColumnKind::Constant,
        // A column spelling "yes" two ways ("Yes", "y") is still yes/no; one mixing "1"/"0"
        // with "t"/"f" too.
        None if c.yes_no == present && yes_no_levels <= 2 => ColumnKind::YesNo,
        None if c.numbers == present && c.counts_rows && rows >= IDENTIFIER_MIN_ROWS => {
            info.note = "whole numbers counting the rows".into();
            ColumnKind::Identifier
        }
        None if c.numbers == present => ColumnKind::Number,
        None if c.numbers as f64 >= MOSTLY_NUMBERS * present as f64 => {
            word_note(&mut info);
            ColumnKind::Number
        }
        None if c.dates == present => ColumnKind::Date { time: c.times > 0 },
        None if c.numbers == 0
            && present >= IDENTIFIER_MIN_ROWS
            && distinct as f64 >= IDENTIFIER_SHARE * present as f64 =>
        {
            info.note = "a distinct value in almost every row".into();
            ColumnKind::Identifier
        }
        None => ColumnKind::Category,
    };
    info
}
