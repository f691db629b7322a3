//! Parsers of numeric options that say what a value must be ("must be positive") instead of
//! a parser's message, and accept negative values where they mean something (seeds).

/// A learning rate or other scale: a finite number above zero.
pub fn positive_f32(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err(format!("must be a positive number, got {s}")),
        Err(_) => Err(format!("expected a positive number, got {s:?}")),
    }
}

/// A seed: any integer. Negative seeds wrap to 64 bits as in PyTorch (`-1` is `2^64 - 1`).
pub fn seed(s: &str) -> Result<u64, String> {
    let t = s.trim();
    t.parse::<u64>()
        .or_else(|_| t.parse::<i64>().map(|v| v as u64))
        .map_err(|_| format!("expected a whole number, got {s:?}"))
}

/// A count of at least 1 (sizes, steps, repetitions).
pub fn positive_count(s: &str) -> Result<usize, String> {
    match whole(s).map_err(|e| not_positive(s, e))? {
        0 => Err(format!("must be a positive whole number, got {s}")),
        n => usize::try_from(n).map_err(|_| format!("{s} is too large")),
    }
}

/// A count of at least 1, as a u64 (intervals, patience).
pub fn positive_u64(s: &str) -> Result<u64, String> {
    positive_count(s).map(|n| n as u64)
}

/// A size in pixels: at least 1.
pub fn positive_u32(s: &str) -> Result<u32, String> {
    match whole(s).map_err(|e| not_positive(s, e))? {
        0 => Err(format!("must be a positive whole number, got {s}")),
        n => u32::try_from(n).map_err(|_| format!("{s} is too large")),
    }
}

/// A count where 0 means something (e.g. "only at the end").
pub fn count(s: &str) -> Result<usize, String> {
    usize::try_from(whole(s)?).map_err(|_| format!("{s} is too large"))
}

/// "must be positive" for a negative value, else the message as it is.
fn not_positive(s: &str, message: String) -> String {
    if message.starts_with("must not be negative") {
        format!("must be a positive whole number, got {s}")
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
        return Err(format!("must not be negative, got {s}"));
    }
    Err(format!("expected a whole number, got {s:?}"))
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
        assert!(count("-1").unwrap_err().contains("must not be negative"));
    }
}
