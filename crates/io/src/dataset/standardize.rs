//! Per-column standardisation, fitted on training data and stored with the model.

use serde::{Deserialize, Serialize};

use super::table::{DataSplit, Dataset};
use crate::error::{Error, Result};

/// Per-column mean and standard deviation: `transform` maps `v` to `(v - mean) / std`.
///
/// Fit it on the training part only, then apply the same statistics to the test part and at
/// prediction time. A column with a standard deviation of 0 (constant) gets `std = 1`, so it is
/// only centred. It serialises with serde, so it can be saved in a checkpoint's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standardizer {
    /// Mean of each column.
    pub mean: Vec<f32>,
    /// Population standard deviation of each column (1 where it was 0).
    pub std: Vec<f32>,
}

/// The deviation a column is scaled by: its standard deviation `sd`, or 1 for a constant
/// column (`sd` at most 1e-12) or one beyond the `f32` range, so that scaling never divides
/// by zero or infinity. The one rule for [`Standardizer`] and the table encoding's
/// [`Scaling`](crate::table::Scaling).
pub(crate) fn deviation_or_one(sd: f64) -> f32 {
    let wide = sd as f32;
    if sd > 1e-12 && wide.is_finite() {
        wide
    } else {
        1.0
    }
}

impl Standardizer {
    /// Fits the statistics of a row-major table with `columns` values per row.
    ///
    /// Errors if `columns` is 0 or `values` is empty or not a whole number of rows.
    pub fn fit(values: &[f32], columns: usize) -> Result<Self> {
        if columns == 0 || values.is_empty() || !values.len().is_multiple_of(columns) {
            return Err(Error::invalid(format!(
                "cannot fit a standardizer on {} values in {columns} columns",
                values.len()
            )));
        }
        let rows = (values.len() / columns) as f64;
        let mut sum = vec![0f64; columns];
        for row in values.chunks_exact(columns) {
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += f64::from(v);
            }
        }
        let mean: Vec<f64> = sum.iter().map(|s| s / rows).collect();
        let mut sq = vec![0f64; columns];
        for row in values.chunks_exact(columns) {
            for ((s, &v), m) in sq.iter_mut().zip(row).zip(&mean) {
                let d = f64::from(v) - m;
                *s += d * d;
            }
        }
        let std = sq
            .iter()
            .map(|s| deviation_or_one((s / rows).sqrt()))
            .collect();
        Ok(Self {
            mean: mean.iter().map(|&m| m as f32).collect(),
            std,
        })
    }

    /// Fits the statistics of a dataset's features (use the training part).
    pub fn fit_features(data: &Dataset) -> Result<Self> {
        Self::fit(&data.x, data.n_features)
    }

    /// Fits the statistics of a dataset's targets (use the training part), for regression.
    pub fn fit_targets(data: &Dataset) -> Result<Self> {
        Self::fit(&data.y, data.n_targets)
    }

    /// Number of columns.
    pub fn columns(&self) -> usize {
        self.mean.len()
    }

    /// Standardises a row-major table in place.
    pub fn transform_in_place(&self, values: &mut [f32]) -> Result<()> {
        self.check(values.len(), "transform")?;
        for row in values.chunks_exact_mut(self.columns()) {
            for ((v, m), s) in row.iter_mut().zip(&self.mean).zip(&self.std) {
                *v = (*v - m) / s;
            }
        }
        Ok(())
    }

    /// Returns a standardised copy of a row-major table.
    pub fn transform(&self, values: &[f32]) -> Result<Vec<f32>> {
        let mut out = values.to_vec();
        self.transform_in_place(&mut out)?;
        Ok(out)
    }

    /// Undoes [`transform`](Self::transform) in place (e.g. on predicted targets).
    pub fn inverse_transform_in_place(&self, values: &mut [f32]) -> Result<()> {
        self.check(values.len(), "inverse_transform")?;
        for row in values.chunks_exact_mut(self.columns()) {
            for ((v, m), s) in row.iter_mut().zip(&self.mean).zip(&self.std) {
                *v = *v * s + m;
            }
        }
        Ok(())
    }

    /// Returns a copy with [`transform`](Self::transform) undone.
    pub fn inverse_transform(&self, values: &[f32]) -> Result<Vec<f32>> {
        let mut out = values.to_vec();
        self.inverse_transform_in_place(&mut out)?;
        Ok(out)
    }

    fn check(&self, len: usize, what: &str) -> Result<()> {
        let c = self.columns();
        if c == 0 || self.std.len() != c {
            return Err(Error::invalid(format!(
                "standardizer is malformed: {} means and {} standard deviations",
                c,
                self.std.len()
            )));
        }
        if !len.is_multiple_of(c) {
            return Err(Error::invalid(format!(
                "{what}: {len} values are not a whole number of rows of {c} columns"
            )));
        }
        Ok(())
    }
}

/// The statistics fitted by [`DataSplit::standardize`], to be saved with the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standardization {
    /// Statistics of the features.
    pub features: Standardizer,
    /// Statistics of the targets, when they were standardised too.
    pub targets: Option<Standardizer>,
}

impl DataSplit {
    /// Fits a [`Standardizer`] on the training features (and, if `targets`, the training
    /// targets) and applies it to the training part, the test part and the unlabeled inputs.
    /// Returns the statistics, to be stored with the model and applied at prediction time.
    pub fn standardize(&mut self, targets: bool) -> Result<Standardization> {
        let features = Standardizer::fit_features(&self.train)?;
        let target_stats = if targets {
            Some(Standardizer::fit_targets(&self.train)?)
        } else {
            None
        };
        for part in std::iter::once(&mut self.train).chain(self.test.as_mut()) {
            features.transform_in_place(&mut part.x)?;
            if let Some(t) = &target_stats {
                t.transform_in_place(&mut part.y)?;
            }
        }
        if let Some(u) = self.unlabeled_x.as_mut() {
            features.transform_in_place(u)?;
        }
        Ok(Standardization {
            features,
            targets: target_stats,
        })
    }
}
