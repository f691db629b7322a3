//! [`ModelInfo`]: what a network's numbers mean — the task, the column names, the
//! standardisation and the class labels — stored as JSON beside the network.

use serde::{Deserialize, Serialize};

use crate::dataset::Standardizer;
use crate::error::{Error, Result};
use crate::table::Preprocessor;

/// What the network predicts, and so how its raw outputs become answers in user units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Task {
    /// Numbers: the raw outputs, de-standardised with [`ModelInfo::targets`] when set.
    Regression,
    /// Classes: one logit for two classes (sigmoid), one logit per class for more (softmax).
    Classification {
        /// The class labels in the order of the network's outputs (sorted ascending by the
        /// training jobs); with two classes the logit is that of `classes[1]`.
        classes: Vec<f32>,
    },
    /// An image as a function of pixel coordinates: inputs `(x, y)` with pixel `i` of `n` at
    /// `-1 + 2 i / (n - 1)` (see [`crate::image::coords`]), outputs one value per channel,
    /// de-standardised with [`ModelInfo::targets`] and clamped to `[0, 1]`.
    Image {
        /// Width of the training image in pixels.
        width: usize,
        /// Height of the training image in pixels.
        height: usize,
    },
}

/// Everything besides the network that turns raw input rows into answers: stored in a model
/// file's metadata under [`INFO_KEY`](super::INFO_KEY).
///
/// ```
/// use io::fitted::{ModelInfo, Task};
/// let info = ModelInfo::classification(&["x", "y"], "label", vec![0.0, 1.0]);
/// assert_eq!(info.output_width(), 1); // two classes: one logit
/// assert_eq!(info.output_columns(), ["probability_0", "probability_1"]);
/// assert!(matches!(info.task, Task::Classification { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// What is predicted.
    pub task: Task,
    /// Input column names, in the order the network takes them.
    pub feature_names: Vec<String>,
    /// Output column names: one per output for regression and images, the name of the
    /// class column for classification.
    pub target_names: Vec<String>,
    /// Statistics applied to the inputs, `(x - mean) / std`, before the network.
    #[serde(default)]
    pub features: Option<Standardizer>,
    /// Statistics undone on the outputs, `y * std + mean`, for regression and images.
    #[serde(default)]
    pub targets: Option<Standardizer>,
    /// The encoding of raw table columns into [`feature_names`](Self::feature_names), for
    /// models trained on tables: applied by
    /// [`FittedModel::predict_table`](super::FittedModel::predict_table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preprocessing: Option<Preprocessor>,
    /// The class labels as written in the training table (words or numbers), in output
    /// order; `classes` then holds their indices `0, 1, ...`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_names: Option<Vec<String>>,
    /// The range a regression's predictions are kept within, per output (in user units,
    /// after [`targets`](Self::targets) is undone): the training targets' range widened by
    /// a margin, so that a few extreme rows cannot drive predictions far outside anything
    /// seen. `None`: predictions as the network gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_range: Option<TargetRange>,
}

/// The lowest and highest value of each output of a regression ([`ModelInfo::target_range`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRange {
    /// The lowest value of each output.
    pub low: Vec<f32>,
    /// The highest value of each output.
    pub high: Vec<f32>,
}

impl TargetRange {
    /// Keeps each value of `values` (rows of one value per output, row-major) within its
    /// output's range; NaN stays NaN.
    pub fn bound(&self, values: &mut [f32]) {
        let n = self.low.len().max(1);
        for row in values.chunks_exact_mut(n) {
            for ((v, &lo), &hi) in row.iter_mut().zip(&self.low).zip(&self.high) {
                if *v < lo {
                    *v = lo;
                } else if *v > hi {
                    *v = hi;
                }
            }
        }
    }
}

impl ModelInfo {
    /// A regression of the named targets on the named features, with no standardisation
    /// (add it with [`with_features`](Self::with_features) and
    /// [`with_targets`](Self::with_targets)).
    pub fn regression<S: AsRef<str>>(features: &[S], targets: &[S]) -> Self {
        ModelInfo {
            task: Task::Regression,
            feature_names: names(features),
            target_names: names(targets),
            features: None,
            targets: None,
            preprocessing: None,
            class_names: None,
            target_range: None,
        }
    }

