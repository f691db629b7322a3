//! Table jobs' inputs, ready to train on: a table file read, typed on the whole table in
//! file order, split into training, validation and test rows, encoded on the training rows,
//! with the targets as numbers or class indices ([`prepare`]).

mod folds;
mod piecewise;
mod read;
mod schema;
mod targets;
mod tensors;

use std::path::PathBuf;

use crate::{Error, Result};
use io::Dataset;
use io::table::{
    EncodeOptions, Preprocessor, Table, TypeOverrides, class_indices, class_labels, guess_task,
    infer_schema, regression_targets_as, target_number_format,
};

pub use folds::{Fold, MAX_FOLDS, deal_folds, split_fold};
pub use piecewise::Encoded;
pub use read::{
    drop_incomplete_rows, drop_missing_targets, read_any, split_rows, split_rows_by_class,
    target_name,
};
pub use schema::{SchemaColumn, SchemaReport};
pub use targets::{TaskNote, balance, drop_unreadable_targets, network_targets};
pub use tensors::TableTensors;

/// How to read and split the table of a job.
#[derive(Debug, Clone, Default)]
pub struct TableOptions {
    /// The data file: CSV, Parquet or the JSON format.
    pub data: PathBuf,
    /// The target column (`None`: the last).
    pub target: Option<String>,
    /// A separate file of test rows.
    pub test_data: Option<PathBuf>,
    /// Share of rows held out for testing when there is no test part.
    pub test_fraction: f32,
    /// Share of the training rows held out for validation.
    pub val_fraction: f32,
    /// Drop rows with a missing cell instead of imputing it.
    pub drop_missing: bool,
    /// Type overrides: columns read as categories, as numbers, or ignored.
    pub overrides: TypeOverrides,
    /// The seed of the splits.
    pub seed: u64,
    /// The memory a text table's reading may take (`None`: unchecked).
    pub memory_budget: Option<io::image::MemoryBudget>,
    /// The fold of a cross-validation whose rows are the test rows, when the file has no
    /// test part and no test file is given (before `test_fraction`).
    pub fold: Option<Fold>,
}

impl TableOptions {
    /// The table in `data`, a share `test_fraction` of its rows held out for testing and a
    /// share `val_fraction` of the rest for validation; the other options as
    /// [`Default`].
    pub fn split(data: impl Into<PathBuf>, test_fraction: f32, val_fraction: f32) -> Self {
        TableOptions {
            data: data.into(),
            test_fraction,
            val_fraction,
            ..TableOptions::default()
        }
    }
}

/// The encoded parts of a table and what is needed to report on them.
pub struct Prepared {
    /// Training rows: encoded features; targets as values or class indices.
    pub train: Dataset,
    /// Validation rows, when some are held out.
    pub val: Option<Dataset>,
    /// Test rows, encoded (`None`: none were held out, and every row trains).
    pub test: Option<Dataset>,
    /// The test rows as read (for `test_predictions.csv`).
    pub test_table: Table,
    /// Rows given without targets (a JSON file's `x_test` with no `y_test`).
    pub unlabeled: Option<Table>,
    /// Class labels in output order (classification).
    pub labels: Option<Vec<String>>,
    /// The fitted encoding.
    pub encoding: Preprocessor,
    /// The columns' types and encodings (`schema.json`).
    pub schema: SchemaReport,
    /// The target column's name.
    pub target: String,
    /// Classes (true) or a regression.
    pub classify: bool,
    /// What was done to the rows on the way (rows dropped, cells of a separate test file
    /// that could not be read), one line each.
    pub notes: Vec<String>,
    /// Why the task was chosen, when the target could be read the other way.
    pub task_note: Option<TaskNote>,
    /// Bytes of the table as read (its cells and dictionaries, the test file's included).
    pub table_bytes: usize,
    /// The range the model's predictions are kept within (a regression's; `None`: none),
    /// written into its description ([`Prepared::model_info`]); set by the job
    /// ([`Prepared::training_range`]).
    pub target_range: Option<io::fitted::TargetRange>,
}

impl Prepared {
    /// Bytes held beside the training run: the table as read and every encoded part's
    /// values (a training part whose features a run took over counts its targets alone).
    pub fn held_bytes(&self) -> usize {
        let parts = [Some(&self.train), self.val.as_ref(), self.test.as_ref()];
        let values: usize = parts.iter().flatten().map(|d| d.x.len() + d.y.len()).sum();
        self.table_bytes + 4 * values
    }
}

