//! [`ReadNote`]: what new rows hold that a fitted encoding cannot read as the type it was
//! trained on (text in a number column, a date that does not exist), column by column.

use std::fmt;

use super::cells::is_missing;
use super::dates::{DateOrder, DateTime};
use super::encode::{ColumnEncoder, read_number};
use super::preprocessor::Preprocessor;
use super::text::{Cell, ColumnRef, Table};
use crate::error::{Error, Result};

/// The cells of one column of new rows that could not be read as the column's training
/// type, and are read as missing (imputed) instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadNote {
    /// The column.
    pub column: String,
    /// What the model reads there: `numbers`, `yes/no values`, `LEVELS` or dates
    /// ([`DateOrder::dates_read`]: `dates like 03/15/2024, month first`).
    pub kind: &'static str,
    /// Cells that could not be read.
    pub unreadable: usize,
    /// Cells in the column.
    pub rows: usize,
    /// Up to three of the texts that could not be read, in text order.
    pub examples: Vec<String>,
}

impl ReadNote {
    /// The count and examples: `60 of 60 cells are not numbers (`old`, `young`)`.
    fn counted(&self) -> String {
        format!(
            "{} of {} cell{} {} not {} (`{}`)",
            self.unreadable,
            self.rows,
            if self.rows == 1 { "" } else { "s" },
            if self.unreadable == 1 { "is" } else { "are" },
            match (self.unreadable, self.kind) {
                (1, "numbers") => "a number".to_string(),
                (1, LEVELS) => "a level seen in training".to_string(),
                (1, "yes/no values") => "a yes/no value".to_string(),
                (1, dates) => dates.replacen("dates", "a date", 1),
                (_, kind) => kind.to_string(),
            },
            self.examples.join("`, `")
        )
    }
}

impl fmt::Display for ReadNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let read_as = match self.kind {
            LEVELS => "none of its levels",
            _ => "missing",
        };
        write!(f, "{}: {}, read as {read_as}", self.column, self.counted())
    }
}

impl Preprocessor {
    /// The columns of `table` (new rows) with cells that are not missing but cannot be read
    /// as the type the encoding was trained on: each such cell is encoded as missing. Errors
    /// ([`Error::UnreadableColumn`]) on a column of which no cell can be read while some
    /// are not missing, and on a column the encoding reads that `table` lacks.
    pub fn read_notes(&self, table: &Table) -> Result<Vec<ReadNote>> {
        let mut notes = Vec::new();
        for encoder in &self.columns {
            let c = table.require(encoder.column())?;
            if let ColumnEncoder::Date { order, .. } = encoder {
                refuse_another_order(*order, table, c)?;
            }
            let Some(note) = note(encoder, table.column(c)) else {
                continue;
            };
            let present = (0..note.rows)
                .filter(|&r| !table.column(c).cell(r).is_missing())
                .count();
            // New levels of a category are expected; unreadable numbers or dates only.
            if note.unreadable == present && note.kind != LEVELS {
                return Err(Error::UnreadableColumn {
                    source_name: table.source.clone(),
                    column: note.column.clone(),
                    note: note.counted(),
                });
            }
            notes.push(note);
        }
        Ok(notes)
    }
}

/// The notes of [`Preprocessor::read_notes`] for a model that reads its `columns` of
/// `table` as plain numbers (no stored encoding): each cell that is neither missing nor a
/// number is read as missing. The same refusals: a missing column, and one of which no cell
/// is a number while some are not missing.
pub fn number_notes(table: &Table, columns: &[String]) -> Result<Vec<ReadNote>> {
    let mut notes = Vec::new();
    for name in columns {
        let column = table.column(table.require(name)?);
        let (mut unreadable, mut present) = (0, 0);
        let mut examples: Vec<String> = Vec::new();
        let mut buf = String::new();
        for r in 0..column.len() {
            let cell = column.cell(r);
            if cell.is_missing() {
                continue;
            }
            present += 1;
            if cell.number_f32().is_none() {
                unreadable += 1;
                let text = cell.text(&mut buf).to_string();
                if examples.len() < 3 && !examples.contains(&text) {
                    examples.push(text);
                }
            }
        }
        if unreadable == 0 {
            continue;
        }
        examples.sort_unstable();
        let note = ReadNote {
            column: name.clone(),
            kind: "numbers",
            unreadable,
            rows: column.len(),
            examples,
        };
        if unreadable == present {
            return Err(Error::UnreadableColumn {
                source_name: table.source.clone(),
                column: name.clone(),
                note: note.counted(),
            });
        }
        notes.push(note);
    }
    Ok(notes)
}

