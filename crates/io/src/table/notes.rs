//! [`ReadNote`]: what new rows hold that a fitted encoding cannot read as the type it was
//! trained on (text in a number column, a date that does not exist), column by column.

use std::fmt;

use super::cells::is_missing;
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
    /// What the model reads there: `numbers`, `dates`, `yes/no values` or `LEVELS`.
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
                (1, "numbers") => "a number",
                (1, "dates") => "a date",
                (1, LEVELS) => "a level seen in training",
                (1, _) => "a yes/no value",
                (_, kind) => kind,
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

/// What a category's note says its cells are not.
const LEVELS: &str = "levels seen in training";

/// The note of one column, `None` when every cell reads (or the column is a category
/// whose rare training levels were pooled: any other level reads as `other`, as they do).
fn note(encoder: &ColumnEncoder, column: ColumnRef<'_>) -> Option<ReadNote> {
    let kind = match encoder {
        ColumnEncoder::Number { .. } => "numbers",
        ColumnEncoder::YesNo { .. } => "yes/no values",
        ColumnEncoder::Date { .. } => "dates",
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
