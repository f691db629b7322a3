//! [`Table`]: a table as it was read, column by column ([`TextColumn`]), or a selection of
//! another table's rows that shares its columns ([`Table::select_rows`]).

use std::borrow::Cow;
use std::sync::Arc;

use super::RowPlace;
pub use super::column::{Cell, TextColumn};
use super::names::short_name;
use crate::error::{Error, Result};

/// One column of a [`Table`]: the column's cells in the table's rows.
#[derive(Debug, Clone, Copy)]
pub struct ColumnRef<'a> {
    data: &'a TextColumn,
    rows: Option<&'a [u32]>,
}

impl<'a> ColumnRef<'a> {
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.rows.map_or(self.data.len(), <[u32]>::len)
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row of the stored column that holds cell `r`.
    pub fn index(&self, r: usize) -> usize {
        self.rows.map_or(r, |rows| rows[r] as usize)
    }

    /// Cell `r` (panics when `r >= len()`, like slice indexing).
    pub fn cell(&self, r: usize) -> Cell<'a> {
        self.data.cell(self.index(r))
    }

    /// The text of cell `r` (see [`TextColumn::get`]).
    pub fn get(&self, r: usize) -> &'a str {
        self.data.get(self.index(r))
    }

    /// The cells' text in order (see [`TextColumn::get`]).
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + 'a {
        let me = *self;
        (0..me.len()).map(move |r| me.get(r))
    }

    /// The cells in order.
    pub fn cells(&self) -> impl Iterator<Item = Cell<'a>> + 'a {
        let me = *self;
        (0..me.len()).map(move |r| me.cell(r))
    }

    /// The stored column (all its rows, dictionary included).
    pub fn data(&self) -> &'a TextColumn {
        self.data
    }

    /// Each cell as the column stores it, in order.
    pub(crate) fn stored(&self) -> impl Iterator<Item = super::column::Stored> + 'a {
        let me = *self;
        (0..me.len()).map(move |r| me.data.stored(me.index(r)))
    }

    /// The dictionary code of each cell (`None` for a number), in order.
    pub fn codes(&self) -> impl Iterator<Item = Option<u32>> + 'a {
        let me = *self;
        (0..me.len()).map(move |r| me.data.code(me.index(r)))
    }
}

/// A table as people have them: a header and rows of text cells, held column by column.
/// Types are decided later ([`infer_schema`](super::infer_schema)), from the training rows.
#[derive(Debug, Clone)]
pub struct Table {
    /// Where the table came from (a file name), for messages.
    pub source: String,
    names: Vec<String>,
    columns: Arc<Vec<TextColumn>>,
    /// The file line of each stored row (`None`: row `r` on line `r + 2`, after a header).
    lines: Option<Arc<[u64]>>,
    /// The file has no lines: row `r` is the file's row `r + 1`.
    unlined: bool,
    /// The rows of `columns` this table holds, in order (`None`: all of them), 4 bytes a
    /// row ([`select_rows`](Self::select_rows) refuses tables of more than `u32::MAX` rows).
    rows: Option<Arc<[u32]>>,
}

impl PartialEq for Table {
    /// Tables are equal when their names and every cell are.
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names
            && self.rows() == other.rows()
            && (0..self.names.len()).all(|c| self.column(c).cells().eq(other.column(c).cells()))
    }
}

impl Eq for Table {}

impl Table {
    /// A table from named columns of equal length; errors on a duplicate or empty name, or
    /// columns of different lengths. A name longer than [`super::MAX_NAME_BYTES`] is held
    /// shortened ([`short_name`]).
    pub fn new(
        source: impl Into<String>,
        names: Vec<String>,
        columns: Vec<TextColumn>,
    ) -> Result<Self> {
        let source = source.into();
        let names: Vec<String> = names
            .into_iter()
            .map(|n| match short_name(&n) {
                Cow::Borrowed(_) => n,
                Cow::Owned(short) => short,
            })
            .collect();
        if names.len() != columns.len() {
            return Err(Error::invalid(format!(
                "`{source}`: {} column names for {} columns",
                names.len(),
                columns.len()
            )));
        }
        check_names(&source, &names)?;
        let rows = columns.first().map_or(0, TextColumn::len);
        if let Some((i, c)) = columns.iter().enumerate().find(|(_, c)| c.len() != rows) {
            return Err(Error::invalid(format!(
                "`{source}`: column `{}` has {} cells where the first has {rows}",
                names[i],
                c.len()
            )));
        }
        Ok(Table {
            source,
            names,
            columns: Arc::new(columns),
            lines: None,
            unlined: false,
            rows: None,
        })
    }

