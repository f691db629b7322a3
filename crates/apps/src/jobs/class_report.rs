//! The test-set report of classifiers: accuracy beside the majority-class baseline,
//! precision, recall and F1 per class with the class labels, and the confusion matrix.

use train::metrics::ClassReport;

/// Prints the figures of a classifier on its `rows` test rows.
pub fn print_classification(r: &ClassReport, rows: usize) {
    let (labels, k) = (&r.classes, r.classes.len());
    if k == 2 {
        println!("test set ({rows} rows, positive class: {}):", labels[1]);
    } else {
        println!("test set ({rows} rows, {k} classes):");
    }
    println!(
        "  accuracy  {:.4}   (always the majority class: {:.4})",
        r.accuracy, r.baseline_accuracy
    );
    if let (Some(p), Some(recall), Some(f1)) = (r.precision, r.recall, r.f1) {
        println!("  precision {p:.4}   recall {recall:.4}   F1 {f1:.4}");
    }
    let width = widest(labels, 5, 24);
    println!("  {:<width$}  precision  recall      F1   rows", "class");
    for c in &r.per_class {
        println!(
            "  {:<width$}  {:>9.4}  {:>6.4}  {:>6.4}  {:>5}",
            c.class, c.precision, c.recall, c.f1, c.rows
        );
    }
    print_confusion(labels, &r.confusion, width);
}

fn print_confusion(labels: &[String], confusion: &[Vec<usize>], width: usize) {
    if labels.len() > 12 {
        return;
    }
    println!("  confusion matrix (rows: truth, columns: prediction)");
    let cell = widest(labels, 6, 12);
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

/// The characters of the longest label, from `least` to `most`.
fn widest(labels: &[String], least: usize, most: usize) -> usize {
    let longest = labels.iter().map(|l| l.chars().count()).max();
    longest.unwrap_or(least).clamp(least, most)
}

fn short(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}
