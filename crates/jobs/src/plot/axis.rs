//! Axes of the charts: tick positions at round values (whole numbers on step axes, 1-2-5 per
//! decade on log axes) and short tick labels.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// The most ticks on an axis.
pub const MAX_TICKS: usize = 10;

/// A linear f64 axis with ticks chosen here (plotters' own choice can fall between whole
/// numbers on step axes).
pub struct Ticked {
    /// The axis range.
    pub range: std::ops::Range<f64>,
    /// Where the ticks go.
    pub ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = (value - self.range.start) / span;
        let pixels = f64::from(limit.1 - limit.0);
        if t.is_finite() {
            limit.0 + (pixels * t + 1e-3).floor() as i32
        } else {
            limit.1
        }
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// Ticks at multiples of 1, 2 or 5 times a power of ten, at most [`MAX_TICKS`] of them;
/// whole numbers only with `integer`.
pub fn nice_ticks(lo: f64, hi: f64, integer: bool) -> Vec<f64> {
    let span = (hi - lo).abs().max(f64::MIN_POSITIVE);
    let raw = span / MAX_TICKS as f64;
    let power = 10f64.powf(raw.log10().floor());
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power);
    if integer {
        step = step.max(1.0).round();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Ticks of a log10 axis: 1, 2 and 5 times each power of ten in range (only the powers when
/// that makes too many), or round values of the exponent when the range spans less than
/// three of them.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut all = Vec::new();
    let mut decades = Vec::new();
    for k in lo.floor() as i64..=hi.ceil() as i64 {
        for m in [1.0f64, 2.0, 5.0] {
            let t = k as f64 + m.log10();
            if (lo..=hi).contains(&t) {
                all.push(t);
                if m == 1.0 {
                    decades.push(t);
                }
            }
        }
    }
    if all.len() <= MAX_TICKS && all.len() >= 3 {
        all
    } else if all.len() > MAX_TICKS {
        let thin = decades.len().div_ceil(MAX_TICKS).max(1);
        decades.into_iter().step_by(thin).collect()
    } else {
        nice_ticks(lo, hi, false)
    }
}

/// A tick label: whole numbers with thousands separators on count axes, otherwise the
/// shortest clear form.
pub fn tick_label(v: f64, integer: bool) -> String {
    if integer {
        let n = v.round() as i64;
        let digits = n.abs().to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        if n < 0 { format!("-{out}") } else { out }
    } else {
        short_number(v)
    }
}

/// Up to 3 significant digits; exponent form for very small or large magnitudes.
pub fn short_number(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let text = format!("{v:.1e}");
        return text.replace(".0e", "e");
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ticks_are_whole_numbers() {
        for (lo, hi) in [(0.0, 3.0), (1.0, 7.0), (0.0, 300.0), (100.0, 4000.0)] {
            let t = nice_ticks(lo, hi, true);
            assert!(!t.is_empty() && t.len() <= MAX_TICKS, "{lo}..{hi}: {t:?}");
            assert!(
                t.iter().all(|v| v.fract() == 0.0 && *v >= lo && *v <= hi),
                "{t:?}"
            );
        }
        assert_eq!(
            nice_ticks(0.0, 300.0, true),
            vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0]
        );
    }

    #[test]
    fn log_ticks_fall_on_round_values() {
        // 1e-4 .. 1: decades with 2 and 5 between would be too many: decades only.
        let t = log_ticks(-4.0, 0.0);
        assert_eq!(t, vec![-4.0, -3.0, -2.0, -1.0, 0.0]);
        // Within one decade: 0.02 and 0.05 and 0.1 are not enough; round exponents instead.
        let t = log_ticks(0.02f64.log10(), 0.09f64.log10());
        assert!(t.len() >= 2, "{t:?}");
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(tick_label(12_500.0, true), "12,500");
        assert_eq!(short_number(0.0312), "0.0312");
        assert_eq!(short_number(2.0), "2");
        assert_eq!(short_number(1e-5), "1e-5");
        assert_eq!(short_number(123.456), "123");
    }
}