    /// This table read from a file without lines (Parquet, a JSON array): its rows are named
    /// by their position in the file in messages ([`RowPlace::Row`]).
    pub fn without_lines(mut self) -> Self {
        self.unlined = true;
        self.lines = None;
        self
    }

    /// This table with the file line of each of its stored rows (for messages), when they
    /// are not one line a row after a header; errors when `lines` does not hold one line a
    /// row.
    pub fn with_lines(mut self, lines: Vec<u64>) -> Result<Self> {
        let stored = self.columns.first().map_or(0, TextColumn::len);
        if lines.len() != stored || self.rows.is_some() {
            return Err(Error::invalid(format!(
                "`{}`: {} line numbers for {stored} rows",
                self.source,
                lines.len()
            )));
        }
        let plain = lines.iter().enumerate().all(|(r, &l)| l == r as u64 + 2);
        self.lines = (!plain).then(|| lines.into());
        Ok(self)
    }

    /// The line of the file that holds data row `r` (the first data row is line 2, after
    /// the header, unless quoted line breaks or blank lines come before it). It stays with
    /// the row through [`select_rows`](Self::select_rows), so that a message about a row of a
    /// training or test part names the row's line in the file. Panics when `r >= rows()`.
    pub fn place(&self, r: usize) -> RowPlace {
        let stored = self.rows.as_ref().map_or(r, |rows| rows[r] as usize);
        match &self.lines {
            _ if self.unlined => RowPlace::Row(stored as u64 + 1),
            Some(lines) => RowPlace::Line(lines[stored]),
            None => RowPlace::Line(stored as u64 + 2),
        }
    }

    /// A table from rows of cells (convenient in tests and examples).
    pub fn from_rows<S: AsRef<str>>(source: &str, names: &[S], rows: &[Vec<S>]) -> Result<Self> {
        let mut columns = vec![TextColumn::with_capacity(rows.len()); names.len()];
        for (r, row) in rows.iter().enumerate() {
            if row.len() != names.len() {
                return Err(Error::RaggedRow {
                    source_name: source.to_string(),
                    line: r as u64 + 2,
                    found: row.len(),
                    expected: names.len(),
                });
            }
            for (c, cell) in row.iter().enumerate() {
                columns[c].push(cell.as_ref());
            }
        }
        let names = names
            .iter()
            .map(|n| n.as_ref().trim().to_string())
            .collect();
        Table::new(source, names, columns)
    }

    /// Number of data rows.
    pub fn rows(&self) -> usize {
        match &self.rows {
            Some(rows) => rows.len(),
            None => self.columns.first().map_or(0, TextColumn::len),
        }
    }

    /// Bytes held by the columns this table shares (all their rows) and its row selection.
    pub fn bytes(&self) -> usize {
        let columns: usize = self.columns.iter().map(TextColumn::bytes).sum();
        let lines = self.lines.as_ref().map_or(0, |l| 8 * l.len());
        columns + lines + self.rows.as_ref().map_or(0, |r| 4 * r.len())
    }

