//! Parsers of numeric options that say what a value must be ("must be positive") instead of
//! a parser's message, and accept negative values where they mean something (seeds).

/// A learning rate or other scale: a finite number above zero.
pub fn positive_f32(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err(format!("must be a positive number, got {}", shorten(s))),
        Err(_) => Err(format!("expected a positive number, got {:?}", shorten(s))),
    }
}

/// A seed: any integer. Negative seeds wrap to 64 bits as in PyTorch (`-1` is `2^64 - 1`).
pub fn seed(s: &str) -> Result<u64, String> {
    let t = s.trim();
    t.parse::<u64>()
        .or_else(|_| t.parse::<i64>().map(|v| v as u64))
        .map_err(|_| format!("expected a whole number, got {:?}", shorten(s)))
}

/// A count of at least 1 (sizes, steps, repetitions).
pub fn positive_count(s: &str) -> Result<usize, String> {
    match whole(s).map_err(|e| not_positive(s, e))? {
        0 => Err(format!("must be a positive whole number, got {s}")),
        n => usize::try_from(n).map_err(|_| format!("{} is too large", shorten(s))),
    }
}

/// Most optimizer steps a run may ask for: at ten thousand steps a second, more would take
/// over a day.
pub const MAX_STEPS: usize = 1_000_000_000;

/// Most passes over the data a run may ask for.
pub const MAX_EPOCHS: usize = 10_000_000;

/// A number of steps, from 1 to [`MAX_STEPS`].
pub fn steps(s: &str) -> Result<usize, String> {
    at_most(positive_count(s)?, MAX_STEPS, "steps", s)
}

/// A number of epochs, from 1 to [`MAX_EPOCHS`].
pub fn epochs(s: &str) -> Result<usize, String> {
    at_most(positive_count(s)?, MAX_EPOCHS, "epochs", s)
}

fn at_most(n: usize, limit: usize, what: &str, s: &str) -> Result<usize, String> {
    if n <= limit {
        return Ok(n);
    }
    Err(format!(
        "at most {} {what} (a longer run would not finish in any reasonable time), got {}",
        grouped(limit as u64),
        shorten(s)
    ))
}

/// A whole number with thousands separated: `1,000,000`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A value as quoted in a message: at most 80 characters, longer ones cut with their length.
pub fn shorten(s: &str) -> String {
    const SHOWN: usize = 60;
    let count = s.chars().count();
    if count <= 80 {
        return s.to_string();
    }
    let head: String = s.chars().take(SHOWN).collect();
    format!("{head}... ({} characters)", grouped(count as u64))
}

/// A count of at least 1, as a u64 (intervals, patience).
pub fn positive_u64(s: &str) -> Result<u64, String> {
    positive_count(s).map(|n| n as u64)
}

/// A size in pixels: at least 1.
pub fn positive_u32(s: &str) -> Result<u32, String> {
    match whole(s).map_err(|e| not_positive(s, e))? {
        0 => Err(format!("must be a positive whole number, got {s}")),
        n => u32::try_from(n).map_err(|_| format!("{} is too large", shorten(s))),
    }
}

/// Parses the value of `--hidden` ([`nn::HiddenLayers`]); the error line names the option,
/// the value and the accepted forms.
pub fn hidden_arg(text: &str) -> anyhow::Result<nn::HiddenLayers> {
    text.parse().map_err(|e| anyhow::anyhow!("--hidden {e}"))
}

/// A count where 0 means something (e.g. "only at the end").
pub fn count(s: &str) -> Result<usize, String> {
    usize::try_from(whole(s)?).map_err(|_| format!("{} is too large", shorten(s)))
}

/// "must be positive" for a negative value, else the message as it is.
fn not_positive(s: &str, message: String) -> String {
    if message.starts_with("must not be negative") {
        format!("must be a positive whole number, got {}", shorten(s))
    } else {
        message
    }
}

/// A whole number that is not negative.
fn whole(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Ok(v) = t.parse::<u64>() {
        return Ok(v);
    }
    if t.starts_with('-') && t[1..].parse::<f64>().is_ok() {
        return Err(format!("must not be negative, got {}", shorten(s)));
    }
    Err(format!("expected a whole number, got {:?}", shorten(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_with_plain_messages() {
        assert_eq!(positive_f32("0.5"), Ok(0.5));
        assert!(
            positive_f32("-1")
                .unwrap_err()
                .contains("must be a positive number")
        );
        assert!(positive_f32("0").is_err() && positive_f32("inf").is_err());
        assert_eq!(seed("7"), Ok(7));
        assert_eq!(seed("-1"), Ok(u64::MAX));
        assert!(seed("x").is_err());
        assert_eq!(positive_count("3"), Ok(3));
        assert!(positive_count("0").unwrap_err().contains("positive"));
        assert!(
            positive_count("-5")
                .unwrap_err()
                .contains("must be a positive whole number")
        );
        assert!(
            positive_u32("-5")
                .unwrap_err()
                .contains("must be a positive whole number")
        );
        assert!(
            positive_u32("5000000000")
                .unwrap_err()
                .contains("too large")
        );
        assert_eq!(count("0"), Ok(0));
        assert_eq!(steps("1000000000"), Ok(1_000_000_000));
        let e = steps("18446744073709551615").unwrap_err();
        assert!(e.starts_with("at most 1,000,000,000 steps"), "{e}");
        assert!(
            epochs("10000001")
                .unwrap_err()
                .contains("10,000,000 epochs")
        );
        let long = "9".repeat(100_000);
        let e = positive_count(&long).unwrap_err();
        assert!(e.len() < 140 && e.contains("100,000 characters"), "{e}");
        assert!(count("-1").unwrap_err().contains("must not be negative"));
    }
}
