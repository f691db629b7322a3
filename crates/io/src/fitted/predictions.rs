//! [`Predictions`]: a fitted model's answers for a batch of rows, and their CSV form.

use std::io::Write;

use super::info::{ModelInfo, Task, label_text};
use crate::error::{Error, Result};

/// A fitted model's answers for some rows, in user units.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictions {
    /// Number of rows.
    pub rows: usize,
    /// Names of the values of each row ([`ModelInfo::output_columns`]).
    pub columns: Vec<String>,
    /// `rows * columns.len()` values, row-major: the predicted values (regression), the
    /// probability of each class (classification), or pixel values in `[0, 1]` (images).
    pub values: Vec<f32>,
    /// The predicted class label of each row (classification only): the label itself, or
    /// its index in [`class_names`](Self::class_names) when the model has those.
    pub labels: Option<Vec<f32>>,
    /// The class labels as written in the training table, for models that keep them.
    pub class_names: Option<Vec<String>>,
    /// The columns of a raw table whose cells could not all be read as their training type
    /// (read as missing instead), from [`FittedModel::predict_table`](super::FittedModel::predict_table);
    /// empty otherwise.
    pub notes: Vec<crate::table::ReadNote>,
}

impl Predictions {
    /// Turns raw network outputs (`rows x info.output_width()`) into answers:
    ///
    /// - regression: `y * std + mean` with the target statistics (when stored), kept
    ///   within the target range (when stored);
    /// - images: the same, then clamped to `[0, 1]` (NaN becomes 0);
    /// - two classes: `p = sigmoid(z)`, probabilities `[1 - p, p]`, label `classes[1]` when
    ///   `z > 0`, else `classes[0]`;
    /// - more classes: softmax probabilities, label of the largest logit.
    pub fn from_raw(info: &ModelInfo, mut raw: Vec<f32>) -> Result<Self> {
        let width = info.output_width();
        if width == 0 || !raw.len().is_multiple_of(width) {
            return Err(Error::invalid(format!(
                "{} network outputs are not a whole number of rows of {width}",
                raw.len()
            )));
        }
        let rows = raw.len() / width;
        let columns = info.output_columns();
        let (values, labels) = match &info.task {
            Task::Regression | Task::Image { .. } => {
                info.regression_values(&mut raw)?;
                if matches!(info.task, Task::Image { .. }) {
                    raw.iter_mut()
                        .for_each(|v| *v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
                }
                (raw, None)
            }
            Task::Classification { classes } if width == 1 => {
                let mut values = Vec::with_capacity(2 * rows);
                let mut labels = Vec::with_capacity(rows);
                for &z in &raw {
                    let p = tensor_core::sigmoid(z);
                    values.extend([1.0 - p, p]);
                    labels.push(if z > 0.0 { classes[1] } else { classes[0] });
                }
                (values, Some(labels))
            }
            Task::Classification { classes } => {
                let mut values = Vec::with_capacity(raw.len());
                let mut labels = Vec::with_capacity(rows);
                for z in raw.chunks_exact(width) {
                    values.extend(softmax(z));
                    let best = z
                        .iter()
                        .enumerate()
                        .max_by(|a, b| a.1.total_cmp(b.1))
                        .map_or(0, |(i, _)| i);
                    labels.push(classes[best]);
                }
                (values, Some(labels))
            }
        };
        Ok(Predictions {
            rows,
            columns,
            values,
            labels,
            class_names: info.class_names.clone(),
            notes: Vec::new(),
        })
    }

    /// The values of row `r` (panics when `r >= rows`, like slice indexing).
    pub fn row(&self, r: usize) -> &[f32] {
        let w = self.columns.len();
        &self.values[r * w..(r + 1) * w]
    }

    /// The header [`write_csv`](Self::write_csv) writes: `prediction` (the value, or the
    /// class label), then one `probability_<class>` column per class; several regression
    /// outputs give `prediction_<name>` columns instead.
    pub fn csv_header(&self) -> Vec<String> {
        match &self.labels {
            Some(_) => std::iter::once("prediction".to_string())
                .chain(self.columns.iter().cloned())
                .collect(),
            None if self.columns.len() == 1 => vec!["prediction".to_string()],
            None => self
                .columns
                .iter()
                .map(|c| format!("prediction_{c}"))
                .collect(),
        }
    }

    /// The predicted label of row `r` as text: the class word, or the number in shortest
    /// form (classification only).
    pub fn label_text(&self, r: usize) -> Option<String> {
        let label = *self.labels.as_ref()?.get(r)?;
        Some(match &self.class_names {
            Some(names) => names.get(label as usize).cloned().unwrap_or_default(),
            None => label_text(label),
        })
    }

    /// Writes the predictions as CSV (see [`csv_header`](Self::csv_header)), one line per
    /// row, numbers in the shortest form that reads back to the same `f32`. `leading`
    /// columns (for instance the inputs) come first when given: a header and
    /// `rows * header.len()` values.
    pub fn write_csv<W: Write>(&self, out: W, leading: Option<(&[String], &[f32])>) -> Result<()> {
        let (names, values): (&[String], &[f32]) = leading.unwrap_or((&[], &[]));
        let text: Vec<String> = values.iter().map(|v| label_text(*v)).collect();
        self.write_csv_text(out, names, &text)
    }

    /// [`write_csv`](Self::write_csv) with leading columns given as text cells
    /// (`rows * lead_names.len()` of them, row-major), e.g. identifiers copied from the input.
    pub fn write_csv_text<W: Write>(
        &self,
        out: W,
        lead_names: &[String],
        lead_values: &[String],
    ) -> Result<()> {
        let lw = lead_names.len();
        if lead_values.len() != lw * self.rows {
            return Err(Error::invalid(format!(
                "{} leading values for {} rows of {lw} columns",
                lead_values.len(),
                self.rows
            )));
        }
        self.write_rows(out, lead_names, |r, record| {
            record.extend_from_slice(&lead_values[r * lw..(r + 1) * lw]);
            Ok(())
        })
    }

    /// The predictions of the rows of `table` as CSV, after the `leading` columns of the
    /// table (copied as read), e.g. identifiers or the true target: written row by row, so
    /// that nothing but one row is held beside the output.
    pub fn write_csv_beside<W: Write>(
        &self,
        out: W,
        table: &crate::table::Table,
        leading: &[String],
    ) -> Result<()> {
        if table.rows() != self.rows {
            return Err(Error::invalid(format!(
                "{} table rows for {} predictions",
                table.rows(),
                self.rows
            )));
        }
        let columns: Vec<usize> = leading
            .iter()
            .map(|n| table.require(n))
            .collect::<Result<_>>()?;
        let mut buf = String::new();
        self.write_rows(out, leading, |r, record| {
            for &c in &columns {
                record.push(table.column(c).cell(r).text(&mut buf).to_string());
            }
            Ok(())
        })
    }

    /// [`write_csv_beside`](Self::write_csv_beside) into bytes in memory.
    pub fn csv_beside(&self, table: &crate::table::Table, leading: &[String]) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.write_csv_beside(&mut bytes, table, leading)?;
        Ok(bytes)
    }

