//! The text of a table model's test figures, line by line: a classifier's accuracy beside
//! the majority-class baseline, precision, recall and F1 per class and the confusion
//! matrix; a regression's errors beside the mean's and the closed-form least-squares fit's,
//! with the problem's shape (underdetermined, constant targets) said plainly.

use crate::metrics::lstsq::Skipped;
use crate::metrics::{ClassReport, Reference, RegressionMetrics, RegressionReport};

/// The model whose figures fill the first row of a regression's test table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestedModel {
    /// A linear (or logistic) regression trained by gradient descent: a linear regression
    /// is compared with the closed-form fit.
    GradientDescent,
    /// The linear model that `auto` kept over the network.
    LinearModel,
    /// A network.
    Network,
}

impl TestedModel {
    /// The row's label: `gradient descent`, `linear model` or `network`.
    pub fn label(self) -> &'static str {
        match self {
            TestedModel::GradientDescent => "gradient descent",
            TestedModel::LinearModel => "linear model",
            TestedModel::Network => "network",
        }
    }
}

/// The lines of a classifier's figures on its `rows` test rows.
pub fn class_report_lines(r: &ClassReport, rows: usize) -> Vec<String> {
    let (labels, k) = (&r.classes, r.classes.len());
    let mut lines = vec![match k {
        2 => format!(
            "test set ({}, positive class: {}):",
            row_count(rows),
            labels[1]
        ),
        _ => format!("test set ({}, {k} classes):", row_count(rows)),
    }];
    lines.push(format!(
        "  accuracy  {:.4}   (always the majority class: {:.4})",
        r.accuracy, r.baseline_accuracy
    ));
    if let (Some(p), Some(recall), Some(f1)) = (r.precision, r.recall, r.f1) {
        lines.push(format!(
            "  precision {p:.4}   recall {recall:.4}   F1 {f1:.4}"
        ));
    }
    let width = widest(labels, 5, 24);
    lines.push(format!(
        "  {:<width$}  precision  recall      F1   rows",
        "class"
    ));
    lines.extend(r.per_class.iter().map(|c| {
        format!(
            "  {:<width$}  {:>9.4}  {:>6.4}  {:>6.4}  {:>5}",
            c.class, c.precision, c.recall, c.f1, c.rows
        )
    }));
    lines.extend(confusion_lines(labels, &r.confusion, width));
    lines
}

/// The confusion matrix, for up to 12 classes; the labels' column is `width` wide.
fn confusion_lines(labels: &[String], confusion: &[Vec<usize>], width: usize) -> Vec<String> {
    if labels.len() > 12 {
        return Vec::new();
    }
    let cell = widest(labels, 6, 12);
    let header: String = labels
        .iter()
        .map(|l| format!(" {:>cell$}", short(l, cell)))
        .collect();
    let mut lines = vec![
        "  confusion matrix (rows: truth, columns: prediction)".to_string(),
        format!("  {:<width$}{header}", ""),
    ];
    lines.extend(labels.iter().zip(confusion).map(|(label, row)| {
        let cells: String = row.iter().map(|v| format!(" {v:>cell$}")).collect();
        format!("  {:<width$}{cells}", short(label, width))
    }));
    lines
}

/// The characters of the longest label, from `least` to `most`.
fn widest(labels: &[String], least: usize, most: usize) -> usize {
    let longest = labels.iter().map(|l| l.chars().count()).max();
    longest.unwrap_or(least).clamp(least, most)
}

