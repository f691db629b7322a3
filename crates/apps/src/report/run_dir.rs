//! The output folder of a run and its `metrics.json`.

use anyhow::{Context, Result};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The folder a run writes into, created on demand.
pub fn prepare(out: Option<&Path>, job: &str) -> Result<PathBuf> {
    let dir = match out {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("runs").join(format!("{job}-{}", timestamp())),
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the output folder {}", dir.display()))?;
    Ok(dir)
}

/// UTC time as `YYYYmmdd-HHMMSS`.
fn timestamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let (y, m, d) = civil_date(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian calendar).
pub(crate) fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Writes `metrics.json` (pretty-printed) into `dir`.
pub fn write_metrics(dir: &Path, metrics: &Map<String, Value>) -> Result<()> {
    let path = dir.join("metrics.json");
    let text = serde_json::to_string_pretty(metrics)?;
    std::fs::write(&path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::civil_date;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(20_779), (2026, 11, 22));
    }
}
