//! `--hidden`: the library's syntax for network shapes ([`nn::HiddenLayers`]), with the
//! command line's error line.

pub use nn::HiddenLayers as Hidden;
use nn::model::hidden::USAGE;

/// Parses the value of `--hidden`; the error is one line naming the option, the value and
/// the accepted forms.
pub fn hidden_arg(text: &str) -> anyhow::Result<Hidden> {
    text.parse()
        .map_err(|e| anyhow::anyhow!("--hidden {text:?}: {e}; {USAGE}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_value_and_the_forms() {
        let e = hidden_arg("0x3").unwrap_err().to_string();
        assert!(
            e.contains("\"0x3\"") && e.contains("WIDTHxDEPTH") && e.contains("at least 1"),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}