    /// A classifier of `target` into `classes` (labels in output order).
    pub fn classification<S: AsRef<str>>(features: &[S], target: &str, classes: Vec<f32>) -> Self {
        ModelInfo {
            task: Task::Classification { classes },
            feature_names: names(features),
            target_names: vec![target.to_string()],
            features: None,
            targets: None,
            preprocessing: None,
            class_names: None,
            target_range: None,
        }
    }

    /// An image model of a `width x height` picture with the named channels
    /// (`["value"]` or `["r", "g", "b"]`); inputs are the coordinates `x`, `y`.
    pub fn image<S: AsRef<str>>(width: usize, height: usize, channels: &[S]) -> Self {
        ModelInfo {
            task: Task::Image { width, height },
            feature_names: vec!["x".into(), "y".into()],
            target_names: names(channels),
            features: None,
            targets: None,
            preprocessing: None,
            class_names: None,
            target_range: None,
        }
    }

    /// A classifier of `target` into classes written as `labels` (words or numbers, in
    /// output order).
    pub fn classification_labels<S: AsRef<str>>(
        features: &[S],
        target: &str,
        labels: Vec<String>,
    ) -> Self {
        let classes = (0..labels.len()).map(|i| i as f32).collect();
        let mut info = Self::classification(features, target, classes);
        info.class_names = Some(labels);
        info
    }

    /// The same, with the encoding of raw table columns (whose output names must be the
    /// feature names).
    pub fn with_preprocessing(mut self, preprocessing: Preprocessor) -> Self {
        self.preprocessing = Some(preprocessing);
        self
    }

    /// The raw columns a prediction reads: the preprocessing's input columns, or the
    /// feature names when there is none.
    pub fn input_columns(&self) -> Vec<String> {
        match &self.preprocessing {
            Some(p) => p.input_columns(),
            None => self.feature_names.clone(),
        }
    }

