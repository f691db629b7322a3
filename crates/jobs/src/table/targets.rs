//! What a table job trains on and saves besides the encoded features: the targets as the
//! network learns them, class balancing, and the fitted model's description.

use super::Prepared;
use crate::{Error, Result};
use io::table::{Preprocessor, Table};
use io::{Dataset, ModelInfo, Standardizer};

/// Why a job read its target as classes or as a regression, when it could be read the
/// other way: the note (naming no option) and the other task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskNote {
    /// What the target holds and how it was read.
    pub text: String,
    /// The task that would read it the other way: `regression` or `classification`.
    pub other_task: &'static str,
}

impl TaskNote {
    /// The note `text` of a target read as classes (`classify`) or as a regression.
    pub fn new(text: String, classify: bool) -> Self {
        TaskNote {
            text,
            other_task: if classify {
                "regression"
            } else {
                "classification"
            },
        }
    }
}

/// Drops the rows of a regression whose `target` is text rather than a number (a stray
/// `unknown`), adding a one-line note with the count and the texts to `notes`. Errors when
/// more than [`STRAY_TARGETS`](io::table::STRAY_TARGETS) of the targets are text.
pub fn drop_unreadable_targets(
    table: Table,
    target: &str,
    notes: &mut Vec<String>,
) -> Result<Table> {
    let (keep, dropped) = io::table::rows_with_number_target(&table, target)?;
    if dropped.is_empty() {
        return Ok(table);
    }
    if dropped.len() as f64 > io::table::STRAY_TARGETS * (keep.len() + dropped.len()) as f64 {
        return Err(Error::refused(format!(
            "`{}`: the regression target `{target}` holds text in {} of {} rows (`{}`); a \
             regression target must be numbers (set the task to classification to predict \
             classes)",
            table.source,
            dropped.len(),
            table.rows(),
            dropped[0]
        )));
    }
    let mut examples: Vec<&str> = dropped.iter().map(String::as_str).collect();
    examples.sort_unstable();
    examples.dedup();
    examples.truncate(3);
    notes.push(format!(
        "dropped {} row{} of {} whose target `{target}` is not a number (`{}`)",
        dropped.len(),
        if dropped.len() == 1 { "" } else { "s" },
        table.source,
        examples.join("`, `")
    ));
    Ok(table.select_rows(&keep)?)
}

/// Targets as the network learns them: 0/1 (two classes), one-hot rows (more classes), or
/// values standardised by `targets` (regression, when given).
pub fn network_targets(
    y: &[f32],
    classes: usize,
    targets: Option<&Standardizer>,
) -> Result<Vec<f32>> {
    if let Some(t) = targets {
        return Ok(t.transform(y)?);
    }
    if classes == 2 {
        return Ok(y.to_vec());
    }
    let mut out = vec![0f32; y.len() * classes];
    for (r, &i) in y.iter().enumerate() {
        out[r * classes + (i as usize).min(classes.saturating_sub(1))] = 1.0;
    }
    Ok(out)
}

/// The training rows with each class repeated up to the size of the largest: the same
/// expected gradient as weighing class `c` by `rows / (classes * rows_c)`, up to a common
/// factor. Returns the rows and how many each class now has.
pub fn balance(train: &Dataset, classes: usize) -> Result<(Dataset, usize)> {
    let mut by_class: Vec<Vec<usize>> = vec![Vec::new(); classes];
    for r in 0..train.rows {
        let class = (train.row_y(r)[0] as usize).min(classes.saturating_sub(1));
        by_class[class].push(r);
    }
    let most = by_class.iter().map(Vec::len).max().unwrap_or(0);
    let mut rows = Vec::with_capacity(most * classes);
    for members in by_class.iter().filter(|m| !m.is_empty()) {
        rows.extend((0..most).map(|i| members[i % members.len()]));
    }
    rows.sort_unstable();
    Ok((train.select_rows(&rows)?, most))
}

