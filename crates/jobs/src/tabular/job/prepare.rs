//! [`TableJob::prepare`]: a table job's options checked and its table read, typed, split
//! and encoded, with the target checked against the model.

use super::encodings::{Inputs, numeric_encodings, refuse_piecewise_beyond_budget};
use super::error::TableRefusal;
use super::options::{ModelChoice, PATIENCE_VAL_FRACTION, TableJobOptions, TableModel};
use super::{TableNote, TableReporter};
use crate::Result;
use crate::table::{Prepared, TableOptions, balance};
use crate::tabular::auto::{NumericEncoding, validation_fraction};
use io::Dataset;

/// A table job ready to train: its options as it trains with them, and its table.
pub struct TableJob {
    /// The options, as asked.
    pub(super) options: TableJobOptions,
    /// The table's parts.
    pub(super) p: Prepared,
    /// Classes of the target (0: a regression).
    pub(super) classes: usize,
    /// The balanced training rows, when asked.
    pub(super) balanced: Option<Dataset>,
    /// The network's inputs and `auto`'s second network's, where asked.
    pub(super) inputs: Inputs,
}

impl TableJob {
    /// Checks the options, reads, types, splits and encodes the table (reporting it read),
    /// refuses a target that the model cannot learn, and balances the classes where asked.
    pub fn prepare(options: &TableJobOptions, reporter: &mut dyn TableReporter) -> Result<Self> {
        options.check()?;
        let options = options.clone();
        let choice = match &options.model {
            TableModel::Network(n) => n.choice,
            _ => ModelChoice::Network,
        };
        let inputs = numeric_encodings(choice, options.numbers())?;
        let started = std::time::Instant::now();
        let mut p = crate::table::prepare(&table_options(&options)?, options.classify())?;
        let seconds = started.elapsed().as_secs_f64();
        reporter.note(TableNote::Read {
            data: &options.data.data,
            prepared: &p,
            seconds,
        });
        let classes = check_target(&options, &p)?;
        if matches!(options.model, TableModel::Network(_)) {
            p.target_range = p.training_range(crate::defaults::MLP_TARGET_MARGIN);
        }
        if let (Some(NumericEncoding::Piecewise(bins)), _) = inputs {
            refuse_piecewise_beyond_budget(&p, bins)?;
            let mut parts = p.piecewise(&p.train.x, bins)?;
            p.swap_encoded(&mut parts);
        }
        let balanced = match options.data.balanced {
            true => {
                let (rows, most) = balance(&p.train, classes)?;
                let rows_now = rows.rows;
                reporter.note(TableNote::Balanced {
                    most,
                    rows: rows_now,
                });
                Some(rows)
            }
            false => None,
        };
        Ok(TableJob {
            options,
            p,
            classes,
            balanced,
            inputs,
        })
    }

    /// The job's name: `linreg`, `logreg` or `mlp`.
    pub fn job(&self) -> &'static str {
        self.options.job()
    }

    /// The job with a flag that, once set (by a signal handler), stops its run at the next
    /// step; the run checkpoints and the job reports what it has.
    pub fn stop_flag(mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.options.training.stop = Some(flag);
        self
    }

    /// The table's parts, as read and encoded.
    pub fn prepared(&self) -> &Prepared {
        &self.p
    }
}

/// How the table of a job is read and split.
fn table_options(options: &TableJobOptions) -> Result<TableOptions> {
    let d = &options.data;
    let patience = d.patience.map_or(0.0, |_| PATIENCE_VAL_FRACTION);
    let val_fraction = match options.auto() {
        true => validation_fraction(d.val_fraction),
        false => d.val_fraction.unwrap_or(patience),
    };
    Ok(TableOptions {
        data: d.data.clone(),
        target: d.target.clone(),
        test_data: d.test_data.clone(),
        test_fraction: d.test_fraction,
        val_fraction,
        drop_missing: d.drop_missing,
        overrides: d.overrides.clone(),
        seed: options.training.seed,
        memory_budget: train::budget::budget()?,
        fold: d.fold,
    })
}

/// Refuses a target the job cannot learn; returns its number of classes (0: regression).
fn check_target(options: &TableJobOptions, p: &Prepared) -> Result<usize> {
    let column = p.target.as_str();
    let classes = p.labels.as_ref().map_or(0, Vec::len);
    if let (TableModel::Logistic, Some(labels)) = (&options.model, &p.labels)
        && classes != 2
    {
        let shown: Vec<&str> = labels.iter().take(6).map(String::as_str).collect();
        let more = if classes > 6 { ", ..." } else { "" };
        return Err(TableRefusal::NotBinary {
            column: column.to_string(),
            classes,
            shown: format!("{}{more}", shown.join(", ")),
        }
        .into());
    }
    p.refuse_unlearnable()?;
    if options.data.balanced && classes == 0 {
        let column = column.to_string();
        return Err(TableRefusal::ClassWeightOfRegression { column }.into());
    }
    Ok(classes)
}
