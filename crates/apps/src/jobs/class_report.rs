//! The test-set report of classifiers: accuracy beside the majority-class baseline,
//! precision, recall and F1 per class with the class labels, and the confusion matrix.

use serde_json::{Map, Value, json};

/// Prints and records the figures of predicted class indices `pred` against `truth`
/// (indices into `labels`).
pub fn report_classification(
    m: &mut Map<String, Value>,
    labels: &[String],
    pred: &[usize],
    truth: &[usize],
) {
    let k = labels.len();
    let mut confusion = vec![vec![0usize; k]; k];
    for (&p, &t) in pred.iter().zip(truth) {
        confusion[t][p] += 1;
    }
    let n = truth.len().max(1) as f64;
    let right: usize = (0..k).map(|i| confusion[i][i]).sum();
    let accuracy = right as f64 / n;
    let counts: Vec<usize> = confusion.iter().map(|row| row.iter().sum()).collect();
    let baseline = counts.iter().max().copied().unwrap_or(0) as f64 / n;
    let per_class: Vec<(f64, f64, f64)> = (0..k).map(|c| class_figures(&confusion, c)).collect();
    if k == 2 {
        println!(
            "test set ({} rows, positive class: {}):",
            truth.len(),
            labels[1]
        );
    } else {
        println!("test set ({} rows, {k} classes):", truth.len());
    }
    println!("  accuracy  {accuracy:.4}   (always the majority class: {baseline:.4})");
    if k == 2 {
        let (p, r, f1) = per_class[1];
        println!("  precision {p:.4}   recall {r:.4}   F1 {f1:.4}");
        m.insert("test_precision".into(), json!(p));
        m.insert("test_recall".into(), json!(r));
        m.insert("test_f1".into(), json!(f1));
    }
    let width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, 24);
    println!("  {:<width$}  precision  recall      F1   rows", "class");
    for (c, label) in labels.iter().enumerate() {
        let (p, r, f1) = per_class[c];
        println!(
            "  {label:<width$}  {p:>9.4}  {r:>6.4}  {f1:>6.4}  {:>5}",
            counts[c]
        );
    }
    print_confusion(labels, &confusion, width);
    let macro_f1 = per_class.iter().map(|c| c.2).sum::<f64>() / k as f64;
    m.insert("test_accuracy".into(), json!(accuracy));
    m.insert("baseline_accuracy".into(), json!(baseline));
    m.insert("test_macro_f1".into(), json!(macro_f1));
    m.insert("classes".into(), json!(labels));
    m.insert(
        "per_class".into(),
        json!(labels
            .iter()
            .zip(&per_class)
            .zip(&counts)
            .map(|((l, (p, r, f)), n)| json!({"class": l, "precision": p, "recall": r, "f1": f, "rows": n}))
            .collect::<Vec<_>>()),
    );
    m.insert("confusion_matrix".into(), json!(confusion));
}

/// Precision, recall and F1 of class `c` (0 where undefined).
fn class_figures(confusion: &[Vec<usize>], c: usize) -> (f64, f64, f64) {
    let tp = confusion[c][c] as f64;
    let predicted: usize = confusion.iter().map(|row| row[c]).sum();
    let actual: usize = confusion[c].iter().sum();
    let ratio = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
    let (p, r) = (ratio(tp, predicted), ratio(tp, actual));
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (p, r, f1)
}

fn print_confusion(labels: &[String], confusion: &[Vec<usize>], width: usize) {
    if labels.len() > 12 {
        return;
    }
    println!("  confusion matrix (rows: truth, columns: prediction)");
    let cell = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1)
        .clamp(6, 12);
    let header: String = labels
        .iter()
        .map(|l| format!(" {:>cell$}", short(l, cell)))
        .collect();
    println!("  {:<width$}{header}", "");
    for (label, row) in labels.iter().zip(confusion) {
        let cells: String = row.iter().map(|v| format!(" {v:>cell$}")).collect();
        println!("  {:<width$}{cells}", short(label, width));
    }
}

fn short(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The predicted class index of each row of raw network outputs (`width` 1: a logit of
/// class 1; otherwise one logit per class).
pub fn predicted_classes(raw: &[f32], width: usize) -> Vec<usize> {
    if width == 1 {
        return raw.iter().map(|&z| usize::from(z > 0.0)).collect();
    }
    raw.chunks_exact(width)
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
    use crate::report::metrics;

    /// The per-class figures of the positive class agree with the binary metrics.
    #[test]
    fn figures_match_the_binary_metrics() {
        let pred = [1usize, 0, 1, 1, 0, 0, 1];
        let truth = [1usize, 0, 0, 1, 1, 0, 1];
        let mut m = Map::new();
        report_classification(&mut m, &["no".into(), "yes".into()], &pred, &truth);
        let f = |v: &[usize]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        let c = metrics::binary_classification(&f(&pred), &f(&truth));
        assert_eq!(m["test_accuracy"], json!(c.accuracy));
        assert_eq!(m["test_precision"], json!(c.precision));
        assert_eq!(m["test_recall"], json!(c.recall));
        assert_eq!(m["test_f1"], json!(c.f1));
        assert_eq!(m["confusion_matrix"], json!([[2, 1], [1, 3]]));
    }
}