impl Prepared {
    /// Refuses a target that no model here can learn: more than 100 classes (a regression
    /// target read as classes) or a constant value.
    pub fn refuse_unlearnable(&self) -> Result<()> {
        let column = &self.target;
        let classes = self.labels.as_ref().map_or(0, Vec::len);
        if classes > 100 {
            return Err(Error::refused(format!(
                "the target column `{column}` has {classes} distinct values; is this a regression target? (set the task to regression)"
            )));
        }
        if classes == 0
            && let Some(&first) = self.train.y.first()
            && self.train.y.iter().all(|&v| v == first)
        {
            return Err(Error::refused(format!(
                "the target column `{column}` is constant (every training row holds {first}); there is nothing to learn"
            )));
        }
        Ok(())
    }

    /// The range of a regression's training targets (training and validation rows) widened
    /// by `margin` times its width on each side; `None` for classes or no rows.
    pub fn training_range(&self, margin: f32) -> Option<io::fitted::TargetRange> {
        if self.labels.is_some() {
            return None;
        }
        let parts = [Some(&self.train), self.val.as_ref()];
        let values = parts.iter().flatten().flat_map(|d| d.y.iter().copied());
        let (lo, hi) = values.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let width = hi - lo;
        (lo <= hi).then(|| io::fitted::TargetRange {
            low: vec![lo - margin * width],
            high: vec![hi + margin * width],
        })
    }

    /// The fitted model's description: a plain standardisation when every column is a
    /// number without gaps (the model file then reads as before tables had types), the
    /// whole encoding otherwise; regression targets standardised by `targets`.
    pub fn model_info(&self, targets: Option<&Standardizer>) -> ModelInfo {
        self.model_info_with(&self.encoding, targets)
    }

    /// The fitted model's description, as [`Prepared::model_info`], for a network that
    /// reads the table in `encoding` (another encoding of the same columns).
    pub fn model_info_with(
        &self,
        encoding: &Preprocessor,
        targets: Option<&Standardizer>,
    ) -> ModelInfo {
        let names = encoding.output_names();
        let target = self.target.as_str();
        let info = match (&self.labels, targets) {
            (Some(labels), _) => {
                // Labels an f32 holds are stored as numbers; others keep their text.
                let numeric: Option<Vec<f32>> =
                    labels.iter().map(|l| io::fitted::label_number(l)).collect();
                match numeric {
                    Some(values) => ModelInfo::classification(&names, target, values),
                    None => ModelInfo::classification_labels(&names, target, labels.clone()),
                }
            }
            (None, Some(t)) => {
                ModelInfo::regression(&names, &[target.to_string()]).with_targets(t.clone())
            }
            (None, None) => ModelInfo::regression(&names, &[target.to_string()]),
        };
        let info = match &self.target_range {
            Some(range) if self.labels.is_none() => info.with_target_range(range.clone()),
            _ => info,
        };
        match encoding.as_standardizer() {
            Some(s) => info.with_features(s),
            None => info.with_preprocessing(encoding.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_indices_one_hot_rows_or_standardised_values() {
        assert_eq!(network_targets(&[1.0, 0.0], 2, None).unwrap(), [1.0, 0.0]);
        let one_hot = network_targets(&[2.0, 0.0], 3, None).unwrap();
        assert_eq!(one_hot, [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
        let s = Standardizer {
            mean: vec![10.0],
            std: vec![2.0],
        };
        assert_eq!(
            network_targets(&[12.0, 9.0], 0, Some(&s)).unwrap(),
            [1.0, -0.5]
        );
    }

    #[test]
    fn balancing_repeats_the_rarer_classes() {
        let y = vec![0.0, 0.0, 0.0, 1.0];
        let d = Dataset::new(vec![1.0, 2.0, 3.0, 4.0], y, 4, vec![], vec![]).unwrap();
        let (b, most) = balance(&d, 2).unwrap();
        assert_eq!(most, 3);
        assert_eq!(b.x, [1.0, 2.0, 3.0, 4.0, 4.0, 4.0]);
        assert_eq!(b.y.iter().filter(|&&c| c == 1.0).count(), 3);
    }
}
