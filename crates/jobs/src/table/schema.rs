//! [`SchemaReport`]: what a table job made of each column, as `schema.json` holds it.

use io::table::{ColumnInfo, Preprocessor};
use serde::Serialize;

/// One column of a table: its inferred type, gaps, distinct values and encoding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaColumn {
    /// The column's name.
    pub name: String,
    /// Its type (`number`, `category`, `yes/no`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Rows of the table it was typed on (the whole file, before any split).
    pub rows: usize,
    /// Those rows with a missing cell (or a cell read as missing).
    pub missing: usize,
    /// Distinct values in those rows.
    pub distinct: usize,
    /// How it is encoded (or why it is ignored).
    pub encoding: String,
    /// The encoded columns it gives.
    pub outputs: Vec<String>,
}

impl SchemaColumn {
    /// The share of missing cells, in percent.
    pub fn missing_percent(&self) -> f64 {
        self.missing as f64 / self.rows.max(1) as f64 * 100.0
    }
}

/// The columns of a table job and the width of their encoding (`schema.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaReport {
    /// The target column.
    pub target: String,
    /// Every column but the target.
    pub columns: Vec<SchemaColumn>,
    /// Encoded features in all.
    pub encoded_width: usize,
}

impl SchemaReport {
    /// The report of `schema` encoded by `encoding`.
    pub fn new(schema: &[ColumnInfo], encoding: &Preprocessor, target: &str) -> Self {
        let columns = schema
            .iter()
            .map(|info| {
                let encoder = encoding.columns.iter().find(|e| e.column() == info.name);
                let shown = match encoder {
                    Some(e) => format!("{}{}", e.describe(), note(&info.note)),
                    None => format!("ignored{}", note(&info.note)),
                };
                SchemaColumn {
                    name: info.name.clone(),
                    kind: info.kind.to_string(),
                    rows: info.rows,
                    missing: info.missing,
                    distinct: info.distinct,
                    encoding: shown,
                    outputs: encoder.map(|e| e.output_names()).unwrap_or_default(),
                }
            })
            .collect();
        SchemaReport {
            target: target.to_string(),
            columns,
            encoded_width: encoding.width(),
        }
    }
}

impl SchemaReport {
    /// The same columns, described by `old`, with `encoding`'s descriptions and outputs
    /// (the notes kept).
    pub fn reencoded(&self, old: &Preprocessor, encoding: &Preprocessor) -> Self {
        let mut out = self.clone();
        let find = |p: &'_ Preprocessor, name: &str| {
            p.columns
                .iter()
                .find(|e| e.column() == name)
                .map(|e| e.describe())
        };
        for column in &mut out.columns {
            let Some(e) = encoding.columns.iter().find(|e| e.column() == column.name) else {
                continue;
            };
            if let Some(before) = find(old, &column.name) {
                let note = column.encoding.strip_prefix(&before).unwrap_or("");
                column.encoding = format!("{}{note}", e.describe());
                column.outputs = e.output_names();
            }
        }
        out.encoded_width = encoding.width();
        out
    }
}

fn note(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" ({text})")
    }
}
