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
use super::text::{Table, TextColumn};
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
/// (counted as one line a row after the header).
fn check_f32_range(table: &Table, c: usize) -> Result<()> {
    let column = table.column(c);
    let too_large = column
        .iter()
        .position(|cell| number(cell).is_some() && number_f32(cell).is_none());
    match too_large {
        Some(r) => Err(Error::NumberTooLarge {
            source_name: table.source.clone(),
            line: r as u64 + 2,
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
    levels: HashMap<&'a str, usize>,
    counts_rows: bool,
}

fn count(column: &TextColumn) -> Counts<'_> {
    let mut c = Counts {
        missing: 0,
        numbers: 0,
        yes_no: 0,
        dates: 0,
        times: 0,
        levels: HashMap::new(),
        counts_rows: true,
    };
    let mut previous: Option<f64> = None;
    for cell in column.iter() {
        if is_missing(cell) {
            c.missing += 1;
            c.counts_rows = false;
            continue;
        }
        *c.levels.entry(cell).or_insert(0) += 1;
        let v = number(cell);
        if let Some(v) = v {
            c.numbers += 1;
            let next = previous.map_or(v == 0.0 || v == 1.0, |p| v == p + 1.0);
            c.counts_rows &= next;
        } else {
            c.counts_rows = false;
        }
        previous = v;
        if yes_no(cell).is_some() {
            c.yes_no += 1;
        }
        if v.is_none()
            && let Some(d) = DateTime::parse(cell)
        {
            c.dates += 1;
            c.times += usize::from(d.hour.is_some());
        }
    }
    c
}

fn infer_column(name: &str, column: &TextColumn, forced: Option<&str>) -> ColumnInfo {
    let c = count(column);
    let rows = column.len();
    let present = rows - c.missing;
    let distinct = c.levels.len();
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
            let mut examples: Vec<&str> = c
                .levels
                .keys()
                .copied()
                .filter(|l| number(l).is_none())
                .collect();
            examples.sort_unstable();
            examples.truncate(3);
            info.missing += words;
            info.note = format!(
                "{words} cells of words read as missing (`{}`)",
                examples.join("`, `")
            );
        }
    };
    info.kind = match forced {
        Some("--ignore") => ColumnKind::Ignored,
        Some("--numeric") => {
            word_note(&mut info);
            ColumnKind::Number
        }
        Some(_) => ColumnKind::Category,
        None if present == 0 => ColumnKind::Empty,
        None if distinct == 1 => ColumnKind::Constant,
        None if c.yes_no == present && yes_no_levels(&c.levels) <= 2 => ColumnKind::YesNo,
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

/// The number of distinct yes/no meanings among the levels (1 or 2).
fn yes_no_levels(levels: &HashMap<&str, usize>) -> usize {
    let yes = levels.keys().any(|l| yes_no(l) == Some(true));
    let no = levels.keys().any(|l| yes_no(l) == Some(false));
    // A column spelling "yes" two ways ("Yes", "y") is still yes/no; one mixing "1"/"0" with
    // "t"/"f" too.
    usize::from(yes) + usize::from(no)
}
