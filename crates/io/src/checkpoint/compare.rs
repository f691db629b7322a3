//! Field-by-field comparison of JSON values (architectures, configurations).

use serde_json::Value;

/// The first place where two JSON values differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Path of the field, e.g. `layers[1].width`; empty when the values differ at the top.
    pub path: String,
    /// Value expected there (`None`: the field should not exist).
    pub expected: Option<Value>,
    /// Value found there (`None`: the field is missing).
    pub found: Option<Value>,
}

/// Finds the first difference between `expected` and `found`, walking objects key by key in
/// sorted order (expected keys first, then extra keys) and arrays element by element. Numbers
/// compare by value, so `1` equals `1.0`.
///
/// ```
/// use io::checkpoint::first_difference;
/// use serde_json::json;
/// let d = first_difference(&json!({"layers": [{"width": 8}, {"width": 4}]}),
///                          &json!({"layers": [{"width": 8}, {"width": 5}]})).unwrap();
/// assert_eq!(d.path, "layers[1].width");
/// assert_eq!((d.expected, d.found), (Some(json!(4)), Some(json!(5))));
/// ```
pub fn first_difference(expected: &Value, found: &Value) -> Option<Difference> {
    walk(expected, found, String::new())
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn walk(expected: &Value, found: &Value, path: String) -> Option<Difference> {
    let differ = |path: String| {
        Some(Difference {
            path,
            expected: Some(expected.clone()),
            found: Some(found.clone()),
        })
    };
    match (expected, found) {
        (Value::Object(e), Value::Object(f)) => {
            let mut keys: Vec<&String> = e.keys().collect();
            keys.sort();
            for k in keys {
                let p = join(&path, k);
                match f.get(k) {
                    Some(fv) => {
                        if let Some(d) = walk(&e[k], fv, p) {
                            return Some(d);
                        }
                    }
                    None => {
                        return Some(Difference {
                            path: p,
                            expected: Some(e[k].clone()),
                            found: None,
                        });
                    }
                }
            }
            let mut extra: Vec<&String> = f.keys().filter(|k| !e.contains_key(*k)).collect();
            extra.sort();
            extra.first().map(|k| Difference {
                path: join(&path, k),
                expected: None,
                found: Some(f[*k].clone()),
            })
        }
        (Value::Array(e), Value::Array(f)) => {
            for i in 0..e.len().max(f.len()) {
                let p = format!("{path}[{i}]");
                match (e.get(i), f.get(i)) {
                    (Some(ev), Some(fv)) => {
                        if let Some(d) = walk(ev, fv, p) {
                            return Some(d);
                        }
                    }
                    (ev, fv) => {
                        return Some(Difference {
                            path: p,
                            expected: ev.cloned(),
                            found: fv.cloned(),
                        });
                    }
                }
            }
            None
        }
        (Value::Number(a), Value::Number(b)) => {
            if a == b || (a.as_f64().is_some() && a.as_f64() == b.as_f64()) {
                None
            } else {
                differ(path)
            }
        }
        _ if expected == found => None,
        _ => differ(path),
    }
}