/// Reads, types, splits and encodes the data of a table job. The columns' types are
/// decided on the whole table in file order ([`infer_schema`]), before any split; the
/// encoding is fitted on the training rows. `classify` is the task when the job knows it
/// (`None`: decided from the whole target column, see [`guess_task`]); a regression drops
/// the rows whose target is a stray word, with a note.
pub fn prepare(a: &TableOptions, classify: Option<bool>) -> Result<Prepared> {
    let mut notes = Vec::new();
    let raw = read_any(&a.data, a.memory_budget.as_ref())?;
    let held = raw.rows.bytes() + raw.test.as_ref().map_or(0, Table::bytes);
    let target = target_name(&raw.rows, a.target.as_deref())?;
    let schema = infer_schema(&raw.rows, Some(&target), &a.overrides)?;
    // Read on the whole table: every part reads its targets as the whole table writes them.
    let target_format = target_number_format(&raw.rows, &target)?;
    let (classify, task_note) = match classify {
        Some(c) => (c, None),
        None => {
            let guess = guess_task(raw.rows.column(raw.rows.require(&target)?));
            (
                guess.classify,
                guess.note.map(|text| TaskNote::new(text, guess.classify)),
            )
        }
    };
    let split = |t: &Table, fraction, seed| match classify {
        true => split_rows_by_class(t, &target, fraction, seed),
        false => split_rows(t, fraction, seed),
    };
    let (train, test) = test_split(
        a,
        raw.rows,
        raw.test,
        &target,
        (classify, &split),
        &mut notes,
    )?;
    let (train, val) = if a.val_fraction > 0.0 && train.rows() >= 4 {
        let (t, v) = split(&train, a.val_fraction, a.seed.wrapping_add(1))?;
        (t, Some(v))
    } else {
        (train, None)
    };
    if train.rows() < 2 {
        let total = train.rows() + test.rows() + val.as_ref().map_or(0, Table::rows);
        return Err(Error::TooFewTrainingRows {
            test_fraction: a.test_fraction,
            val_fraction: a.val_fraction,
            left: train.rows(),
            total,
        });
    }
    let encoding = Preprocessor::fit(&train, &schema, &EncodeOptions::default())?;
    if a.test_data.is_some() {
        for note in encoding.read_notes(&test)? {
            notes.push(format!("{}: {note}", test.source));
        }
    }
    let labels = classify
        .then(|| class_labels(&train, &target))
        .transpose()?;
    if let Some(note) = labels.as_deref().and_then(|l| cased_alike(l, &target)) {
        notes.push(note);
    }
    let parts = [Some(&train), val.as_ref(), Some(&test)];
    let rows: Vec<usize> = parts.iter().map(|t| t.map_or(0, Table::rows)).collect();
    let need = EncodedNeed {
        held,
        rows: rows.iter().sum(),
        width: encoding.width(),
    };
    need.check(&a.data, a.memory_budget.as_ref())?;
    let encode = |t: &Table| -> Result<Dataset> {
        encoding
            .columns
            .iter()
            .filter(|e| matches!(e, io::table::ColumnEncoder::Number { .. }))
            .try_for_each(|e| t.refuse_too_large(e.column()))?;
        let y = match &labels {
            Some(l) => class_targets(t, &target, l)?,
            None => regression_targets_as(t, &target, &target_format)?,
        };
        let x = encoding.transform(t)?;
        let names = encoding.output_names();
        Ok(Dataset::new(x, y, t.rows(), names, vec![target.clone()])?)
    };
    Ok(Prepared {
        train: encode(&train)?,
        val: val.as_ref().map(&encode).transpose()?,
        test: (test.rows() > 0).then(|| encode(&test)).transpose()?,
        test_table: test,
        unlabeled: raw.unlabeled,
        labels,
        schema: SchemaReport::new(&schema, &encoding, &target),
        target: target.clone(),
        encoding,
        classify,
        notes,
        task_note,
        table_bytes: held,
        target_range: None,
    })
}

/// A note when two of the target's class `labels` differ only by case (`Yes`, `yes`): they
/// are learned as classes of their own, which the data rarely means.
fn cased_alike(labels: &[String], target: &str) -> Option<String> {
    let mut seen: Vec<(String, &str)> = Vec::with_capacity(labels.len());
    for label in labels {
        let lower = label.to_lowercase();
        if let Some((_, first)) = seen.iter().find(|(l, _)| *l == lower) {
            return Some(format!(
                "the classes `{first}` and `{label}` of `{target}` differ only by case: they are learned as two classes (write them alike to make them one)"
            ));
        }
        seen.push((lower, label));
    }
    None
}

