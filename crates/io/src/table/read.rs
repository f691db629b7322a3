//! Reading delimited text into a [`Table`]: a UTF-8 byte-order mark is skipped and UTF-16
//! decoded, the delimiter (`,`, `;`, tab or `|`) is sniffed from the first lines or named by
//! Excel's `sep=` line, quoted fields may hold delimiters and line breaks, and every line
//! must end the same way and hold as many fields as the header (or one more, empty).

use std::path::Path;

use super::text::{Table, TextColumn};
use crate::error::{Error, Result, read_file};

/// The delimiters [`sniff_delimiter`] chooses from, in order of preference on a tie.
pub const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

/// Lines looked at to choose the delimiter.
const SNIFF_LINES: usize = 50;

/// Reads a whole file (a missing file is [`Error::FileNotFound`]).
pub fn read_bytes(path: impl AsRef<Path>) -> Result<Vec<u8>> {
    read_file(path.as_ref())
}

/// What reading a delimited text file into a [`Table`] holds, estimated before reading it
/// from its size and its first lines ([`estimate_text_table`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableEstimate {
    /// The file's size.
    pub file_bytes: u64,
    /// About how many rows it holds (its size over the mean size of its first rows).
    pub rows: u64,
    /// Columns of its header.
    pub columns: u64,
}

impl TableEstimate {
    /// Bytes held at the peak of reading: the file's bytes, the cells' text (no more than
    /// the file) and 8 bytes of offset a cell.
    pub fn bytes(&self) -> u64 {
        2 * self.file_bytes + 8 * self.rows * self.columns
    }

    /// About how many rows of this file fit in `budget` bytes.
    pub fn rows_within(&self, budget: u64) -> u64 {
        let per_row = 2 * self.file_bytes / self.rows.max(1) + 8 * self.columns;
        budget / per_row.max(1)
    }
}

/// Bytes read from the head of a file by [`estimate_text_table`].
const ESTIMATE_SAMPLE: u64 = 64 * 1024;

/// Estimates what reading the delimited text file at `path` holds, from its size and its
/// first 64 KiB, without reading the rest; `None` when the file cannot be opened (reading it
/// then says why).
pub fn estimate_text_table(path: impl AsRef<Path>) -> Option<TableEstimate> {
    use std::io::Read;
    let file = std::fs::File::open(path.as_ref()).ok()?;
    let file_bytes = file.metadata().ok()?.len();
    let mut sample = Vec::new();
    file.take(ESTIMATE_SAMPLE).read_to_end(&mut sample).ok()?;
    let lines = first_lines(&sample, usize::MAX);
    let header = lines.first()?;
    let columns = count_outside_quotes(header, sniff_delimiter(&sample)) as u64 + 1;
    // The last line of a partial sample may be cut short.
    let whole = if file_bytes > sample.len() as u64 {
        lines.len().saturating_sub(1)
    } else {
        lines.len()
    };
    let body = &lines[1.min(whole)..whole];
    let body_bytes: u64 = body.iter().map(|l| l.len() as u64 + 1).sum();
    let rows = match body.len() as u64 {
        0 => 1,
        n => (file_bytes.saturating_sub(header.len() as u64 + 1) * n).div_ceil(body_bytes.max(1)),
    };
    Some(TableEstimate {
        file_bytes,
        rows,
        columns,
    })
}

/// The delimiter a file's name gives: a tab for a `.tsv` file (any case); `None` for any
/// other name, whose delimiter is sniffed or chosen.
pub fn path_delimiter(path: &Path) -> Option<u8> {
    let tsv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
    tsv.then_some(b'\t')
}

/// Reads a delimited text file into a [`Table`]; see [`read_table`].
pub fn load_table(path: impl AsRef<Path>, delimiter: Option<u8>) -> Result<Table> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    read_table(&bytes, &path.display().to_string(), delimiter)
}

