//! [`ClassReport`]: the test-set figures of a classifier, per class by name.

use serde::Serialize;

/// Precision, recall and F1 of one class, with its number of test rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassFigures {
    /// The class label.
    pub class: String,
    /// Of the rows predicted in this class, the share that are.
    pub precision: f64,
    /// Of the rows of this class, the share predicted in it.
    pub recall: f64,
    /// Harmonic mean of precision and recall (0 where both are 0).
    pub f1: f64,
    /// Test rows of this class.
    pub rows: usize,
}

/// The figures of predicted classes against the truth; serialises to the `metrics.json`
/// entries of classifiers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassReport {
    /// Share of rows classified right.
    #[serde(rename = "test_accuracy")]
    pub accuracy: f64,
    /// Accuracy of always answering the most frequent class of the test rows.
    #[serde(rename = "baseline_accuracy")]
    pub baseline_accuracy: f64,
    /// Mean of the classes' F1.
    #[serde(rename = "test_macro_f1")]
    pub macro_f1: f64,
    /// Precision of the positive class (the second), for two classes.
    #[serde(rename = "test_precision", skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// Recall of the positive class, for two classes.
    #[serde(rename = "test_recall", skip_serializing_if = "Option::is_none")]
    pub recall: Option<f64>,
    /// F1 of the positive class, for two classes.
    #[serde(rename = "test_f1", skip_serializing_if = "Option::is_none")]
    pub f1: Option<f64>,
    /// The class labels, in index order.
    pub classes: Vec<String>,
    /// The figures of each class.
    pub per_class: Vec<ClassFigures>,
    /// Rows of the truth, columns of the prediction.
    #[serde(rename = "confusion_matrix")]
    pub confusion: Vec<Vec<usize>>,
}

impl ClassReport {
    /// The figures of predicted class indices `pred` against `truth` (indices into
    /// `labels`; an index beyond them counts as the last class).
    pub fn new(labels: &[String], pred: &[usize], truth: &[usize]) -> Self {
        let k = labels.len().max(1);
        let mut confusion = vec![vec![0usize; k]; k];
        for (&p, &t) in pred.iter().zip(truth) {
            confusion[t.min(k - 1)][p.min(k - 1)] += 1;
        }
        let n = truth.len().max(1) as f64;
        let right: usize = (0..k).map(|i| confusion[i][i]).sum();
        let counts: Vec<usize> = confusion.iter().map(|row| row.iter().sum()).collect();
        let per_class: Vec<ClassFigures> = labels
            .iter()
            .enumerate()
            .map(|(c, label)| class_figures(&confusion, c, label, counts[c]))
            .collect();
        let positive = (labels.len() == 2).then(|| &per_class[1]);
        ClassReport {
            accuracy: right as f64 / n,
            baseline_accuracy: counts.iter().max().copied().unwrap_or(0) as f64 / n,
            macro_f1: per_class.iter().map(|c| c.f1).sum::<f64>() / k as f64,
            precision: positive.map(|c| c.precision),
            recall: positive.map(|c| c.recall),
            f1: positive.map(|c| c.f1),
            classes: labels.to_vec(),
            per_class,
            confusion,
        }
    }
}

/// The figures of class `c` (0 where undefined).
fn class_figures(confusion: &[Vec<usize>], c: usize, label: &str, rows: usize) -> ClassFigures {
    let tp = confusion[c][c] as f64;
    let predicted: usize = confusion.iter().map(|row| row[c]).sum();
    let ratio = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
    let (precision, recall) = (ratio(tp, predicted), ratio(tp, rows));
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    ClassFigures {
        class: label.to_string(),
        precision,
        recall,
        f1,
        rows,
    }
}

/// The predicted class index of each row of raw network outputs (`width` 1: a logit of
/// class 1; otherwise one logit per class).
pub fn predicted_classes(raw: &[f32], width: usize) -> Vec<usize> {
    if width == 1 {
        return raw.iter().map(|&z| usize::from(z > 0.0)).collect();
    }
    raw.chunks_exact(width.max(1))
        .map(|r| {
            r.iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(i, _)| i)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::binary_classification;

    /// The figures of the positive class agree with the binary metrics; the JSON keys are
    /// those of `metrics.json`.
    #[test]
    fn figures_match_the_binary_metrics() {
        let pred = [1usize, 0, 1, 1, 0, 0, 1];
        let truth = [1usize, 0, 0, 1, 1, 0, 1];
        let r = ClassReport::new(&["no".into(), "yes".into()], &pred, &truth);
        let f = |v: &[usize]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        let c = binary_classification(&f(&pred), &f(&truth));
        let m = serde_json::to_value(&r).unwrap();
        assert_eq!(m["test_accuracy"], serde_json::json!(c.accuracy));
        assert_eq!(m["test_precision"], serde_json::json!(c.precision));
        assert_eq!(m["test_recall"], serde_json::json!(c.recall));
        assert_eq!(m["test_f1"], serde_json::json!(c.f1));
        assert_eq!(m["confusion_matrix"], serde_json::json!([[2, 1], [1, 3]]));
        assert_eq!(m["per_class"][1]["class"], "yes");
        assert_eq!(m["per_class"][1]["rows"], 4);
    }

    /// Three classes: no binary figures, macro F1 the mean of the classes'.
    #[test]
    fn several_classes_report_a_macro_f1() {
        let labels: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let r = ClassReport::new(&labels, &[0, 1, 2, 2], &[0, 1, 1, 2]);
        assert_eq!(r.precision, None);
        assert!((r.accuracy - 0.75).abs() < 1e-12);
        // F1: a 1, b 2/3 (p 1, r 1/2), c 2/3 (p 1/2, r 1).
        assert!((r.macro_f1 - (1.0 + 2.0 / 3.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        let m = serde_json::to_value(&r).unwrap();
        assert!(m.get("test_precision").is_none());
    }

    #[test]
    fn predicted_classes_take_the_largest_logit() {
        assert_eq!(predicted_classes(&[-0.5, 0.5], 1), [0, 1]);
        assert_eq!(
            predicted_classes(&[0.1, 0.9, 0.2, 3.0, 1.0, 2.0], 3),
            [1, 0]
        );
    }
}
