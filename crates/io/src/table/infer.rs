//! Column types decided from a whole table, in file order: [`infer_schema`].
//!
//! The rules, column by column (the target is left out):
//!
//! 1. A column named in an override takes that type (`ignore`, `numeric`, `categorical`).
//! 2. Every cell missing ([`is_missing`](super::is_missing)): *empty*, ignored.
//! 3. One distinct value among the cells that are not missing: *constant*, ignored.
//! 4. Every cell a yes/no word ([`yes_no`](super::yes_no): yes/no, true/false, y/n, t/f,
//!    0/1, any case): *yes/no*.
//! 5. Whole numbers of one width of at least 3 digits, some written with leading zeros
//!    (`02134`): codes such as zip codes, a *category*.
//! 6. Every cell a number: *number*, unless the numbers are whole and count the rows in
//!    order (0, 1, 2, ... or 1, 2, 3, ...), or, in a column named as row ids are
//!    ([`is_id_name`]: `id`, `row_id`, `index`, `Unnamed: 0`, ...), differ in every row
//!    (ids from any start, in any order: a slice, a shuffled or a filtered table), which
//!    makes the column an *identifier*.
//!    Numbers are read in the column's [`NumberFormat`] (thousands separators, a decimal
//!    comma, `%`, currency signs and codes, parentheses for negatives), the one that reads
//!    the most of its cells; a `1,234` that reads either way is a thousand and 234 unless
//!    another column of the table writes a decimal comma.
//! 7. Mostly numbers: when at least [`MOSTLY_NUMBERS`] of the cells that are not missing are
//!    numbers, or at least [`SOME_NUMBERS`] of them are numbers of at least
//!    [`MANY_VALUES`] distinct values among at most [`FEW_WORDS`] distinct words, the
//!    column is a *number* and the words in it (`unknown`, `n.a.`) are read as missing
//!    cells (imputed, with the missing indicator), named in the column's note.
//! 8. Every cell but a share below 1 - [`MOSTLY_NUMBERS`] a date or date-time: *date*,
//!    expanded into year, month, day of the week and, when times are written, hour; the
//!    other cells (`2021-02-30`) are read as missing, named in the note. Dates are written
//!    year first, or year last in the column's [`DateOrder`] of day and month, the one that
//!    reads the most cells ([`DateTime::parse_in`](super::DateTime::parse_in)).
//! 9. Other text with a distinct value in at least [`IDENTIFIER_SHARE`] of its rows (and at
//!    least [`IDENTIFIER_MIN_ROWS`] rows): an *identifier*, ignored.
//! 10. Other text: a *category*.
//!
//! Types are decided on the whole table before it is split, so that a row counter is seen
//! counting and every part of the table is read the same way; the encoding is then fitted
//! on the training rows alone.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::cells::{number, number_f32};
use super::counts::count;
use super::dates::DateOrder;
use super::names::short_name;
use super::numbers::NumberFormat;
use super::text::{ColumnRef, Table};
use crate::error::{Error, Result};

/// The share of numbers (among cells that are not missing) that makes a column with some
/// words in it a number column (and the share of dates that makes a date column): 75%.
/// Measured in docs/BENCHMARKS.md (stray words in a number column): a column whose signal is
/// in its numbers scores higher as a number with its words imputed than as a category, at
/// every share of words from 10% to 60%.
pub const MOSTLY_NUMBERS: f64 = 0.75;
/// The share of numbers that still makes a number column when the numbers take at least
/// [`MANY_VALUES`] distinct values and the words at most [`FEW_WORDS`]: 50%.
pub const SOME_NUMBERS: f64 = 0.5;
/// See [`SOME_NUMBERS`].
pub const MANY_VALUES: usize = 20;
/// See [`SOME_NUMBERS`].
pub const FEW_WORDS: usize = 5;
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
    /// Dates (`time`: date-times with an hour), in the column's order of day and month.
    Date {
        /// Whether times are written.
        time: bool,
        /// How the dates whose year comes last are written (year first only, by default:
        /// the ISO dates of schemas written before orders were read).
        #[serde(default, skip_serializing_if = "DateOrder::is_year_first_ref")]
        order: DateOrder,
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
    /// Whether the column holds dates.
    pub fn is_date(self) -> bool {
        matches!(self, ColumnKind::Date { .. })
    }

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
            ColumnKind::Date { time: false, .. } => "date",
            ColumnKind::Date { time: true, .. } => "date-time",
            ColumnKind::Identifier => "identifier",
            ColumnKind::Constant => "constant",
            ColumnKind::Empty => "empty",
            ColumnKind::Ignored => "ignored",
        })
    }
}