/// Reads delimited text with a header row into a [`Table`] of text cells.
///
/// `delimiter` `None` sniffs it ([`sniff_delimiter`]), unless the first line is Excel's
/// `sep=X`, which names it. UTF-16 text with a byte-order mark (Excel's "Unicode Text") is
/// decoded; a UTF-8 byte-order mark is skipped. A field beyond the header's that is empty on
/// every line (a delimiter ending each line) is dropped, and so are last columns with no
/// name and no cell. Each row keeps its line in the file ([`Table::place`]). Errors, each naming
/// `source_name` and, where one line is at fault, its number: bytes that are not text (named:
/// compressed, an image, Parquet, Excel, binary), an empty file, a header and no rows, a
/// duplicate column name, a row with another number of fields than the header, mixed line
/// endings, bad quoting or invalid UTF-8. A column whose header is empty is called `column_N`
/// (its 1-based position).
pub fn read_table(bytes: &[u8], source_name: &str, delimiter: Option<u8>) -> Result<Table> {
    let text = super::sniff::text_bytes(bytes, source_name)?;
    let bytes: &[u8] = &text;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::EmptyFile {
            source_name: source_name.to_string(),
        });
    }
    check_line_endings(bytes, source_name)?;
    let (body, named, skipped) = match excel_separator(bytes) {
        Some((d, rest)) => (rest, Some(d), 1),
        None => (bytes, None, 0),
    };
    let delimiter = delimiter.or(named).unwrap_or_else(|| sniff_delimiter(body));
    let (header, rows) = match super::plain::unquoted(body, delimiter, skipped) {
        Some(records) => read_unquoted(records, source_name)?,
        None => read_quoted(body, delimiter, skipped, source_name)?,
    };
    let mut names: Vec<String> = header
        .iter()
        .enumerate()
        .map(|(i, h)| match h.trim() {
            "" => format!("column_{}", i + 1),
            name => name.to_string(),
        })
        .collect();
    let Rows {
        mut columns, lines, ..
    } = rows;
    // Trailing columns with no name and no cell (commas ending every line) are dropped.
    while names.len() > 1
        && header
            .get(names.len() - 1)
            .is_some_and(|h| h.trim().is_empty())
        && columns.last().is_some_and(all_empty)
    {
        names.pop();
        columns.pop();
    }
    columns.iter_mut().for_each(TextColumn::shrink_to_fit);
    let table = Table::new(source_name, names, columns)?;
    if table.rows() == 0 {
        return Err(Error::NoDataRows {
            source_name: source_name.to_string(),
            dropped: 0,
        });
    }
    match lines.lines {
        Some(lines) => table.with_lines(lines),
        None => Ok(table),
    }
}

/// Reads text without quotes ([`super::plain`]): the header's fields and the rows.
fn read_unquoted<'a>(
    mut records: super::plain::Unquoted<'a>,
    source_name: &'a str,
) -> Result<(Vec<String>, Rows<'a>)> {
    let mut fields: Vec<&str> = Vec::new();
    records.next_into(&mut fields);
    let header: Vec<String> = fields.iter().map(|h| h.to_string()).collect();
    let mut rows = Rows::new(header.len(), source_name);
    while let Some(line) = records.next_into(&mut fields) {
        rows.add(&fields, line)?;
    }
    Ok((header, rows))
}

/// Reads delimited text with the `csv` reader (quoted fields): the header's fields and the
/// rows.
fn read_quoted<'a>(
    body: &[u8],
    delimiter: u8,
    skipped: u64,
    source_name: &'a str,
) -> Result<(Vec<String>, Rows<'a>)> {
    let fail = |e| offset_line(csv_error(e, source_name), skipped);
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(true)
        .from_reader(body);
    let header: Vec<String> = reader
        .headers()
        .map_err(fail)?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Rows::new(header.len(), source_name);
    let mut lines = LineCounter::new(body, skipped);
    let mut record = ::csv::StringRecord::new();
    let mut spare: Vec<&str> = Vec::new();
    while reader.read_record(&mut record).map_err(fail)? {
        let line = lines.line_at(record.position().map_or(0, |p| p.byte() as usize));
        let mut fields = emptied(std::mem::take(&mut spare));
        fields.extend(record.iter());
        rows.add(&fields, line)?;
        spare = emptied(fields);
    }
    Ok((header, rows))
}

