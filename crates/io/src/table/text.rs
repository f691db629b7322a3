//! [`Table`]: a table kept as text, column by column, as it was read.

use crate::error::{Error, Result};

/// One column's cells as text: one buffer and the end offset of each cell, so that a column
/// of `n` cells costs its text plus 8 bytes a cell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextColumn {
    text: String,
    ends: Vec<usize>,
}

impl TextColumn {
    /// An empty column with room for `rows` cells.
    pub fn with_capacity(rows: usize) -> Self {
        TextColumn {
            text: String::new(),
            ends: Vec::with_capacity(rows),
        }
    }

    /// Appends a cell (trimmed of surrounding spaces).
    pub fn push(&mut self, cell: &str) {
        self.text.push_str(cell.trim());
        self.ends.push(self.text.len());
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Cell `r` (panics when `r >= len()`, like slice indexing).
    pub fn get(&self, r: usize) -> &str {
        let start = if r == 0 { 0 } else { self.ends[r - 1] };
        &self.text[start..self.ends[r]]
    }

    /// The cells in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|r| self.get(r))
    }
}

/// A table as people have them: a header and rows of text cells, held column by column.
/// Types are decided later ([`infer_schema`](super::infer_schema)), from the training rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Where the table came from (a file name), for messages.
    pub source: String,
    names: Vec<String>,
    columns: Vec<TextColumn>,
}

impl Table {
    /// A table from named columns of equal length; errors on a duplicate or empty name, or
    /// columns of different lengths.
    pub fn new(
        source: impl Into<String>,
        names: Vec<String>,
        columns: Vec<TextColumn>,
    ) -> Result<Self> {
        let source = source.into();
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
            columns,
        })
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
        self.columns.first().map_or(0, TextColumn::len)
    }

    /// The column names, in file order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Column `c` (panics when out of range, like slice indexing).
    pub fn column(&self, c: usize) -> &TextColumn {
        &self.columns[c]
    }

    /// The index of the column called `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The index of the column called `name`, or an error naming the columns there are.
    pub fn require(&self, name: &str) -> Result<usize> {
        self.position(name).ok_or_else(|| Error::UnknownColumn {
            source_name: self.source.clone(),
            name: name.to_string(),
            available: self.names.clone(),
        })
    }

    /// The column called `name`, if there is one.
    pub fn column_named(&self, name: &str) -> Option<&TextColumn> {
        self.position(name).map(|c| &self.columns[c])
    }

    /// A new table of the given rows, in the given order (indices must be in range).
    pub fn select_rows(&self, indices: &[usize]) -> Result<Table> {
        let rows = self.rows();
        if let Some(&r) = indices.iter().find(|&&r| r >= rows) {
            return Err(Error::invalid(format!(
                "row {r} is out of range for `{}` of {rows} rows",
                self.source
            )));
        }
        let columns = self
            .columns
            .iter()
            .map(|col| {
                let mut out = TextColumn::with_capacity(indices.len());
                indices.iter().for_each(|&r| out.push(col.get(r)));
                out
            })
            .collect();
        Ok(Table {
            source: self.source.clone(),
            names: self.names.clone(),
            columns,
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
        for (mine, theirs) in self.columns.iter_mut().zip(&other.columns) {
            theirs.iter().for_each(|cell| mine.push(cell));
        }
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