/// One column as the table it was typed on shows it (the whole file, before any split).
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
    /// How a number column writes its numbers (plain for other types).
    #[serde(default, skip_serializing_if = "NumberFormat::is_plain")]
    pub format: NumberFormat,
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

/// How an override asks a column to be read (see [`TypeOverrides`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnOverride {
    /// Read as categories.
    Categorical,
    /// Read as numbers.
    Numeric,
    /// Left out.
    Ignore,
}

impl std::fmt::Display for ColumnOverride {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ColumnOverride::Categorical => "read as categories",
            ColumnOverride::Numeric => "read as numbers",
            ColumnOverride::Ignore => "left out",
        })
    }
}

/// Decides the type of every column of `table` but `target` (see the module's rules), from
/// all of its rows in their order: give it the whole table, before any split.
///
/// Errors when an override or the target names no column, or one column is overridden twice.
pub fn infer_schema(
    table: &Table,
    target: Option<&str>,
    overrides: &TypeOverrides,
) -> Result<Vec<ColumnInfo>> {
    let lists = [
        (ColumnOverride::Categorical, &overrides.categorical),
        (ColumnOverride::Numeric, &overrides.numeric),
        (ColumnOverride::Ignore, &overrides.ignore),
    ];
    // Keyed by the names as the table holds them (a long name shortened).
    let mut forced: HashMap<String, ColumnOverride> = HashMap::new();
    for (how, names) in lists {
        for name in names {
            table
                .require(name)
                .map_err(|_| Error::OverrideUnknownColumn {
                    source_name: table.source.clone(),
                    how,
                    name: name.clone(),
                    available: table.names().to_vec(),
                })?;
            if let Some(first) = forced.insert(short_name(name).into_owned(), how) {
                return Err(Error::OverriddenTwice {
                    name: name.clone(),
                    first,
                    second: how,
                });
            }
        }
    }
    let target = target.map(|t| table.require(t)).transpose()?;
    if let Some(t) = target {
        let name = &table.names()[t];
        if let Some(&how) = forced.get(name.as_str()) {
            let name = name.clone();
            return Err(Error::OverrideOfTarget { name, how });
        }
    }
    let columns: Vec<usize> = (0..table.names().len())
        .filter(|&c| Some(c) != target)
        .collect();
    let mut counts: Vec<_> = columns
        .iter()
        .map(|&c| count(table.column(c), false))
        .collect();
    if counts.iter().any(|c| c.comma_sure) {
        for (k, &c) in columns.iter().enumerate() {
            if counts[k].format.group == Some(',') {
                counts[k] = count(table.column(c), true);
            }
        }
    }
    let mut out = Vec::new();
    for (c, counted) in columns.into_iter().zip(counts) {
        let name = &table.names()[c];
        let how = forced.get(name.as_str()).copied();
        if how == Some(ColumnOverride::Numeric) {
            refuse_without_numbers(name, &counted, table.column(c).len())?;
        }
        let info = infer_column(name, table.column(c), counted, how);
        if info.kind == ColumnKind::Number && info.format.is_plain() {
            check_f32_range(table, c)?;
        }
        out.push(info);
    }
    Ok(out)
}

/// Refuses the column `name` of `rows` rows, asked to be read as numbers, when fewer than
/// half of its filled cells (`counted`) are numbers: read as numbers, it would be mostly
/// missing.
fn refuse_without_numbers(
    name: &str,
    counted: &super::counts::Counts<'_>,
    rows: usize,
) -> Result<()> {
    let cells = rows - counted.missing;
    if 2 * counted.numbers >= cells {
        return Ok(());
    }
    let mut shown: Vec<String> = counted
        .words
        .iter()
        .map(|w| super::shown(w).into_owned())
        .collect();
    if counted.distinct_words > shown.len() {
        shown.push("...".into());
    }
    Err(Error::FewNumbers {
        name: name.to_string(),
        numbers: counted.numbers,
        cells,
        examples: shown.join("`, `"),
    })
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
            place: table.place(r),
            column: table.names()[c].clone(),
            value: column.get(r).to_string(),
        }),
        None => Ok(()),
    }
}