/// Refuses column `c` of `table` (new rows) when its dates read in another order than the
/// model's `order` read more of its cells: read the model's way, the days and months of the
/// cells both orders read (days up to 12) would be swapped without a word.
fn refuse_another_order(order: DateOrder, table: &Table, c: usize) -> Result<()> {
    let column = table.column(c);
    let data = column.data();
    let mut read = [0usize; 3];
    for code in 0..data.codes() as u32 {
        let text = data.code_text(code);
        for (k, o) in DateOrder::ALL.into_iter().enumerate() {
            read[k] += usize::from(DateTime::parse_in(text, o).is_some());
        }
    }
    let at = |o: DateOrder| DateOrder::ALL.iter().position(|&a| a == o).unwrap_or(0);
    let best = (0..3)
        .max_by_key(|&k| (read[k], k == at(order)))
        .unwrap_or(0);
    if read[best] <= read[at(order)] {
        return Ok(());
    }
    Err(Error::DatesInAnotherOrder {
        source_name: table.source.clone(),
        column: table.names()[c].clone(),
        trained: order,
        found: DateOrder::ALL[best],
    })
}

/// What a category's note says its cells are not.
const LEVELS: &str = "levels seen in training";

/// The note of one column, `None` when every cell reads (or the column is a category
/// whose rare training levels were pooled: any other level reads as `other`, as they do).
fn note(encoder: &ColumnEncoder, column: ColumnRef<'_>) -> Option<ReadNote> {
    let kind = match encoder {
        ColumnEncoder::Number { .. } => "numbers",
        ColumnEncoder::YesNo { .. } => "yes/no values",
        ColumnEncoder::Date { order, .. } => order.dates_read(),
        ColumnEncoder::Category { other: true, .. } => return None,
        ColumnEncoder::Category { .. } => LEVELS,
    };
    let known: std::collections::HashSet<&str> = match encoder {
        ColumnEncoder::Category { levels, .. } => levels.iter().map(String::as_str).collect(),
        _ => Default::default(),
    };
    let reads = |cell: Cell<'_>| match encoder {
        ColumnEncoder::Number { format, .. } => read_number(format, cell).is_some(),
        ColumnEncoder::YesNo { .. } => cell.yes_no().is_some(),
        ColumnEncoder::Category { .. } => known.contains(cell.text(&mut String::new())),
        ColumnEncoder::Date { order, .. } => cell.date(*order).is_some(),
    };
    let data = column.data();
    // Each distinct text is judged once; values held as numbers are read directly.
    let mut by_code: Vec<Option<bool>> = vec![None; data.codes()];
    let mut unreadable = 0;
    let mut examples: Vec<String> = Vec::new();
    for r in 0..column.len() {
        let cell = column.cell(r);
        let ok = match data.code(column.index(r)) {
            Some(code) => *by_code[code as usize]
                .get_or_insert_with(|| is_missing(data.code_text(code)) || reads(cell)),
            None => reads(cell),
        };
        if !ok {
            unreadable += 1;
            let text = cell.text(&mut String::new()).to_string();
            if examples.len() < 3 && !examples.contains(&text) {
                examples.push(text);
            }
        }
    }
    examples.sort_unstable();
    (unreadable > 0).then(|| ReadNote {
        column: encoder.column().to_string(),
        kind,
        unreadable,
        rows: column.len(),
        examples,
    })
}
