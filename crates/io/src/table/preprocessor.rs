//! [`Preprocessor`]: the encoding of a table's columns into the numbers a network takes
//! (one [`ColumnEncoder`] a used column), fitted on the training rows only and stored in
//! the model file.

use serde::{Deserialize, Serialize};

use super::encode::{ColumnEncoder, EncodeOptions};
use super::infer::ColumnInfo;
use super::numbers::NumberFormat;
use super::text::{Table, TextColumn};
use crate::dataset::Standardizer;
use crate::error::{Error, Result};

/// The fitted encoding of a table: one [`ColumnEncoder`] per used column, in the order of
/// the training table. Serialised into the model file (`docs/FORMAT.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preprocessor {
    /// The encoders, in output order.
    pub columns: Vec<ColumnEncoder>,
}

/// The first columns of `schema` with why each is ignored: `` `id` identifier (a distinct
/// value in almost every row); `c` constant``.
fn why_ignored(schema: &[ColumnInfo]) -> String {
    const SHOWN: usize = 5;
    let mut each: Vec<String> = schema
        .iter()
        .take(SHOWN)
        .map(|i| match i.note.is_empty() {
            true => format!("`{}` {}", i.name, i.kind),
            false => format!("`{}` {} ({})", i.name, i.kind, i.note),
        })
        .collect();
    if schema.len() > SHOWN {
        each.push(format!("and {} more", schema.len() - SHOWN));
    }
    each.join("; ")
}

impl Preprocessor {
    /// Fits the encoding of the used columns of `schema` on the rows of `table` (the
    /// training rows). Errors when no column is used.
    pub fn fit(table: &Table, schema: &[ColumnInfo], options: &EncodeOptions) -> Result<Self> {
        let mut columns = Vec::new();
        for info in schema.iter().filter(|i| i.kind.is_used()) {
            let c = table.require(&info.name)?;
            columns.push(ColumnEncoder::fit(info, table.column(c), options));
        }
        if columns.is_empty() {
            return Err(Error::Table {
                source_name: table.source.clone(),
                message: format!(
                    "every feature column is ignored, so there is nothing to learn from: {}",
                    why_ignored(schema)
                ),
            });
        }
        Ok(Preprocessor { columns })
    }

    /// The raw columns read, in order.
    pub fn input_columns(&self) -> Vec<String> {
        self.columns
            .iter()
            .map(|c| c.column().to_string())
            .collect()
    }

    /// The names of the encoded columns, in order.
    pub fn output_names(&self) -> Vec<String> {
        self.columns
            .iter()
            .flat_map(ColumnEncoder::output_names)
            .collect()
    }

    /// The number of encoded columns.
    pub fn width(&self) -> usize {
        self.columns.iter().map(|c| c.output_names().len()).sum()
    }

    /// The encoded columns of the categories of more than `levels` levels (their levels',
    /// `other` and `missing` columns), in order.
    pub fn columns_of_categories_over(&self, levels: usize) -> Vec<usize> {
        let mut at = 0;
        let mut out = Vec::new();
        for c in &self.columns {
            let width = c.output_names().len();
            if matches!(c, ColumnEncoder::Category { levels: l, .. } if l.len() > levels) {
                out.extend(at..at + width);
            }
            at += width;
        }
        out
    }

    /// Encodes every row of `table` (columns matched by name, in any order; others
    /// ignored) into `rows * width()` values, row-major. Errors naming a missing column.
    pub fn transform(&self, table: &Table) -> Result<Vec<f32>> {
        let width = self.width();
        let mut out = vec![0f32; table.rows() * width];
        let mut offset = 0;
        for encoder in &self.columns {
            let column = table
                .column_named(encoder.column())
                .ok_or_else(|| Error::Table {
                    source_name: table.source.clone(),
                    message: format!(
                        "has no column `{}`, which the model reads",
                        encoder.column()
                    ),
                })?;
            if width > 0 {
                encoder.encode(column, &mut out, width, offset);
            }
            offset += encoder.output_names().len();
        }
        Ok(out)
    }

    /// When every column is a plain number (no [`NumberFormat`] to apply) without gaps in
    /// training, the whole encoding is a standardisation: its means and deviations, so that a model can store that alone.
    pub fn as_standardizer(&self) -> Option<Standardizer> {
        let mut mean = Vec::new();
        let mut std = Vec::new();
        for c in &self.columns {
            match c {
                ColumnEncoder::Number {
                    scaling,
                    indicator: false,
                    format,
                    piecewise: None,
                    ..
                } if format.is_plain() => {
                    mean.push(scaling.mean);
                    std.push(scaling.std);
                }
                _ => return None,
            }
        }
        Some(Standardizer { mean, std })
    }

    /// Encodes rows given as numbers, one per input column in
    /// [`input_columns`](Self::input_columns) order (NaN for a missing cell): each value is
    /// read as the text it prints as, so category levels written as numbers match (and a
    /// number column's [`NumberFormat`] is not applied: the values are numbers already).
    pub fn transform_values(&self, values: &[f32]) -> Result<Vec<f32>> {
        let names = self.input_columns();
        let n = names.len();
        if n == 0 || !values.len().is_multiple_of(n) {
            return Err(Error::invalid(format!(
                "{} values are not a whole number of rows of {n} columns ({})",
                values.len(),
                names.join(", ")
            )));
        }
        let rows = values.len() / n;
        let mut columns = vec![TextColumn::with_capacity(rows); n];
        for row in values.chunks_exact(n) {
            for (column, v) in columns.iter_mut().zip(row) {
                column.push(&if v.is_nan() {
                    String::new()
                } else {
                    format!("{v}")
                });
            }
        }
        // The values are numbers already: no column's number format applies to them.
        let mut plain = self.clone();
        for c in &mut plain.columns {
            if let ColumnEncoder::Number { format, .. } = c {
                *format = NumberFormat::PLAIN;
            }
        }
        plain.transform(&Table::new("rows", names, columns)?)
    }

    /// The columns of `table` that the encoding does not read.
    pub fn unused_columns(&self, table: &Table) -> Vec<String> {
        let used = self.input_columns();
        table
            .names()
            .iter()
            .filter(|n| !used.contains(n))
            .cloned()
            .collect()
    }
}