    /// Writes the header and one record per row: the cells `lead` pushes for the row, then
    /// the prediction's.
    fn write_rows<W: Write>(
        &self,
        out: W,
        lead_names: &[String],
        mut lead: impl FnMut(usize, &mut Vec<String>) -> Result<()>,
    ) -> Result<()> {
        let mut w = ::csv::Writer::from_writer(out);
        let fail = |e: ::csv::Error| Error::invalid(format!("cannot write predictions: {e}"));
        let header: Vec<String> = lead_names
            .iter()
            .cloned()
            .chain(self.csv_header())
            .collect();
        w.write_record(&header).map_err(fail)?;
        let mut record = Vec::new();
        for r in 0..self.rows {
            record.clear();
            lead(r, &mut record)?;
            if let Some(label) = self.label_text(r) {
                record.push(label);
            }
            record.extend(self.row(r).iter().map(|v| label_text(*v)));
            w.write_record(&record).map_err(fail)?;
        }
        w.flush()
            .map_err(|e| Error::invalid(format!("cannot write predictions: {e}")))
    }
}

/// Softmax of one row of logits, computed in f64 with the largest logit subtracted.
fn softmax(z: &[f32]) -> Vec<f32> {
    let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let e: Vec<f64> = z.iter().map(|&v| (v as f64 - max).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|v| (v / sum) as f32).collect()
}
