//! The seed system's JSON dataset format.
//!
//! ```json
//! {"m": 4, "n": 2, "m_test": 1,
//!  "x": [0,0, 0,1, 1,0, 1,1], "y": [0,1,1,0],
//!  "x_test": [1,1], "y_test": [0]}
//! ```
//!
//! `x` holds `m*n` values row-major, `y` holds `m`, `x_test` holds `m_test*n` and `y_test` holds
//! `m_test`, or nothing: then `x_test` is a set of points to predict with no known targets.
//! `m_test`, `x_test` and `y_test` may be left out.

use std::path::Path;

use serde::Deserialize;

use super::table::{DataSplit, Dataset};
use crate::error::{Error, Result, read_file};

#[derive(Deserialize)]
struct RawJson {
    m: usize,
    n: usize,
    #[serde(default)]
    m_test: usize,
    x: Vec<f32>,
    y: Vec<f32>,
    #[serde(default)]
    x_test: Vec<f32>,
    #[serde(default)]
    y_test: Vec<f32>,
}

/// Reads a JSON dataset file; see [`parse_json`].
pub fn load_json(path: impl AsRef<Path>) -> Result<DataSplit> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    parse_json(&bytes, &path.display().to_string())
}

/// Parses the seed system's JSON format, checking that every array has the size it declares.
///
/// `source_name` is used in error messages.
pub fn parse_json(text: &[u8], source_name: &str) -> Result<DataSplit> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::EmptyFile {
            source_name: source_name.to_string(),
        });
    }
    let raw: RawJson = serde_json::from_slice(text).map_err(|e| Error::Json {
        source_name: source_name.to_string(),
        message: e.to_string(),
    })?;
    let json_err = |message: String| Error::Json {
        source_name: source_name.to_string(),
        message,
    };
    if raw.m == 0 {
        return Err(json_err("`m` (training rows) is 0".into()));
    }
    if raw.n == 0 {
        return Err(json_err("`n` (features) is 0".into()));
    }
    let size = |field: &'static str, found: usize, a: (&str, usize), b: Option<(&str, usize)>| {
        let (expected, formula) = match b {
            Some(b) => (
                a.1.checked_mul(b.1),
                format!("{}*{} = {}*{}", a.0, b.0, a.1, b.1),
            ),
            None => (Some(a.1), a.0.to_string()),
        };
        match expected {
            Some(e) if e == found => Ok(()),
            Some(e) => Err(Error::JsonSize {
                source_name: source_name.to_string(),
                field,
                found,
                expected: e,
                expected_formula: formula,
            }),
            None => Err(json_err(format!("{formula} overflows"))),
        }
    };
    size("x", raw.x.len(), ("m", raw.m), Some(("n", raw.n)))?;
    size("y", raw.y.len(), ("m", raw.m), None)?;
    size(
        "x_test",
        raw.x_test.len(),
        ("m_test", raw.m_test),
        Some(("n", raw.n)),
    )?;
    if !raw.y_test.is_empty() {
        size("y_test", raw.y_test.len(), ("m_test", raw.m_test), None)?;
    }
    for (field, values) in [
        ("x", &raw.x),
        ("y", &raw.y),
        ("x_test", &raw.x_test),
        ("y_test", &raw.y_test),
    ] {
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(json_err(format!(
                "`{field}`[{i}] is too large for a 32-bit float"
            )));
        }
    }
    let names: Vec<String> = (0..raw.n).map(|i| format!("x{i}")).collect();
    let train = Dataset::new(raw.x, raw.y, raw.m, names.clone(), Vec::new())?;
    let (test, unlabeled_x) = if raw.m_test == 0 {
        (None, None)
    } else if raw.y_test.is_empty() {
        (None, Some(raw.x_test))
    } else {
        (
            Some(Dataset::new(
                raw.x_test,
                raw.y_test,
                raw.m_test,
                names,
                Vec::new(),
            )?),
            None,
        )
    };
    Ok(DataSplit {
        train,
        test,
        unlabeled_x,
    })
}
