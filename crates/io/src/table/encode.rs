//! [`ColumnEncoder`]: the encoding of one of a table's columns into the numbers a network
//! takes, fitted on the training rows only and stored in the model file (the whole table's:
//! [`Preprocessor`](super::Preprocessor)).
//!
//! - numbers (and dates, part by part): missing cells take the training median, a
//!   `<name>_missing` indicator column follows where the training column had gaps, then
//!   `(v - mean) / std` with the training statistics of the filled column;
//! - yes/no: 1 for yes, 0 for no, missing cells the training share of yes (with the
//!   indicator where the training column had gaps);
//! - categories: one-hot over the levels seen at least [`EncodeOptions::min_count`] times,
//!   at most [`EncodeOptions::max_levels`] of them (the most frequent); the other levels are
//!   pooled into `<name>=other`, and a `<name>=missing` column marks missing cells where the
//!   training column had any. A level never seen in training reads as `other` (a row of
//!   zeros where training pooled nothing), never as an error.

use serde::{Deserialize, Serialize};

use super::category::{encode_category, fit_category};
use super::dates::{DateOrder, DateTime};
use super::infer::{ColumnInfo, ColumnKind};
use super::numbers::NumberFormat;
pub use super::parts::{DateField, Scaling};
use super::piecewise::Piecewise;
use super::text::{Cell, ColumnRef};

/// How categories are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Levels seen fewer times in training are pooled into `other`.
    pub min_count: usize,
    /// At most this many levels get their own column (the most frequent); the rest are
    /// pooled into `other`, which bounds the encoded width of any column.
    pub max_levels: usize,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            min_count: 5,
            max_levels: 64,
        }
    }
}

/// How one raw column becomes encoded columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ColumnEncoder {
    /// A number: filled, standardised, with an optional missing indicator.
    Number {
        /// The raw column's name.
        column: String,
        /// Fill and standardisation.
        scaling: Scaling,
        /// Whether a `<column>_missing` indicator follows.
        indicator: bool,
        /// How the column writes its numbers (absent in the file: plain).
        #[serde(default, skip_serializing_if = "NumberFormat::is_plain")]
        format: NumberFormat,
        /// The piecewise-linear encoding of the standardised value, in its place (absent
        /// in the file: the standardised value itself).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        piecewise: Option<Piecewise>,
    },
    /// Yes/no as 1/0.
    YesNo {
        /// The raw column's name.
        column: String,
        /// The value of a missing cell (the training share of yes).
        fill: f32,
        /// Whether a `<column>_missing` indicator follows.
        indicator: bool,
    },
    /// One-hot levels.
    Category {
        /// The raw column's name.
        column: String,
        /// The levels with their own column, in output order.
        levels: Vec<String>,
        /// Whether an `other` column follows (some training levels were pooled).
        other: bool,
        /// Whether a `missing` column follows (the training column had missing cells).
        missing: bool,
    },
    /// A date expanded into numeric parts, each filled and standardised.
    Date {
        /// The raw column's name.
        column: String,
        /// How its dates are written (year first only in files written before orders were
        /// read).
        #[serde(default, skip_serializing_if = "DateOrder::is_year_first_ref")]
        order: DateOrder,
        /// The parts, in output order.
        parts: Vec<(DateField, Scaling)>,
        /// Whether a `<column>_missing` indicator follows.
        indicator: bool,
    },
}

impl ColumnEncoder {
    /// The raw column this reads.
    pub fn column(&self) -> &str {
        match self {
            ColumnEncoder::Number { column, .. }
            | ColumnEncoder::YesNo { column, .. }
            | ColumnEncoder::Category { column, .. }
            | ColumnEncoder::Date { column, .. } => column,
        }
    }

