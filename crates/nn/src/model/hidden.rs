//! [`HiddenLayers`]: the one syntax for network shapes, `64,64`, `64x2`, or a mix such as
//! `128x2,64`.

use std::fmt;
use std::str::FromStr;

/// The most hidden layers a network may have.
pub const MAX_LAYERS: usize = 64;

/// Hidden layer widths, first to last, written `64,64`, `64x2` or mixed (`128x2,64`).
///
/// ```
/// use nn::HiddenLayers;
/// let h: HiddenLayers = "128x2,64".parse()?;
/// assert_eq!(h.widths(), [128, 128, 64]);
/// assert_eq!(h.to_string(), "128x2,64");
/// # Ok::<(), nn::model::hidden::HiddenSpecError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenLayers(pub Vec<usize>);

impl HiddenLayers {
    /// The widths.
    pub fn widths(&self) -> &[usize] {
        &self.0
    }
}

/// What a hidden-layer spec may look like, for error messages.
pub const USAGE: &str = "expected widths such as 64,64 or WIDTHxDEPTH such as 64x2";

/// Why a hidden-layer spec is refused: one line with the spec, the bad item and the
/// accepted forms ([`USAGE`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{spec:?}: {reason}; {USAGE}")]
pub struct HiddenSpecError {
    /// The spec as given.
    spec: String,
    /// What is wrong with it.
    reason: String,
}

impl FromStr for HiddenLayers {
    type Err = HiddenSpecError;

    fn from_str(text: &str) -> Result<Self, HiddenSpecError> {
        parse_hidden(text).map_err(|reason| HiddenSpecError {
            spec: text.to_string(),
            reason,
        })
    }
}

/// Parses comma-separated items, each a width `W` or `WxD` (D layers of width W).
fn parse_hidden(text: &str) -> Result<HiddenLayers, String> {
    let mut widths = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let (width, depth) = match item.split_once(['x', 'X']) {
            Some((w, d)) => (w.trim(), d.trim()),
            None => (item, "1"),
        };
        let number = |s: &str, what: &str| -> Result<usize, String> {
            match s.parse::<usize>() {
                Ok(0) => Err(format!("{what} must be at least 1")),
                Ok(n) => Ok(n),
                Err(_) => Err(format!("{item:?} is not a layer size")),
            }
        };
        if item.is_empty() {
            return Err("a layer size is empty".into());
        }
        let (w, d) = (number(width, "a width")?, number(depth, "a depth")?);
        if d > MAX_LAYERS || widths.len() + d > MAX_LAYERS {
            return Err(format!("at most {MAX_LAYERS} hidden layers"));
        }
        widths.extend(std::iter::repeat_n(w, d));
    }
    Ok(HiddenLayers(widths))
}

impl fmt::Display for HiddenLayers {
    /// Runs of equal widths as `WxD`, e.g. `[64, 64, 32]` as `64x2,32`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for run in self.0.chunk_by(|a, b| a == b) {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            match run.len() {
                1 => write!(f, "{}", run[0])?,
                n => write!(f, "{}x{n}", run[0])?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_and_mixtures() {
        assert_eq!(parse_hidden("64,64").unwrap().0, vec![64, 64]);
        assert_eq!(parse_hidden("64x2").unwrap().0, vec![64, 64]);
        assert_eq!(parse_hidden("64X2").unwrap().0, vec![64, 64]);
        assert_eq!(parse_hidden(" 128x2, 32 ").unwrap().0, vec![128, 128, 32]);
        assert_eq!(parse_hidden("7").unwrap().0, vec![7]);
    }

    #[test]
    fn display_round_trips() {
        for text in ["64x2", "128x2,32", "7", "8,16,8"] {
            let h = parse_hidden(text).unwrap();
            assert_eq!(h.to_string(), text);
            assert_eq!(parse_hidden(&h.to_string()).unwrap(), h);
        }
    }

    #[test]
    fn errors_name_the_bad_item() {
        let e = "64,0x3".parse::<HiddenLayers>().unwrap_err().to_string();
        assert!(e.contains("at least 1"), "{e}");
        let e = "64,ab".parse::<HiddenLayers>().unwrap_err().to_string();
        assert!(e.contains("\"ab\" is not a layer size"), "{e}");
        let e = "0x3".parse::<HiddenLayers>().unwrap_err().to_string();
        assert!(
            e.starts_with("\"0x3\": ") && e.ends_with(USAGE) && !e.contains('\n'),
            "the spec, the reason and the forms on one line: {e}"
        );
    }

    #[test]
    fn bad_shapes_are_refused() {
        for text in [
            "", "64,", "0", "64x0", "x2", "64x", "a,b", "64x2x2", "-1", "64x65",
        ] {
            assert!(parse_hidden(text).is_err(), "{text:?} was accepted");
        }
        assert!(parse_hidden(&vec!["8"; 65].join(",")).is_err());
        assert!(parse_hidden(&vec!["8"; 64].join(",")).is_ok());
    }
}