/// The vector emptied, its room kept for texts of another lifetime (collected in place).
fn emptied<'b>(mut v: Vec<&str>) -> Vec<&'b str> {
    v.clear();
    v.into_iter().map(|_| "").collect()
}

/// The rows read so far, column by column, with the file line of each.
struct Rows<'a> {
    columns: Vec<TextColumn>,
    lines: LineLog,
    source_name: &'a str,
}

impl<'a> Rows<'a> {
    /// No rows yet, of `width` columns.
    fn new(width: usize, source_name: &'a str) -> Self {
        Rows {
            columns: vec![TextColumn::default(); width],
            lines: LineLog::default(),
            source_name,
        }
    }

    /// Adds the record read on file line `line`. A blank line reads as one empty field: it
    /// is skipped rather than called ragged.
    fn add(&mut self, fields: &[&str], line: u64) -> Result<()> {
        let width = self.columns.len();
        if fields.len() == 1 && super::cells::trim(fields[0]).is_empty() && width > 1 {
            return Ok(());
        }
        check_width(fields, width, line, self.source_name)?;
        for (column, cell) in self.columns.iter_mut().zip(fields) {
            column.push(cell);
        }
        self.lines.push(line);
        Ok(())
    }
}

/// The file line of each row read, kept only once some row is not one line after the one
/// before (a quoted line break, a blank line, a `sep=` line).
#[derive(Default)]
struct LineLog {
    rows: u64,
    lines: Option<Vec<u64>>,
}

impl LineLog {
    fn push(&mut self, line: u64) {
        if self.lines.is_none() && line != self.rows + 2 {
            self.lines = Some((0..self.rows).map(|r| r + 2).collect());
        }
        if let Some(lines) = &mut self.lines {
            lines.push(line);
        }
        self.rows += 1;
    }
}

/// The file line at a byte of the text the `csv` reader reads, counted from the byte asked
/// before.
struct LineCounter<'a> {
    /// The text read.
    text: &'a [u8],
    /// The byte that ends lines (`\n`, or `\r` in a file whose lines end with CR alone).
    end: u8,
    /// Bytes of `text` whose line breaks are counted, and the line after them.
    counted: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    /// Counts the lines of `text`, which follows `skipped` lines of the file.
    fn new(text: &'a [u8], skipped: u64) -> Self {
        let end = if text.contains(&b'\n') { b'\n' } else { b'\r' };
        LineCounter {
            text,
            end,
            counted: 0,
            line: 1 + skipped,
        }
    }

    /// The file line of the record the reader started reading at byte `start` (it starts
    /// reading at the line breaks before the record: blank lines, the LF of a CRLF).
    fn line_at(&mut self, start: usize) -> u64 {
        let text = self.text;
        let start = start.min(text.len());
        let skip = text[start..]
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        let start = (start + skip).max(self.counted);
        let end = self.end;
        self.line += text[self.counted..start]
            .iter()
            .filter(|&&b| b == end)
            .count() as u64;
        self.counted = start;
        self.line
    }
}

/// Whether every cell of a column is empty.
fn all_empty(column: &TextColumn) -> bool {
    (0..column.len()).all(|r| column.get(r).trim().is_empty())
}

/// Errors on a row with another number of fields than the header's `width`; one field more
/// than the header, empty (a delimiter ending the line), is let through and not read.
fn check_width(fields: &[&str], width: usize, line: u64, source_name: &str) -> Result<()> {
    let trailing = fields.len() == width + 1 && fields[width].trim().is_empty();
    if fields.len() == width || trailing {
        return Ok(());
    }
    Err(Error::RaggedRow {
        source_name: source_name.to_string(),
        line,
        found: fields.len(),
        expected: width,
    })
}

/// Excel's first line `sep=X` (any case): the delimiter it names and the text after it.
fn excel_separator(bytes: &[u8]) -> Option<(u8, &[u8])> {
    let head = bytes.get(..4)?;
    if !head.eq_ignore_ascii_case(b"sep=") {
        return None;
    }
    let d = *bytes.get(4)?;
    let rest = &bytes[5..];
    let rest = rest
        .strip_prefix(b"\r\n")
        .or_else(|| rest.strip_prefix(b"\n"))
        .or_else(|| rest.strip_prefix(b"\r"))?;
    (d != b'"' && d.is_ascii() && !d.is_ascii_alphanumeric()).then_some((d, rest))
}