/// The first `n` characters of `text`.
fn short(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The rows a regression trained and was tested on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegressionRows {
    /// The training rows.
    pub train: usize,
    /// The features of each row.
    pub features: usize,
    /// The test rows.
    pub test: usize,
}

/// The lines of a regression's figures: `tested`, trained and tested on `rows`, beside the
/// mean of the training rows and the closed-form fit (and how far gradient descent is from
/// the latter).
pub fn regression_report_lines(
    r: &RegressionReport,
    rows: RegressionRows,
    tested: TestedModel,
) -> Vec<String> {
    let (train_rows, cols, test_rows) = (rows.train, rows.features, rows.test);
    let mut lines = Vec::new();
    if train_rows <= cols {
        lines.push(format!(
            "note: {cols} encoded columns but only {train_rows} training rows: the problem is underdetermined (many weight vectors fit the training rows exactly), so expect overfitting"
        ));
    }
    lines.push(format!("test set ({}):", row_count(test_rows)));
    lines.push(format!(
        "  {:<22} {:>12} {:>10} {:>10} {:>8}",
        "", "MSE", "RMSE", "MAE", "R^2"
    ));
    let ours = &r.errors;
    lines.push(error_row(tested.label(), ours));
    if ours.r2.is_nan() {
        lines.push("  (R^2 is undefined: the test rows' target is constant)".to_string());
    }
    lines.push(error_row("mean of training rows", &r.baseline));
    match &r.reference {
        Reference::Fitted {
            errors,
            underdetermined,
        } => {
            let name = match underdetermined {
                true => "least squares (min-norm)",
                false => "least squares (exact)",
            };
            lines.push(error_row(name, errors));
            if tested == TestedModel::GradientDescent {
                lines.push(gap_line(ours.mse, errors.mse, r.baseline.mse));
            }
        }
        Reference::Skipped(Skipped::Singular) => lines
            .push("  (no closed-form reference: the features are linearly dependent)".to_string()),
        Reference::Skipped(Skipped::TooCostly { side }) => lines.push(format!(
            "  (no closed-form reference: a {side}x{side} solve would take too long)"
        )),
    }
    lines
}

/// One row of the table of errors.
fn error_row(name: &str, r: &RegressionMetrics) -> String {
    // R^2 is undefined (NaN) when the test targets are constant.
    let r2 = if r.r2.is_nan() {
        "n/a".to_string()
    } else {
        // A value that rounds to zero prints as 0.0000, never -0.0000.
        let shown = format!("{:.4}", r.r2);
        if shown == "-0.0000" {
            "0.0000".to_string()
        } else {
            shown
        }
    };
    format!(
        "  {name:<22} {:>12} {:>10} {:>10} {r2:>8}",
        figure(r.mse, 4),
        figure(r.rmse, 4),
        figure(r.mae, 4)
    )
}

/// `v` with `decimals` decimals, or in scientific notation where those would hide it: from
/// a billion on (its digits are noise), and a value other than zero that would print as
/// zero.
pub(super) fn figure(v: f64, decimals: usize) -> String {
    let hidden = v != 0.0 && v.abs() < 0.5 * 10f64.powi(-(decimals as i32));
    if v.is_finite() && (v.abs() >= 1e9 || hidden) {
        format!("{v:.decimals$e}")
    } else {
        format!("{v:.decimals$}")
    }
}

/// How far gradient descent's test MSE is from the closed form's; `baseline` is the MSE
/// of the training rows' mean, the scale of the targets.
fn gap_line(ours: f64, closed: f64, baseline: f64) -> String {
    // A percentage of a (near) zero MSE means nothing: where both fit the test rows to a
    // millionth of the targets' spread, say so.
    if ours.max(closed) <= 1e-6 * baseline {
        return "  gradient descent and the closed form both fit the test rows exactly (MSE \
                below a millionth of the mean's)"
            .to_string();
    }
    if closed > 1e-9 * ours.max(1e-30) {
        let gap = (ours - closed) / closed * 100.0;
        if gap.abs() < 0.005 {
            "  gradient descent matches the closed-form test MSE (within 0.01%)".to_string()
        } else {
            format!("  gradient descent is {gap:+.2}% from the closed-form test MSE")
        }
    } else {
        "  the closed form fits the test rows exactly; compare the MSE columns".to_string()
    }
}

/// `1 row`, `12 rows`.
fn row_count(rows: usize) -> String {
    format!("{rows} row{}", if rows == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::{figure, gap_line, row_count};

    #[test]
    fn one_row_is_one_row() {
        assert_eq!(row_count(1), "1 row");
        assert_eq!(row_count(12), "12 rows");
    }

    #[test]
    fn the_gap_is_a_percentage_unless_both_fit_exactly() {
        assert!(gap_line(1.10, 1.0, 5.0).contains("+10.00%"));
        assert!(gap_line(1.00001, 1.0, 5.0).contains("matches"));
        // Both a rounding error away from zero: no percentage of one rounding error of the
        // other.
        let both = gap_line(2.6e-7, 3.1e-14, 4.0);
        assert!(both.contains("both fit the test rows exactly"), "{both}");
        assert!(gap_line(0.5, 0.0, 4.0).contains("the closed form fits"));
    }

    #[test]
    fn figures_hide_nothing_at_any_scale() {
        assert_eq!(figure(0.061_84, 4), "0.0618");
        assert_eq!(figure(0.0, 4), "0.0000");
        assert_eq!(figure(-12.5, 2), "-12.50");
        assert_eq!(figure(999_999_999.0, 1), "999999999.0");
        assert_eq!(figure(6.991_283e45, 4), "6.9913e45");
        assert_eq!(figure(1.2e-7, 4), "1.2000e-7");
        assert_eq!(figure(0.000_05, 4), "0.0001");
        assert_eq!(figure(f64::NAN, 4), "NaN");
    }
}