/// Whether `name` is how tables name their row ids: `id`, `ID`, `row_id`, `RowId`,
/// `index`, `idx`, `row`, `#`, `Unnamed: 0` (pandas' unnamed index), `rownames` or
/// `row.names` (R's row names, as R datasets are written out), or a name ending in `_id`,
/// ` id` or `-id` (`customer_id`).
pub fn is_id_name(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    const NAMES: [&str; 13] = [
        "id",
        "row_id",
        "rowid",
        "row id",
        "index",
        "idx",
        "row",
        "#",
        "no",
        "row_number",
        "rownames",
        "row.names",
        "row_names",
    ];
    NAMES.contains(&lower.as_str())
        || lower.starts_with("unnamed:")
        || ["_id", " id", "-id"].iter().any(|end| lower.ends_with(end))
}

/// Whether every cell of `column` is a whole number.
fn all_whole(column: ColumnRef<'_>) -> bool {
    column
        .cells()
        .all(|cell| cell.number().is_some_and(|v| v.fract() == 0.0))
}

fn infer_column(
    name: &str,
    column: ColumnRef<'_>,
    c: super::counts::Counts<'_>,
    forced: Option<ColumnOverride>,
) -> ColumnInfo {
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
        format: NumberFormat::PLAIN,
    };
    let as_number = |info: &mut ColumnInfo| {
        info.format = c.format;
        let words = present - c.numbers;
        if words > 0 {
            info.missing += words;
            let read = format!(
                "{words} cell{} not numbers (`{}`{}), read as missing",
                plural(words),
                c.words
                    .iter()
                    .map(|w| super::shown(w))
                    .collect::<Vec<_>>()
                    .join("`, `"),
                if c.distinct_words > c.words.len() {
                    ", ..."
                } else {
                    ""
                }
            );
            info.note = read;
        }
        ColumnKind::Number
    };
    let yes_no_levels = usize::from(c.yes) + usize::from(c.no);
    let share = |n: usize| n as f64 / present.max(1) as f64;
    let mostly_numbers = share(c.numbers) >= MOSTLY_NUMBERS
        || (share(c.numbers) >= SOME_NUMBERS
            && c.distinct_numbers >= MANY_VALUES
            && c.distinct_words <= FEW_WORDS);
    info.kind = match forced {
        Some(ColumnOverride::Ignore) => ColumnKind::Ignored,
        Some(ColumnOverride::Numeric) => as_number(&mut info),
        Some(ColumnOverride::Categorical) => ColumnKind::Category,
        None if present == 0 => ColumnKind::Empty,
        None if distinct == 1 => ColumnKind::Constant,
        // A column spelling "yes" two ways ("Yes", "y") is still yes/no; one mixing "1"/"0"
        // with "t"/"f" too.
        None if c.yes_no == present && yes_no_levels <= 2 => ColumnKind::YesNo,
        None if c.zero_padded && mostly_numbers => {
            info.note = "codes written with leading zeros".into();
            ColumnKind::Category
        }
        None if c.numbers == present && c.counts_rows && rows >= IDENTIFIER_MIN_ROWS => {
            info.note = "whole numbers counting the rows".into();
            ColumnKind::Identifier
        }
        None if c.numbers == present
            && distinct == present
            && rows >= IDENTIFIER_MIN_ROWS
            && is_id_name(name)
            && all_whole(column) =>
        {
            info.note = "row ids: a distinct whole number in every row".into();
            ColumnKind::Identifier
        }
        None if mostly_numbers && c.numbers > 0 => as_number(&mut info),
        None if c.dates > 0 && share(c.dates) >= MOSTLY_NUMBERS => {
            let others = present - c.dates;
            if others > 0 {
                info.missing += others;
                info.note = format!(
                    "{others} cell{} not dates (`{}`), read as missing",
                    plural(others),
                    c.not_dates.join("`, `")
                );
            }
            ColumnKind::Date {
                time: c.times > 0,
                order: c.date_order,
            }
        }
        None if c.numbers == 0
            && present >= IDENTIFIER_MIN_ROWS
            && distinct as f64 >= IDENTIFIER_SHARE * present as f64 =>
        {
            info.note = "a distinct value in almost every row".into();
            ColumnKind::Identifier
        }
        None => ColumnKind::Category,
    };
    let short_years = c.short_year_dates > 0 && share(c.short_year_dates) >= MOSTLY_NUMBERS;
    if forced.is_none() && !info.kind.is_date() && short_years {
        info.note = "dates with two-digit years are not read as dates, the century being unknown: write the years in full".into();
    }
    info
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