    /// The text of class `i` (its word, or its number in shortest form).
    pub fn class_text(&self, i: usize) -> String {
        match (&self.class_names, self.classes()) {
            (Some(names), _) => names.get(i).cloned().unwrap_or_default(),
            (None, Some(c)) => c.get(i).map(|v| label_text(*v)).unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// The same, with input standardisation.
    pub fn with_features(mut self, features: Standardizer) -> Self {
        self.features = Some(features);
        self
    }

    /// The same, with output de-standardisation (regression and images).
    pub fn with_targets(mut self, targets: Standardizer) -> Self {
        self.targets = Some(targets);
        self
    }

    /// The same, with a regression's predictions kept within `range`.
    pub fn with_target_range(mut self, range: TargetRange) -> Self {
        self.target_range = Some(range);
        self
    }

    /// A regression's raw network outputs (row-major) in user units: the target
    /// standardisation undone, then kept within [`target_range`](Self::target_range).
    pub fn regression_values(&self, raw: &mut [f32]) -> Result<()> {
        if let Some(t) = &self.targets {
            t.inverse_transform_in_place(raw)?;
        }
        if let Some(r) = &self.target_range {
            r.bound(raw);
        }
        Ok(())
    }

    /// The class labels of a classifier.
    pub fn classes(&self) -> Option<&[f32]> {
        match &self.task {
            Task::Classification { classes } => Some(classes),
            _ => None,
        }
    }

    /// The number of network outputs this description implies.
    pub fn output_width(&self) -> usize {
        match &self.task {
            Task::Classification { classes } if classes.len() == 2 => 1,
            Task::Classification { classes } => classes.len(),
            _ => self.target_names.len(),
        }
    }

    /// Names of the values [`FittedModel::predict`](super::FittedModel::predict) returns per
    /// row: the target names, or `probability_<class>` for each class.
    pub fn output_columns(&self) -> Vec<String> {
        match &self.task {
            Task::Classification { classes } => (0..classes.len())
                .map(|i| format!("probability_{}", self.class_text(i)))
                .collect(),
            _ => self.target_names.clone(),
        }
    }

    /// Checks that the description is consistent with itself and with a network of
    /// `inputs -> outputs`; the error says what differs.
    pub fn check(&self, inputs: usize, outputs: usize) -> Result<()> {
        let n = self.feature_names.len();
        if n == 0 {
            return Err(Error::invalid("a model needs at least one feature name"));
        }
        if n != inputs {
            return Err(Error::invalid(format!(
                "the model description names {n} features but the network takes {inputs}"
            )));
        }
        if let Some(dup) = first_duplicate(&self.feature_names) {
            return Err(Error::invalid(format!("feature `{dup}` is named twice")));
        }
        if let Some(s) = &self.features {
            check_stats(s, n, "feature")?;
        }
        if let Some(p) = &self.preprocessing
            && p.output_names() != self.feature_names
        {
            return Err(Error::invalid(
                "the preprocessing's output columns differ from the feature names",
            ));
        }
        if let (Some(names), Some(classes)) = (&self.class_names, self.classes())
            && names.len() != classes.len()
        {
            return Err(Error::invalid(format!(
                "{} class names for {} classes",
                names.len(),
                classes.len()
            )));
        }
        match &self.task {
            Task::Classification { classes } => {
                if classes.len() < 2 || classes.iter().any(|c| !c.is_finite()) {
                    return Err(Error::invalid(format!(
                        "a classifier needs at least two finite class labels, got {classes:?}"
                    )));
                }
                if classes.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(Error::invalid(format!(
                        "class labels must be distinct and ascending, got {classes:?}"
                    )));
                }
                if self.targets.is_some() {
                    return Err(Error::invalid("a classifier has no target standardisation"));
                }
            }
            Task::Regression | Task::Image { .. } => {
                if let Some(s) = &self.targets {
                    check_stats(s, self.target_names.len(), "target")?;
                }
            }
        }
        if let Some(r) = &self.target_range {
            check_range(r, &self.task, self.target_names.len())?;
        }
        if let Task::Image { width, height } = self.task
            && (width == 0 || height == 0 || n != 2)
        {
            return Err(Error::invalid(format!(
                "an image model takes 2 coordinates and has a size of at least 1x1 \
                 (got {n} inputs, {width}x{height})"
            )));
        }
        if self.output_width() != outputs {
            return Err(Error::invalid(format!(
                "the model description implies {} network outputs but the network has {outputs}",
                self.output_width()
            )));
        }
        Ok(())
    }
}

/// How a class label is written in column names and prediction files: the shortest text
/// that reads back to the same `f32` (`1`, `2.5`).
pub fn label_text(label: f32) -> String {
    format!("{label}")
}

/// The `f32` a class label written `text` stands for, where [`label_text`] writes that
/// `f32` as `text`; `None` for a word, or a number an `f32` cannot hold (`16777217`), whose
/// class keeps its text.
///
/// ```
/// use io::fitted::label_number;
/// assert_eq!(label_number("2.5"), Some(2.5));
/// assert_eq!(label_number("16777217"), None);
/// assert_eq!(label_number("yes"), None);
/// ```
pub fn label_number(text: &str) -> Option<f32> {
    text.parse::<f32>().ok().filter(|v| label_text(*v) == text)
}

/// Refuses a target range on another model than a regression, or one of another width
/// than the outputs, or whose bounds are not ordered numbers.
fn check_range(r: &TargetRange, task: &Task, outputs: usize) -> Result<()> {
    if !matches!(task, Task::Regression) {
        return Err(Error::invalid(
            "only a regression keeps its predictions within a range",
        ));
    }
    let ordered = r.low.iter().zip(&r.high).all(|(l, h)| l <= h);
    if r.low.len() != outputs || r.high.len() != outputs || !ordered {
        return Err(Error::invalid(format!(
            "a target range holds a lowest and highest value per output ({outputs}), in \
             order; got {:?} to {:?}",
            r.low, r.high
        )));
    }
    Ok(())
}

fn names<S: AsRef<str>>(v: &[S]) -> Vec<String> {
    v.iter().map(|s| s.as_ref().to_string()).collect()
}

fn first_duplicate(names: &[String]) -> Option<&str> {
    names
        .iter()
        .enumerate()
        .find(|(i, n)| names[..*i].contains(n))
        .map(|(_, n)| n.as_str())
}

fn check_stats(s: &Standardizer, columns: usize, what: &str) -> Result<()> {
    if s.mean.len() != columns || s.std.len() != columns {
        return Err(Error::invalid(format!(
            "the {what} standardisation has {} means and {} deviations for {columns} {what}s",
            s.mean.len(),
            s.std.len()
        )));
    }
    if s.mean.iter().chain(&s.std).any(|v| !v.is_finite()) || s.std.contains(&0.0) {
        return Err(Error::invalid(format!(
            "the {what} standardisation holds a non-finite value or a zero deviation"
        )));
    }
    Ok(())
}
