//! Tables written as JSON by pandas and databases: records (`[{"a": 1, "b": "x"}, ...]`,
//! pandas' `orient="records"`) and JSON lines (one `{...}` a line, pandas' `lines=True`),
//! read into a [`Table`] of text cells like a CSV file's.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::text::{Table, TextColumn};
use crate::error::{Error, Result};

/// Whether JSON text is the seed system's dataset format rather than a table of records:
/// its first value an object with an `m` field, or with an `n` field and a list under `x`
/// or `x_test` (rows to predict, `{"n": 4, "x": [...]}`, need no `m`; a table's cell is
/// never a list).
pub fn is_dataset_json(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        m: Option<IgnoredAny>,
        n: Option<IgnoredAny>,
        x: Option<Vec<IgnoredAny>>,
        x_test: Option<Vec<IgnoredAny>>,
    }
    // A struct also reads from an array (its fields by position): only an object is probed.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return false;
    }
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Probe>();
    match values.next() {
        Some(Ok(p)) => p.m.is_some() || (p.n.is_some() && (p.x.is_some() || p.x_test.is_some())),
        _ => false,
    }
}

/// Reads JSON records or JSON lines into a [`Table`]: the columns are the keys in the order
/// they first appear, a key a record lacks or a `null` is a missing cell, numbers and
/// booleans are written as text (`true`/`false`); a JSON line's row keeps its line in the
/// file ([`Table::place`]). Errors naming `source_name` and the formats read when the text is
/// neither, and on a nested value (a list or an object in a cell).
pub fn read_json_table(bytes: &[u8], source_name: &str) -> Result<Table> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let records = match start.map(|i| bytes[i]) {
        Some(b'[') => serde_json::from_slice::<Vec<Record>>(bytes)
            .map(|r| r.into_iter().map(|r| (0, r)).collect())
            .map_err(|e| refuse(source_name, &e.to_string()))?,
        Some(b'{') => json_lines(bytes, source_name)?,
        Some(_) => return Err(refuse(source_name, "it starts with neither `[` nor `{`")),
        None => {
            return Err(Error::EmptyFile {
                source_name: source_name.to_string(),
            });
        }
    };
    table_of(records, source_name)
}

/// Each line's object, with its line in the file.
fn json_lines(bytes: &[u8], source_name: &str) -> Result<Vec<(u64, Record)>> {
    let mut out = Vec::new();
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Record>();
    let mut line = 1u64;
    let mut counted = 0usize;
    loop {
        let before = values.byte_offset();
        let Some(next) = values.next() else { break };
        let start = before
            + bytes[before..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        line += bytes[counted..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        counted = start;
        match next {
            Ok(record) => out.push((line, record)),
            Err(e) => {
                return Err(refuse(source_name, &format!("line {line}: {e}")));
            }
        }
    }
    Ok(out)
}

fn refuse(source_name: &str, message: &str) -> Error {
    Error::JsonTable {
        source_name: source_name.to_string(),
        message: message.to_string(),
    }
}

/// The cells of records as a table.
fn table_of(records: Vec<(u64, Record)>, source_name: &str) -> Result<Table> {
    let mut names: Vec<String> = Vec::new();
    let mut columns: Vec<TextColumn> = Vec::new();
    let mut cell = String::new();
    for (r, (_, record)) in records.iter().enumerate() {
        let mut seen = vec![false; names.len()];
        for (key, value) in &record.0 {
            let c = match names.iter().position(|n| n == key) {
                Some(c) => c,
                None => {
                    names.push(key.clone());
                    let mut column = TextColumn::with_capacity(records.len());
                    (0..r).for_each(|_| column.push(""));
                    columns.push(column);
                    seen.push(false);
                    names.len() - 1
                }
            };
            if seen[c] {
                continue;
            }
            seen[c] = true;
            cell_text(value, &mut cell).map_err(|kind| {
                refuse(
                    source_name,
                    &format!(
                        "record {} holds {kind} under `{key}`, which tables do not take",
                        r + 1
                    ),
                )
            })?;
            columns[c].push(&cell);
        }
        for (c, _) in seen.iter().enumerate().filter(|(_, s)| !**s) {
            columns[c].push("");
        }
    }
    if names.is_empty() {
        return Err(Error::NoDataRows {
            source_name: source_name.to_string(),
            dropped: 0,
        });
    }
    columns.iter_mut().for_each(TextColumn::shrink_to_fit);
    let table = Table::new(source_name, names, columns)?;
    if records.first().is_some_and(|(line, _)| *line > 0) {
        return table.with_lines(records.iter().map(|(l, _)| *l).collect());
    }
    Ok(table.without_lines())
}

/// One value as a cell; `Err` names a kind tables do not take.
fn cell_text(value: &Value, out: &mut String) -> std::result::Result<(), &'static str> {
    out.clear();
    match value {
        Value::Null => {}
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(s),
        Value::Array(_) => return Err("a list"),
        Value::Object(_) => return Err("an object"),
    }
    Ok(())
}

/// A JSON object's keys and values in the order written.
struct Record(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Record;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of column names and values")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Record, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    fields.push(entry);
                }
                Ok(Record(fields))
            }
        }
        d.deserialize_map(Fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::RowPlace;

    #[test]
    fn records_and_lines_read_alike() {
        let records = br#"[{"b": 1.5, "a": "x"}, {"a": null, "b": 2, "c": true}]"#;
        let lines = b"{\"b\": 1.5, \"a\": \"x\"}\n\n{\"a\": null, \"b\": 2, \"c\": true}\n";
        for bytes in [&records[..], &lines[..]] {
            let t = read_json_table(bytes, "t.json").unwrap();
            assert_eq!(t.names(), ["b", "a", "c"]);
            let cells: Vec<&str> = t.column(2).iter().collect();
            assert_eq!(cells, ["", "true"]);
            assert_eq!(t.column(0).get(0), "1.5");
            assert!(t.column(1).cell(1).is_missing());
        }
        let t = read_json_table(lines, "t.jsonl").unwrap();
        assert_eq!(
            (t.place(0), t.place(1)),
            (RowPlace::Line(1), RowPlace::Line(3))
        );
        assert!(!is_dataset_json(lines));
        assert!(is_dataset_json(br#"{"m": 1, "n": 1, "x": [1], "y": [2]}"#));
        assert!(is_dataset_json(br#"{"n": 2, "x": [1, 2]}"#));
        assert!(is_dataset_json(br#"{"n": 2, "x_test": [1, 2]}"#));
        assert!(!is_dataset_json(
            b"{\"n\": 2, \"x\": 3}\n{\"n\": 1, \"x\": 4}\n"
        ));
    }

    #[test]
    fn nested_values_and_other_json_are_refused() {
        let e = read_json_table(br#"[{"a": [1, 2]}]"#, "t.json").unwrap_err();
        assert!(e.to_string().contains("a list under `a`"), "{e}");
        let e = read_json_table(b"\"text\"", "t.json").unwrap_err();
        assert!(e.to_string().contains("records"), "{e}");
    }
}
