//! Delimited text without a quote character, split into records the way the `csv` reader
//! splits it, without its state machine: lines end at `\n`, `\r\n` or `\r` (the file's one
//! kind, checked before), blank lines are skipped, and each line's fields are the text
//! between delimiters, a last empty one included.

/// The records of delimited text that holds no quote character.
pub(super) struct Unquoted<'a> {
    lines: std::str::Split<'a, char>,
    delimiter: u8,
    /// The file line of the last line taken.
    line: u64,
}

/// The records of `body`, whose first line is file line `skipped + 1`, when it is UTF-8,
/// holds no `"` and no byte-order mark and is split by an ASCII `delimiter`; `None`
/// otherwise, for the `csv` reader to read. Its line breaks must all be of one kind.
pub(super) fn unquoted(body: &[u8], delimiter: u8, skipped: u64) -> Option<Unquoted<'_>> {
    let plain_delimiter = delimiter.is_ascii() && !matches!(delimiter, b'"' | b'\r' | b'\n');
    if !plain_delimiter || body.contains(&b'"') || body.starts_with("\u{feff}".as_bytes()) {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let end = if body.contains(&b'\n') { '\n' } else { '\r' };
    Some(Unquoted {
        lines: text.split(end),
        delimiter,
        line: skipped,
    })
}

impl<'a> Unquoted<'a> {
    /// Puts the next record's fields in `fields` and gives its file line; `None` after the
    /// last record.
    pub(super) fn next_into(&mut self, fields: &mut Vec<&'a str>) -> Option<u64> {
        loop {
            let raw = self.lines.next()?;
            self.line += 1;
            // A CRLF file split at its LFs: each line keeps its CR.
            let text = raw.strip_suffix('\r').unwrap_or(raw);
            if !text.is_empty() {
                split_fields(text, self.delimiter, fields);
                return Some(self.line);
            }
        }
    }
}

/// The text between `delimiter`s of `line` (an ASCII byte), a last empty field included,
/// into `fields`.
fn split_fields<'a>(line: &'a str, delimiter: u8, fields: &mut Vec<&'a str>) {
    fields.clear();
    fields.extend(line.split(char::from(delimiter)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(body: &str, delimiter: u8) -> Option<Vec<(u64, Vec<&str>)>> {
        let mut reader = unquoted(body.as_bytes(), delimiter, 0)?;
        let mut fields = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = reader.next_into(&mut fields) {
            out.push((line, fields.clone()));
        }
        Some(out)
    }

    #[test]
    fn lines_split_as_the_csv_reader_splits_them() {
        let expected = vec![
            (2, vec!["a", "b"]),
            (3, vec!["1", ""]),
            (5, vec![" "]),
            (6, vec!["x", "y", ""]),
        ];
        for end in ["\n", "\r\n", "\r"] {
            let body = ["", "a,b", "1,", "", " ", "x,y,", ""].join(end);
            assert_eq!(records(&body, b',').unwrap(), expected, "{end:?}");
        }
    }

    #[test]
    fn quotes_and_other_bytes_are_left_to_the_csv_reader() {
        assert!(records("a,b\n\"1\",2\n", b',').is_none());
        assert!(records("\u{feff}a,b\n1,2\n", b',').is_none());
        assert!(unquoted(b"a,b\n\xff,2\n", b',', 0).is_none());
        assert!(records("a\u{e9}b\n1\u{e9}2\n", 0xe9).is_none());
        assert_eq!(records("a;b\n1;2", b';').unwrap()[1], (2, vec!["1", "2"]));
    }
}
