//! What the tabular jobs write and print after training: predictions beside the raw rows,
//! and the coefficients of linear models by feature name.

use std::path::Path;

use anyhow::Result;
use io::FittedModel;
use io::Standardizer;
use io::table::Table;
use nn::NamedArray;
use serde_json::{Map, Value, json};
use tensor_core::Backend;

use crate::report::output::write_file;

/// Predicts the rows of `table` and writes, atomically, their input columns as read, the
/// `target` column when given, then the predictions.
pub fn write_table_predictions<B: Backend>(
    path: &Path,
    model: &FittedModel<B>,
    table: &Table,
    target: Option<&str>,
) -> Result<()> {
    let predictions = model.predict_table(table)?;
    let mut names = model.feature_names().to_vec();
    if let Some(t) = target {
        names.push(t.to_string());
    }
    let bytes = predictions_csv(&predictions, table, &names)?;
    write_file(path, &bytes)
}

/// The predictions as CSV, after the `leading` columns of `table` (copied as read).
pub fn predictions_csv(
    predictions: &io::Predictions,
    table: &Table,
    leading: &[String],
) -> Result<Vec<u8>> {
    let columns: Vec<usize> = leading
        .iter()
        .map(|n| table.require(n))
        .collect::<io::Result<_>>()?;
    let mut cells = Vec::with_capacity(table.rows() * columns.len());
    for r in 0..table.rows() {
        cells.extend(columns.iter().map(|&c| table.column(c).get(r).to_string()));
    }
    let mut bytes = Vec::new();
    predictions.write_csv_text(&mut bytes, leading, &cells)?;
    Ok(bytes)
}

/// Prints and records the coefficients of a linear model by feature name, with the
/// intercept. The features are the encoded (standardised) ones, so a coefficient is the
/// change of the output per standard deviation of a number, or for a level against none;
/// regression coefficients are in the target's units, logistic ones in log-odds of the
/// positive class.
pub fn print_coefficients(
    m: &mut Map<String, Value>,
    state: &[NamedArray],
    names: &[String],
    targets: Option<&Standardizer>,
    labels: &Option<Vec<String>>,
) {
    let find = |suffix: &str| state.iter().find(|a| a.name.ends_with(suffix));
    let (Some(w), Some(b)) = (find("weight"), find("bias")) else {
        return;
    };
    if w.data.len() != names.len() || b.data.len() != 1 {
        return;
    }
    let (scale, shift) = targets.map_or((1.0, 0.0), |t| (t.std[0], t.mean[0]));
    let coefficients: Vec<f32> = w.data.iter().map(|v| v * scale).collect();
    let intercept = b.data[0] * scale + shift;
    let unit = match labels {
        Some(l) => format!("log-odds of `{}`", l.get(1).map_or("", String::as_str)),
        None => "target units".to_string(),
    };
    println!("coefficients ({unit}, per standard deviation of each number or per level):");
    println!("  {:<32} {:>12.6}", "(intercept)", intercept);
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&i, &j| coefficients[j].abs().total_cmp(&coefficients[i].abs()));
    const SHOWN: usize = 20;
    for &i in order.iter().take(SHOWN) {
        println!("  {:<32} {:>12.6}", names[i], coefficients[i]);
    }
    if names.len() > SHOWN {
        println!("  ... {} more in metrics.json", names.len() - SHOWN);
    }
    let by_name: Map<String, Value> = names
        .iter()
        .zip(&coefficients)
        .map(|(n, c)| (n.clone(), json!(c)))
        .collect();
    m.insert("intercept".into(), json!(intercept));
    m.insert("coefficients".into(), Value::Object(by_name));
}
