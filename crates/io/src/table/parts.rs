//! The numeric parts of an encoding: the fields a date expands into, and the fill and
//! standardisation of one numeric input.

use serde::{Deserialize, Serialize};

use super::dates::DateTime;

/// The parts a date column is expanded into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateField {
    /// The year.
    Year,
    /// The month, 1-12.
    Month,
    /// The day of the week, 0 (Monday) to 6 (Sunday).
    Weekday,
    /// The hour, 0-23.
    Hour,
}

impl DateField {
    pub(super) fn of(self, d: &DateTime) -> Option<f64> {
        Some(f64::from(match self {
            DateField::Year => return Some(f64::from(d.year)),
            DateField::Month => d.month,
            DateField::Weekday => d.weekday(),
            DateField::Hour => d.hour?,
        }))
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            DateField::Year => "year",
            DateField::Month => "month",
            DateField::Weekday => "weekday",
            DateField::Hour => "hour",
        }
    }
}

/// Fill value and standardisation of one numeric input.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    /// The value of a missing cell (the training median).
    pub fill: f32,
    /// Mean of the filled training column.
    pub mean: f32,
    /// Population standard deviation of the filled training column (1 where it is 0).
    pub std: f32,
}

impl Scaling {
    pub(super) fn fit(values: &mut [f64], rows: usize) -> Scaling {
        if values.is_empty() {
            return Scaling {
                fill: 0.0,
                mean: 0.0,
                std: 1.0,
            };
        }
        values.sort_unstable_by(f64::total_cmp);
        let n = values.len();
        let fill = if n % 2 == 1 {
            values[n / 2]
        } else {
            0.5 * (values[n / 2 - 1] + values[n / 2])
        };
        let missing = (rows - n) as f64;
        let sum: f64 = values.iter().sum::<f64>() + missing * fill;
        let mean = sum / rows as f64;
        let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
            + missing * (fill - mean).powi(2);
        let std = (ss / rows as f64).sqrt();
        Scaling {
            fill: fill as f32,
            mean: mean as f32,
            std: crate::dataset::deviation_or_one(std),
        }
    }

    pub(super) fn apply(&self, v: Option<f32>) -> f32 {
        let v = v.unwrap_or(self.fill);
        (v - self.mean) / self.std
    }
}