/// What encoding a table holds at its peak, besides the table as read and the program itself
/// ([`PROGRAM_BYTES`](train::budget::PROGRAM_BYTES)): every row's encoded
/// features (training, validation and test rows; the fitted model scores the test rows
/// again [`io::fitted::PREDICT_ROWS`] at a time). The training tensor takes the training rows'
/// features over without a copy on the CPU.
struct EncodedNeed {
    /// Bytes of the table as read (its cells and dictionaries).
    held: usize,
    /// Rows encoded.
    rows: usize,
    /// Encoded columns.
    width: usize,
}

impl EncodedNeed {
    /// Bytes of the encoded rows (features and a target a row).
    fn encoded(&self) -> u64 {
        self.rows as u64 * (self.width as u64 + 1) * 4
    }

    /// Refuses, in one line saying how many rows would fit, an encoding that would not fit
    /// in `budget` beside the table.
    fn check(
        &self,
        data: &std::path::Path,
        budget: Option<&io::image::MemoryBudget>,
    ) -> Result<()> {
        let Some(budget) = budget else {
            return Ok(());
        };
        let program = train::budget::PROGRAM_BYTES as u64;
        let parts = self.held as u64 + self.encoded();
        let need = parts + program;
        if need <= budget.bytes {
            return Ok(());
        }
        let per_row = parts.div_ceil(self.rows.max(1) as u64).max(1);
        let human = |b: u64| io::image::human_bytes(b as f64);
        Err(Error::refused(format!(
            "encoding `{}` ({} rows into {} columns) takes about {} ({} of encoded rows beside \
             {} of the table as read), over the memory budget of {} ({}); about {} rows would fit",
            data.display(),
            self.rows,
            self.width,
            human(need),
            human(self.encoded()),
            human(self.held as u64),
            human(budget.bytes),
            budget.source,
            budget.bytes.saturating_sub(program) / per_row
        )))
    }
}

/// A seeded split of a table's rows: `(table, fraction, seed) -> (kept, held)`.
type SplitFn<'a> = dyn Fn(&Table, f32, u64) -> Result<(Table, Table)> + 'a;

/// The training and test rows: the file's own test part, a separate test file, or a
/// seeded share of the rows (drawn by `split`); rows without a target dropped (and, for a
/// regression, rows whose target is not a number).
fn test_split(
    a: &TableOptions,
    rows: Table,
    test: Option<Table>,
    target: &str,
    (classify, split): (bool, &SplitFn<'_>),
    notes: &mut Vec<String>,
) -> Result<(Table, Table)> {
    let drop = |t: Table, notes: &mut Vec<String>| -> Result<Table> {
        let t = drop_missing_targets(t, target, notes)?;
        match classify {
            true => Ok(t),
            false => drop_unreadable_targets(t, target, notes),
        }
    };
    let mut rows = drop(rows, notes)?;
    if a.drop_missing {
        rows = drop_incomplete_rows(rows, &a.overrides.ignore, notes)?;
    }
    match (&a.test_data, test) {
        (Some(path), _) => {
            let test = read_any(path, a.memory_budget.as_ref())?.rows;
            test.require(target)?;
            Ok((rows, drop(test, notes)?))
        }
        (None, Some(test)) => Ok((rows, drop(test, notes)?)),
        (None, None) if let Some(fold) = a.fold => {
            split_fold(&rows, fold, classify.then_some(target), a.seed)
        }
        (None, None) if a.test_fraction > 0.0 => split(&rows, a.test_fraction, a.seed),
        // A test fraction of 0: every row trains, and the test part is empty.
        (None, None) => {
            let none = rows.select_rows(&[])?;
            Ok((rows, none))
        }
    }
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
            None => Err(Error::refused(format!(
                "`{}` has the class `{}` ({}), which the training rows lack",
                table.source,
                io::table::shown(column.cell(r).text(&mut String::new())),
                table.place(r)
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 120 rows of 9 columns and a target: 4,800 bytes beside the 1,000 of the table, 49
    /// bytes a row.
    #[test]
    fn the_encoding_is_checked_against_the_budget() {
        let need = EncodedNeed {
            held: 1_000,
            rows: 120,
            width: 9,
        };
        assert_eq!(need.encoded(), 4_800);
        let program = train::budget::PROGRAM_BYTES as u64;
        let budget =
            |bytes| io::image::MemoryBudget::new(bytes + program, "IRON_LEARN_MEMORY_LIMIT");
        let path = std::path::Path::new("t.csv");
        assert!(need.check(path, Some(&budget(5_800))).is_ok());
        assert!(need.check(path, None).is_ok());
        let e = need
            .check(path, Some(&budget(2_900)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("about 59 rows would fit"), "{e}");
        assert!(e.contains("`t.csv` (120 rows into 9 columns)"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
