//! The tabular jobs' inputs, ready to train on: the table read, split, typed and encoded on
//! the training rows, with the targets as numbers or class indices.

use std::time::Instant;

use anyhow::{Result, bail};
use io::Dataset;
use io::table::{
    EncodeOptions, Preprocessor, Table, TypeOverrides, class_indices, class_labels, infer_schema,
    looks_categorical, regression_targets,
};
use serde_json::Value;

use super::table_data::{
    describe_schema, drop_incomplete_rows, drop_missing_targets, read_any, split_rows, target_name,
};
use crate::cli::RegressionArgs;

/// The encoded parts of a table and what is needed to report on them.
pub struct Prepared {
    /// Training rows: encoded features; targets as values or class indices.
    pub train: Dataset,
    /// Validation rows, when some are held out.
    pub val: Option<Dataset>,
    /// Test rows, encoded.
    pub test: Dataset,
    /// The test rows as read (for `test_predictions.csv`).
    pub test_table: Table,
    /// Rows given without targets (a JSON file's `x_test` with no `y_test`).
    pub unlabeled: Option<Table>,
    /// Class labels in output order (classification).
    pub labels: Option<Vec<String>>,
    /// The fitted encoding.
    pub encoding: Preprocessor,
    /// The schema as written to `schema.json`.
    pub schema_json: Value,
    /// The target column's name.
    pub target: String,
}

/// Reads, splits, types and encodes the data of a tabular job. `classify` is the task when
/// the job knows it (`None`: decided from the target, see
/// [`looks_categorical`](io::table::looks_categorical)).
pub fn prepare(a: &RegressionArgs, classify: Option<bool>) -> Result<Prepared> {
    let started = Instant::now();
    let raw = read_any(&a.data)?;
    let target = target_name(&raw.rows, a.target.as_deref())?;
    let mut rows = drop_missing_targets(raw.rows, &target)?;
    if a.drop_missing {
        rows = drop_incomplete_rows(rows, &a.ignore)?;
    }
    let (train, test) = match (&a.test_data, raw.test) {
        (Some(path), _) => {
            let test = read_any(path)?.rows;
            test.require(&target)?;
            (rows, drop_missing_targets(test, &target)?)
        }
        (None, Some(test)) => (rows, drop_missing_targets(test, &target)?),
        (None, None) if a.test_fraction > 0.0 => split_rows(&rows, a.test_fraction, a.train.seed)?,
        (None, None) => bail!(
            "--test-fraction 0 leaves no rows to test on ({} has no test part); use a fraction such as 0.2 or --test-data FILE",
            a.data.display()
        ),
    };
    let classify = match classify {
        Some(c) => c,
        None => looks_categorical(train.column(train.require(&target)?)),
    };
    let val_fraction = a
        .val_fraction
        .unwrap_or(if a.patience.is_some() { 0.1 } else { 0.0 });
    let (train, val) = if val_fraction > 0.0 && train.rows() >= 4 {
        let (t, v) = split_rows(&train, val_fraction, a.train.seed.wrapping_add(1))?;
        (t, Some(v))
    } else {
        (train, None)
    };
    if train.rows() < 2 {
        let total = train.rows() + test.rows() + val.as_ref().map_or(0, Table::rows);
        bail!(
            "--test-fraction {} and --val-fraction {val_fraction} leave {} training row(s) of {total}; at least two are needed (use smaller fractions or more rows)",
            a.test_fraction,
            train.rows()
        );
    }
    let overrides = TypeOverrides {
        categorical: a.categorical.clone(),
        numeric: a.numeric.clone(),
        ignore: a.ignore.clone(),
    };
    let schema = infer_schema(&train, Some(&target), &overrides)?;
    let encoding = Preprocessor::fit(&train, &schema, &EncodeOptions::default())?;
    println!(
        "columns of {} ({} training rows; target `{target}`, {}):",
        train.source,
        train.rows(),
        if classify { "classes" } else { "a number" }
    );
    let schema_json = describe_schema(&schema, &encoding, &target);
    let labels = classify
        .then(|| class_labels(&train, &target))
        .transpose()?;
    let encode = |t: &Table| -> Result<Dataset> {
        let y = match &labels {
            Some(l) => class_targets(t, &target, l)?,
            None => regression_targets(t, &target)?,
        };
        let x = encoding.transform(t)?;
        Ok(Dataset::new(
            x,
            y,
            t.rows(),
            encoding.output_names(),
            vec![target.clone()],
        )?)
    };
    let prepared = Prepared {
        train: encode(&train)?,
        val: val.as_ref().map(&encode).transpose()?,
        test: encode(&test)?,
        test_table: test,
        unlabeled: raw.unlabeled,
        labels,
        schema_json,
        target: target.clone(),
        encoding,
    };
    println!(
        "read and encoded {} rows into {} columns in {:.2} s",
        prepared.train.rows + prepared.test.rows + prepared.val.as_ref().map_or(0, |v| v.rows),
        prepared.train.n_features,
        started.elapsed().as_secs_f64()
    );
    Ok(prepared)
}

/// Class indices of the target of `table` (as f32), erroring on a label the training rows
/// lack.
fn class_targets(table: &Table, target: &str, labels: &[String]) -> Result<Vec<f32>> {
    let column = table.column(table.require(target)?);
    class_indices(column, labels)
        .into_iter()
        .enumerate()
        .map(|(r, i)| match i {
            Some(i) => Ok(i as f32),
            None => bail!(
                "`{}` has the class `{}` (data row {}), which the training rows lack",
                table.source,
                column.get(r),
                r + 1
            ),
        })
        .collect()
}