    /// The names of the encoded columns, in order.
    pub fn output_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let with_indicator = |names: &mut Vec<String>, column: &str, indicator: bool| {
            if indicator {
                names.push(format!("{column}_missing"));
            }
        };
        match self {
            ColumnEncoder::Number {
                column,
                indicator,
                piecewise: Some(p),
                ..
            } => {
                names.extend((1..=p.bins()).map(|t| format!("{column}_bin{t}")));
                with_indicator(&mut names, column, *indicator);
            }
            ColumnEncoder::Number {
                column, indicator, ..
            }
            | ColumnEncoder::YesNo {
                column, indicator, ..
            } => {
                names.push(column.clone());
                with_indicator(&mut names, column, *indicator);
            }
            ColumnEncoder::Category {
                column,
                levels,
                other,
                missing,
            } => {
                names.extend(levels.iter().map(|l| format!("{column}={l}")));
                // A pooled or missing column is named apart from a level that reads the same.
                let free = |name: &str| {
                    let mut name = name.to_string();
                    while levels.contains(&name) {
                        name.push('*');
                    }
                    format!("{column}={name}")
                };
                if *other {
                    names.push(free("other"));
                }
                if *missing {
                    names.push(free("missing"));
                }
            }
            ColumnEncoder::Date {
                column,
                parts,
                indicator,
                ..
            } => {
                names.extend(parts.iter().map(|(f, _)| format!("{column}_{}", f.name())));
                with_indicator(&mut names, column, *indicator);
            }
        }
        names
    }

    /// How the encoding reads in a schema table, e.g. `one-hot 12 + other + missing`.
    pub fn describe(&self) -> String {
        let ind = |i: bool| if i { " + missing indicator" } else { "" };
        match self {
            ColumnEncoder::Number {
                indicator,
                format,
                piecewise,
                ..
            } => {
                let written = match format.is_plain() {
                    true => String::new(),
                    false => format!(", {}", format.describe()),
                };
                let bins = piecewise.as_ref().map_or(String::new(), |p| {
                    format!(", piecewise-linear in {} bins", p.bins())
                });
                format!("median, standardised{bins}{}{written}", ind(*indicator))
            }
            ColumnEncoder::YesNo { indicator, .. } => format!("1/0{}", ind(*indicator)),
            ColumnEncoder::Category {
                levels,
                other,
                missing,
                ..
            } => format!(
                "one-hot {}{}{}",
                levels.len(),
                if *other { " + other" } else { "" },
                if *missing { " + missing" } else { "" }
            ),
            ColumnEncoder::Date {
                order,
                parts,
                indicator,
                ..
            } => {
                let names: Vec<&str> = parts.iter().map(|(f, _)| f.name()).collect();
                let written = match order {
                    DateOrder::YearFirst => String::new(),
                    _ => format!(", written {}", order.written()),
                };
                format!(
                    "{}, standardised{}{written}",
                    names.join("/"),
                    ind(*indicator)
                )
            }
        }
    }

    pub(super) fn fit(info: &ColumnInfo, column: ColumnRef<'_>, options: &EncodeOptions) -> Self {
        let rows = column.len();
        let name = info.name.clone();
        match info.kind {
            ColumnKind::YesNo => {
                let values: Vec<bool> = column.cells().filter_map(Cell::yes_no).collect();
                let yes = values.iter().filter(|&&v| v).count();
                ColumnEncoder::YesNo {
                    column: name,
                    fill: if values.is_empty() {
                        0.0
                    } else {
                        yes as f32 / values.len() as f32
                    },
                    indicator: values.len() < rows,
                }
            }
            ColumnKind::Category => fit_category(name, column, options),
            ColumnKind::Date { time, order } => {
                let dates: Vec<DateTime> = column.cells().filter_map(|c| c.date(order)).collect();
                let mut fields = vec![DateField::Year, DateField::Month, DateField::Weekday];
                if time {
                    fields.push(DateField::Hour);
                }
                let parts = fields
                    .into_iter()
                    .map(|f| {
                        let mut v: Vec<f64> = dates.iter().filter_map(|d| f.of(d)).collect();
                        (f, Scaling::fit(&mut v, rows))
                    })
                    .collect();
                ColumnEncoder::Date {
                    column: name,
                    order,
                    parts,
                    indicator: dates.len() < rows,
                }
            }
            _ => {
                let format = info.format;
                let cells = column.cells();
                let mut values: Vec<f64> = match format.is_plain() {
                    true => cells.filter_map(Cell::number_f32).map(f64::from).collect(),
                    false => cells
                        .filter_map(|c| read_number(&format, c))
                        .map(f64::from)
                        .collect(),
                };
                let indicator = values.len() < rows;
                ColumnEncoder::Number {
                    column: name,
                    scaling: Scaling::fit(&mut values, rows),
                    indicator,
                    format,
                    piecewise: None,
                }
            }
        }
    }

    /// Writes the encoded values of every cell of `column` into `out` (row-major, `width`
    /// values a row), starting at column `offset`.
    pub(super) fn encode(
        &self,
        column: ColumnRef<'_>,
        out: &mut [f32],
        width: usize,
        offset: usize,
    ) {
        let rows = out.chunks_exact_mut(width).zip(column.cells());
        match self {
            ColumnEncoder::Number {
                scaling,
                indicator,
                format,
                piecewise,
                ..
            } => {
                let plain = format.is_plain();
                let bins = piecewise.as_ref().map_or(1, Piecewise::bins);
                for (row, cell) in rows {
                    let v = match plain {
                        true => cell.number_f32(),
                        false => read_number(format, cell),
                    };
                    let z = scaling.apply(v);
                    match piecewise {
                        Some(p) => p.write(z, &mut row[offset..offset + bins]),
                        None => row[offset] = z,
                    }
                    if *indicator {
                        row[offset + bins] = f32::from(u8::from(v.is_none()));
                    }
                }
            }
            ColumnEncoder::YesNo {
                fill, indicator, ..
            } => {
                for (row, cell) in rows {
                    let v = cell.yes_no();
                    row[offset] = v.map_or(*fill, |b| f32::from(u8::from(b)));
                    if *indicator {
                        row[offset + 1] = f32::from(u8::from(v.is_none()));
                    }
                }
            }
            ColumnEncoder::Category {
                levels,
                other,
                missing,
                ..
            } => encode_category(levels, *other, *missing, column, out, width, offset),
            ColumnEncoder::Date {
                order,
                parts,
                indicator,
                ..
            } => {
                for (row, cell) in rows {
                    let d = cell.date(*order);
                    for (k, (field, scaling)) in parts.iter().enumerate() {
                        row[offset + k] =
                            scaling.apply(d.as_ref().and_then(|d| field.of(d)).map(|v| v as f32));
                    }
                    if *indicator {
                        row[offset + parts.len()] = f32::from(u8::from(d.is_none()));
                    }
                }
            }
        }
    }
}

/// A cell as a number in `format`: a value held as a number is taken as it is where the
/// decimal mark is a point, and read again from its text where it is a comma (`1.234` is
/// then 1234); a plain column reads as [`Cell::number_f32`].
pub(super) fn read_number(format: &NumberFormat, cell: Cell<'_>) -> Option<f32> {
    if format.is_plain() {
        return cell.number_f32();
    }
    match cell {
        Cell::Number(v) if format.decimal == '.' || v.fract() == 0.0 => Some(v),
        _ => format
            .read(cell.text(&mut String::new()))
            .map(|v| v as f32)
            .filter(|v| v.is_finite()),
    }
}