    /// The column names, in file order (a long one shortened: [`short_name`]).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Column `c` (panics when out of range, like slice indexing).
    pub fn column(&self, c: usize) -> ColumnRef<'_> {
        ColumnRef {
            data: &self.columns[c],
            rows: self.rows.as_deref(),
        }
    }

    /// The index of the column called `name` (a long name matches the column whose name
    /// is held shortened: [`short_name`]).
    pub fn position(&self, name: &str) -> Option<usize> {
        let name = short_name(name);
        self.names.iter().position(|n| *n == name)
    }

    /// The index of the column called `name`, or an error naming the columns there are.
    pub fn require(&self, name: &str) -> Result<usize> {
        self.position(name).ok_or_else(|| Error::UnknownColumn {
            source_name: self.source.clone(),
            name: short_name(name).into_owned(),
            available: self.names.clone(),
        })
    }

    /// Errors, naming its line, on the first cell of the column `name` that is a number too
    /// large for a 32-bit float, such as `1e39` (a numeric encoding would read it as
    /// missing); a table without the column passes.
    pub fn refuse_too_large(&self, name: &str) -> Result<()> {
        let Some(c) = self.position(name) else {
            return Ok(());
        };
        let column = self.column(c);
        // A number kept as a number is an `f32` already: only texts can be too large.
        for (r, cell) in column.stored().enumerate() {
            let super::column::Stored::Code(code) = cell else {
                continue;
            };
            let text = column.data().code_text(code);
            if super::number_f32(text).is_none() && super::too_large_for_f32(text) {
                return Err(Error::NumberTooLarge {
                    source_name: self.source.clone(),
                    place: self.place(r),
                    column: name.to_string(),
                    value: text.trim().to_string(),
                });
            }
        }
        Ok(())
    }

    /// The error for cell `c` of row `r` when it is not read as an `f32`:
    /// [`Error::NumberTooLarge`] for a number beyond the `f32` range, else
    /// [`Error::BadNumber`], naming the source, the row's place, the column and the text.
    pub fn not_a_number(&self, r: usize, c: usize) -> Error {
        let value = self
            .column(c)
            .cell(r)
            .text(&mut String::new())
            .trim()
            .to_string();
        let (source_name, place) = (self.source.clone(), self.place(r));
        let column = self.names[c].clone();
        if super::too_large_for_f32(&value) {
            Error::NumberTooLarge {
                source_name,
                place,
                column,
                value,
            }
        } else {
            Error::BadNumber {
                source_name,
                place,
                column,
                value,
            }
        }
    }

    /// The column called `name`, if there is one.
    pub fn column_named(&self, name: &str) -> Option<ColumnRef<'_>> {
        self.position(name).map(|c| self.column(c))
    }

    /// A table of the given rows, in the given order (indices must be in range). It shares
    /// this table's columns: only the indices are new.
    pub fn select_rows(&self, indices: &[usize]) -> Result<Table> {
        let rows = self.rows();
        if let Some(&r) = indices.iter().find(|&&r| r >= rows) {
            return Err(Error::invalid(format!(
                "row {r} is out of range for `{}` of {rows} rows",
                self.source
            )));
        }
        let stored = self.columns.first().map_or(0, TextColumn::len);
        if u32::try_from(stored).is_err() {
            return Err(Error::invalid(format!(
                "`{}` has {stored} rows, more than a selection of its rows can name",
                self.source
            )));
        }
        let selected: Arc<[u32]> = match &self.rows {
            Some(mine) => indices.iter().map(|&r| mine[r]).collect(),
            None => indices.iter().map(|&r| r as u32).collect(),
        };
        Ok(Table {
            source: self.source.clone(),
            names: self.names.clone(),
            columns: Arc::clone(&self.columns),
            lines: self.lines.clone(),
            unlined: self.unlined,
            rows: Some(selected),
        })
    }

    /// Appends the rows of `other`, whose columns must have the same names in the same order.
    pub fn append(&mut self, other: &Table) -> Result<()> {
        if other.names != self.names {
            return Err(Error::invalid(format!(
                "`{}` and `{}` have different columns",
                self.source, other.source
            )));
        }
        let mut buf = String::new();
        let mut columns = Vec::with_capacity(self.names.len());
        for c in 0..self.names.len() {
            let mut column = TextColumn::with_capacity(self.rows() + other.rows());
            for cell in self.column(c).cells().chain(other.column(c).cells()) {
                column.push(cell.text(&mut buf));
            }
            columns.push(column);
        }
        let unlined = self.unlined && other.unlined;
        let number = |p: RowPlace| match p {
            RowPlace::Line(n) | RowPlace::Row(n) => n,
        };
        let lines: Vec<u64> = (0..self.rows())
            .map(|r| number(self.place(r)))
            .chain((0..other.rows()).map(|r| number(other.place(r))))
            .collect();
        self.columns = Arc::new(columns);
        self.rows = None;
        self.lines = None;
        self.unlined = false;
        let me = std::mem::replace(self, Table::new("", Vec::new(), Vec::new())?);
        *self = me.with_lines(lines)?;
        self.unlined = unlined;
        Ok(())
    }
}

/// Errors on an empty or duplicate column name.
fn check_names(source: &str, names: &[String]) -> Result<()> {
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(Error::invalid(format!(
                "`{source}`: column {} of the header has no name",
                i + 1
            )));
        }
        if let Some(j) = names[..i].iter().position(|n| n == name) {
            return Err(Error::DuplicateColumn {
                source_name: source.to_string(),
                name: name.clone(),
                first: j + 1,
                second: i + 1,
            });
        }
    }
    Ok(())
}
