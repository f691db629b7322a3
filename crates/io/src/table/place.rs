//! Where a row is in its file, for messages: a line of a text file, or the position of a
//! row in a file without lines (a Parquet row group's row, a JSON array's record).

/// Where a row is in its file (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowPlace {
    /// A line of a text file (the header is line 1).
    Line(u64),
    /// The n-th row of a file without lines (the first is row 1).
    Row(u64),
}

impl RowPlace {
    /// The line of a text file's row (`None`: a row of a file without lines).
    pub fn line(self) -> Option<u64> {
        match self {
            RowPlace::Line(n) => Some(n),
            RowPlace::Row(_) => None,
        }
    }
}

impl std::fmt::Display for RowPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowPlace::Line(n) => write!(f, "line {n}"),
            RowPlace::Row(n) => write!(f, "row {n}"),
        }
    }
}