/// The error with its line moved down by `lines` (lines skipped before the reader's text).
fn offset_line(mut e: Error, lines: u64) -> Error {
    if let Error::RaggedRow { line, .. } | Error::CsvSyntax { line, .. } = &mut e {
        *line += lines;
    }
    e
}

/// Chooses the delimiter of delimited text: of `,`, `;`, tab and `|`, the one that splits the
/// first lines (outside quotes) into the same number of fields, more than one, with the most
/// fields; `,` when none does.
pub fn sniff_delimiter(bytes: &[u8]) -> u8 {
    let lines = first_lines(bytes, SNIFF_LINES);
    let mut best = (b',', 1usize);
    for d in DELIMITERS {
        let counts: Vec<usize> = lines.iter().map(|l| count_outside_quotes(l, d)).collect();
        let Some(&first) = counts.first() else {
            continue;
        };
        if first > 0 && counts.iter().all(|&c| c == first) && first + 1 > best.1 {
            best = (d, first + 1);
        }
    }
    best.0
}

/// The first `n` non-empty lines, split at line breaks outside quotes.
fn first_lines(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' | b'\r' if !quoted => {
                if i > start {
                    lines.push(&bytes[start..i]);
                }
                start = i + 1;
                if lines.len() == n {
                    return lines;
                }
            }
            _ => {}
        }
    }
    if bytes.len() > start {
        lines.push(&bytes[start..]);
    }
    lines
}

fn count_outside_quotes(line: &[u8], d: u8) -> usize {
    let mut quoted = false;
    let mut count = 0;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if b == d && !quoted {
            count += 1;
        }
    }
    count
}

/// Errors when the line breaks outside quoted fields are not all `\n`, all `\r\n` or all
/// `\r`, or when a quoted field is never closed.
fn check_line_endings(bytes: &[u8], source_name: &str) -> Result<()> {
    let mut expected: Option<&'static str> = None;
    let (mut line, mut quoted, mut i, mut opened) = (1u64, false, 0, 0u64);
    while i < bytes.len() {
        let b = bytes[i];
        let ending = match b {
            b'"' => {
                quoted = !quoted;
                opened = line;
                None
            }
            b'\r' if !quoted && bytes.get(i + 1) == Some(&b'\n') => {
                i += 1;
                Some("CRLF")
            }
            b'\r' if !quoted => Some("CR"),
            b'\n' if !quoted => Some("LF"),
            _ => None,
        };
        if let Some(found) = ending {
            match expected {
                None => expected = Some(found),
                Some(e) if e != found => {
                    return Err(Error::MixedLineEndings {
                        source_name: source_name.to_string(),
                        line,
                        found,
                        expected: e,
                    });
                }
                Some(_) => {}
            }
        }
        if b == b'\n' || b == b'\r' {
            line += 1;
        }
        i += 1;
    }
    if quoted {
        return Err(Error::CsvSyntax {
            source_name: source_name.to_string(),
            line: opened,
            message: "a quoted field opens here and is never closed".into(),
        });
    }
    Ok(())
}

/// Converts a `csv` crate error into this crate's error, keeping the line number.
fn csv_error(e: ::csv::Error, source_name: &str) -> Error {
    let line = e.position().map_or(0, ::csv::Position::line);
    match e.into_kind() {
        ::csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => Error::RaggedRow {
            source_name: source_name.to_string(),
            line: pos.map_or(line, |p| p.line()),
            found: len as usize,
            expected: expected_len as usize,
        },
        ::csv::ErrorKind::Io(err) => Error::io("read", Path::new(source_name), err),
        ::csv::ErrorKind::Utf8 { pos, err } => Error::CsvSyntax {
            source_name: source_name.to_string(),
            line: pos.map_or(line, |p| p.line()),
            message: format!("invalid UTF-8 ({err}); save the file as UTF-8"),
        },
        other => Error::CsvSyntax {
            source_name: source_name.to_string(),
            line,
            message: format!("{other:?}"),
        },
    }
}
