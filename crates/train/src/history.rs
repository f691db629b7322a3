//! `history.csv`: one row per logged step of a run (losses, learning rate, elapsed time),
//! the data behind `loss.png`.

use crate::report::Reporter;
use crate::{Error, Result};
use std::path::Path;

/// The file name inside a run folder.
pub const FILE_NAME: &str = "history.csv";

/// The header line.
pub const HEADER: &str = "step,epoch,train_loss,val_loss,lr,elapsed_s";

/// One logged step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Updates applied so far.
    pub step: u64,
    /// Passes over the training data so far (fractional within an epoch).
    pub epoch: f64,
    /// Mean training loss over the steps since the previous row.
    pub train_loss: Option<f64>,
    /// Loss on the validation set at this step, when it was evaluated.
    pub val_loss: Option<f64>,
    /// Learning rate of the last update.
    pub lr: f64,
    /// Seconds since the run started (summed over resumed parts).
    pub elapsed: f64,
}

/// A number for the CSV: up to 7 significant digits (f32 precision), exponent notation for
/// very small or large magnitudes.
pub fn number(v: f64) -> String {
    let f = v as f32;
    if f != 0.0 && (f.abs() < 1e-4 || f.abs() >= 1e7) {
        format!("{f:e}")
    } else {
        format!("{f}")
    }
}

fn epoch_text(e: f64) -> String {
    let text = format!("{e:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

/// The rows as CSV text, header first.
pub fn to_csv(rows: &[Row]) -> String {
    let mut out = String::with_capacity(48 * (rows.len() + 1));
    out.push_str(HEADER);
    out.push('\n');
    let opt = |v: Option<f64>| v.map(number).unwrap_or_default();
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{:.4}\n",
            r.step,
            epoch_text(r.epoch),
            opt(r.train_loss),
            opt(r.val_loss),
            number(r.lr),
            r.elapsed
        ));
    }
    out
}

/// A malformed line of `history.csv`.
fn malformed(line: usize, reason: String) -> Error {
    Error::History { line, reason }
}

/// Parses one data line (`line_no` counts from 1, the header being line 1).
fn parse_row(line: &str, line_no: usize) -> Result<Row> {
    let fields: Vec<&str> = line.split(',').collect();
    if fields.len() != 6 {
        let reason = format!("{} fields, expected 6", fields.len());
        return Err(malformed(line_no, reason));
    }
    let num = |s: &str| -> Result<f64> {
        s.trim()
            .parse::<f64>()
            .map_err(|_| malformed(line_no, format!("{s:?} is not a number")))
    };
    let opt = |s: &str| -> Result<Option<f64>> {
        if s.trim().is_empty() {
            Ok(None)
        } else {
            num(s).map(Some)
        }
    };
    Ok(Row {
        step: fields[0]
            .trim()
            .parse()
            .map_err(|_| malformed(line_no, format!("bad step {:?}", fields[0])))?,
        epoch: num(fields[1])?,
        train_loss: opt(fields[2])?,
        val_loss: opt(fields[3])?,
        lr: num(fields[4])?,
        elapsed: num(fields[5])?,
    })
}

/// Parses text written by [`to_csv`].
pub fn parse_csv(text: &str) -> Result<Vec<Row>> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(HEADER) {
        return Err(malformed(1, format!("the first line is not `{HEADER}`")));
    }
    lines
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| parse_row(line, i + 2))
        .collect()
}

/// Writes `history.csv` into `dir`.
pub fn write(dir: &Path, rows: &[Row]) -> Result<()> {
    crate::record::write_file(&dir.join(FILE_NAME), to_csv(rows).as_bytes())
}

/// The rows of an earlier part of the run in `dir` up to `step` (for a resume); none when the
/// folder has no readable history (the reporter is told why).
pub fn read_until(dir: &Path, step: u64, reporter: &mut dyn Reporter) -> Vec<Row> {
    let Ok(text) = std::fs::read_to_string(dir.join(FILE_NAME)) else {
        return Vec::new();
    };
    match parse_csv(&text) {
        Ok(rows) => rows.into_iter().filter(|r| r.step <= step).collect(),
        Err(e) => {
            reporter.note(&format!(
                "note: ignoring the unreadable {FILE_NAME} of the earlier run ({e})"
            ));
            Vec::new()
        }
    }
}

/// How much the training loss fell over the last `tail` share of the run's steps, as a share
/// of its value then (0.2: it fell by a fifth); `None` without enough rows.
pub fn still_improving(rows: &[Row], tail: f64) -> Option<f64> {
    let losses: Vec<(u64, f64)> = rows
        .iter()
        .filter_map(|r| r.train_loss.map(|l| (r.step, l)))
        .collect();
    let &(last_step, last) = losses.last()?;
    let cut = (last_step as f64 * (1.0 - tail)).round() as u64;
    let &(step, before) = losses.iter().rev().find(|(s, _)| *s <= cut)?;
    (step < last_step && before > 0.0).then(|| (before - last) / before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_csv() {
        let rows = vec![
            Row {
                step: 1,
                epoch: 0.1,
                train_loss: Some(0.5),
                val_loss: None,
                lr: 1e-3,
                elapsed: 0.012,
            },
            Row {
                step: 20,
                epoch: 2.0,
                train_loss: Some(1.25e-6),
                val_loss: Some(3.5e8),
                lr: 1e-5,
                elapsed: 1.5,
            },
        ];
        let text = to_csv(&rows);
        assert!(text.starts_with(HEADER));
        assert!(text.contains("\n1,0.1,0.5,,0.001,0.0120\n"), "{text}");
        assert!(
            text.contains("\n20,2,1.25e-6,3.5e8,1e-5,1.5000\n"),
            "{text}"
        );
        let back = parse_csv(&text).unwrap();
        assert_eq!(back.len(), 2);
        for (a, b) in back.iter().zip(&rows) {
            assert_eq!(a.step, b.step);
            assert!((a.lr - b.lr).abs() <= 1e-7 * b.lr);
            let close = |x: Option<f64>, y: Option<f64>| match (x, y) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-6 * y.abs(),
                (None, None) => true,
                _ => false,
            };
            assert!(close(a.train_loss, b.train_loss) && close(a.val_loss, b.val_loss));
        }
    }

    #[test]
    fn improvement_over_the_tail() {
        let row = |step, loss| Row {
            step,
            epoch: step as f64,
            train_loss: Some(loss),
            val_loss: None,
            lr: 1e-3,
            elapsed: 0.0,
        };
        let falling: Vec<Row> = (1..=100).map(|s| row(s, 1.0 / s as f64)).collect();
        // From 1/90 to 1/100: a tenth less.
        let d = still_improving(&falling, 0.1).unwrap();
        assert!((d - 0.1).abs() < 1e-12, "{d}");
        let flat: Vec<Row> = (1..=100).map(|s| row(s, 0.5)).collect();
        assert_eq!(still_improving(&flat, 0.1), Some(0.0));
        assert_eq!(still_improving(&falling[..1], 0.1), None);
    }

    #[test]
    fn malformed_history_is_an_error() {
        assert!(parse_csv("step,loss\n1,2\n").is_err());
        assert!(parse_csv(&format!("{HEADER}\n1,1,x,,0.1,0\n")).is_err());
        assert!(parse_csv(&format!("{HEADER}\n1,1,0.5\n")).is_err());
    }
}
