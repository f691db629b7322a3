//! [`Dataset`] and [`DataSplit`]: the in-memory form every loader produces.

use crate::error::{Error, Result};

/// A table of examples: `rows` rows of `n_features` inputs and `n_targets` targets, row-major.
///
/// `x[r * n_features + j]` is feature `j` of row `r`; `y[r * n_targets + k]` is target `k`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Features, `rows * n_features` values, row-major.
    pub x: Vec<f32>,
    /// Targets, `rows * n_targets` values, row-major.
    pub y: Vec<f32>,
    /// Number of examples.
    pub rows: usize,
    /// Inputs per example.
    pub n_features: usize,
    /// Targets per example.
    pub n_targets: usize,
    /// One name per feature column.
    pub feature_names: Vec<String>,
    /// One name per target column.
    pub target_names: Vec<String>,
}

impl Dataset {
    /// Builds a dataset, checking that every size agrees.
    ///
    /// Names may be empty, in which case `x0, x1, ...` and `y` (or `y0, y1, ...`) are used.
    pub fn new(
        x: Vec<f32>,
        y: Vec<f32>,
        rows: usize,
        feature_names: Vec<String>,
        target_names: Vec<String>,
    ) -> Result<Self> {
        if rows == 0 {
            return Err(Error::invalid("a dataset needs at least one row"));
        }
        if !x.len().is_multiple_of(rows) || !y.len().is_multiple_of(rows) {
            return Err(Error::invalid(format!(
                "dataset of {rows} rows cannot hold {} feature values and {} target values",
                x.len(),
                y.len()
            )));
        }
        let n_features = x.len() / rows;
        let n_targets = y.len() / rows;
        let feature_names = default_names(feature_names, n_features, "x", "features")?;
        let target_names = if target_names.is_empty() && n_targets == 1 {
            vec!["y".to_string()]
        } else {
            default_names(target_names, n_targets, "y", "targets")?
        };
        Ok(Self {
            x,
            y,
            rows,
            n_features,
            n_targets,
            feature_names,
            target_names,
        })
    }

    /// The features of row `r` (panics if `r >= rows`, like slice indexing).
    pub fn row_x(&self, r: usize) -> &[f32] {
        &self.x[r * self.n_features..(r + 1) * self.n_features]
    }

    /// The targets of row `r` (panics if `r >= rows`, like slice indexing).
    pub fn row_y(&self, r: usize) -> &[f32] {
        &self.y[r * self.n_targets..(r + 1) * self.n_targets]
    }

    /// A new dataset made of the given rows, in the given order.
    ///
    /// Errors if `indices` is empty or names a row out of range.
    pub fn select_rows(&self, indices: &[usize]) -> Result<Self> {
        if indices.is_empty() {
            return Err(Error::invalid("cannot select zero rows of a dataset"));
        }
        let mut x = Vec::with_capacity(indices.len() * self.n_features);
        let mut y = Vec::with_capacity(indices.len() * self.n_targets);
        for &r in indices {
            if r >= self.rows {
                return Err(Error::invalid(format!(
                    "row {r} is out of range for a dataset of {} rows",
                    self.rows
                )));
            }
            x.extend_from_slice(self.row_x(r));
            y.extend_from_slice(self.row_y(r));
        }
        Ok(Self {
            x,
            y,
            rows: indices.len(),
            n_features: self.n_features,
            n_targets: self.n_targets,
            feature_names: self.feature_names.clone(),
            target_names: self.target_names.clone(),
        })
    }
}

fn default_names(names: Vec<String>, n: usize, prefix: &str, what: &str) -> Result<Vec<String>> {
    if names.is_empty() {
        return Ok((0..n).map(|i| format!("{prefix}{i}")).collect());
    }
    if names.len() != n {
        return Err(Error::invalid(format!(
            "{} names given for {n} {what}",
            names.len()
        )));
    }
    Ok(names)
}

/// A training part and, where the data has one, a test part with the same columns.
#[derive(Debug, Clone, PartialEq)]
pub struct DataSplit {
    /// Examples to fit on.
    pub train: Dataset,
    /// Examples to evaluate on, if any.
    pub test: Option<Dataset>,
    /// Inputs given without targets (the seed JSON's `x_test` when `y_test` is empty), row-major
    /// with `train.n_features` values per row: points to predict, e.g. a coarser image grid.
    pub unlabeled_x: Option<Vec<f32>>,
}

impl DataSplit {
    /// A split with no test part.
    pub fn train_only(train: Dataset) -> Self {
        Self {
            train,
            test: None,
            unlabeled_x: None,
        }
    }
}
