//! `linreg`, `logreg` and `mlp`: models of tabular data. The job and its report's text
//! are the library's ([`jobs::tabular::job`]); this converts the flags into its options
//! and prints what it returns ([`super::tabular_print`]).

use super::tabular_print::{Printer, print_outcome, task_advice};
use crate::cli::{
    ActivationArg, MlpArgs, ModelArg, NumericEncodingArg, PortfolioArg, RegressionArgs, TaskArg,
};
use crate::device::Job;
use crate::report::run_dir;
use anyhow::Result;
use io::table::TypeOverrides;
use jobs::defaults::{MLP_FOLDS, MLP_FOLDS_MAX_ROWS};
use jobs::tabular::job::{
    DEFAULT_TEST_FRACTION, EncodingAsked, ModelChoice, NetworkOptions, NumberOptions, Portfolio,
    TableDataOptions, TableJob, TableJobOptions, TableModel, TableTask, cross_validate,
};
use nn::Activation;
use tensor_core::Backend;

/// A tabular job: data options and the model.
pub struct Tabular {
    /// Data file, target column, split.
    pub data: RegressionArgs,
    /// The model.
    pub model: TableModel,
}

/// The library's network for the flags of `mlp`; what they leave out takes
/// [`NetworkOptions::default`].
pub fn network(args: &MlpArgs) -> Result<TableModel> {
    let n = &args.numbers;
    let default = NetworkOptions::default();
    Ok(TableModel::Network(NetworkOptions {
        task: args.task.map(task),
        hidden: crate::cli_values::hidden_arg(&args.hidden)?,
        activation: args.activation.map_or(default.activation, activation),
        weight_decay: args.weight_decay,
        choice: args.model.map_or(default.choice, choice),
        portfolio: args.portfolio.map_or(default.portfolio, portfolio),
        numbers: NumberOptions {
            encoding: n.numeric_encoding.map(encoding),
            periodic: n.periodic,
            bins: n.bins,
        },
    }))
}

/// The library's task for `--task`.
fn task(t: TaskArg) -> TableTask {
    match t {
        TaskArg::Regression => TableTask::Regression,
        TaskArg::Classification => TableTask::Classification,
    }
}

/// The library's hidden activation for `--activation`.
pub fn activation(a: ActivationArg) -> Activation {
    match a {
        ActivationArg::Relu => Activation::Relu,
        ActivationArg::Tanh => Activation::Tanh,
        ActivationArg::Sigmoid => Activation::Sigmoid,
        ActivationArg::Sine => Activation::Sine { w0: 1.0 },
    }
}

/// The library's choice for `--model`.
pub fn choice(m: ModelArg) -> ModelChoice {
    match m {
        ModelArg::Auto => ModelChoice::Auto,
        ModelArg::Mlp => ModelChoice::Network,
    }
}

/// The library's portfolio for `--portfolio`.
pub fn portfolio(p: PortfolioArg) -> Portfolio {
    match p {
        PortfolioArg::Small => Portfolio::Small,
        PortfolioArg::Full => Portfolio::Full,
    }
}

/// The library's encoding for `--numeric-encoding`.
fn encoding(e: NumericEncodingArg) -> EncodingAsked {
    match e {
        NumericEncodingArg::Plain => EncodingAsked::Plain,
        NumericEncodingArg::Periodic => EncodingAsked::Periodic,
        NumericEncodingArg::Piecewise => EncodingAsked::Piecewise,
    }
}

impl Tabular {
    /// Whether `mlp` works over folds without being asked: no test fraction and no folds
    /// asked for, a fresh run, and a CSV or Parquet file (a JSON data set may hold its own
    /// test part); with a test file, only where the model is bagged over them
    /// ([`TableJobOptions::bags_over_folds`]).
    fn cross_validates_by_default(&self, options: &TableJobOptions) -> bool {
        let a = &self.data;
        let json = a
            .data
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let asked = a.test_fraction.is_some() || a.folds.is_some();
        let test_file = a.test_data.is_some() && !options.bags_over_folds();
        matches!(self.model, TableModel::Network(_))
            && !asked
            && !a.train.resume
            && !json
            && !test_file
    }

    /// The library's options for these flags.
    fn options(&self) -> TableJobOptions {
        let a = &self.data;
        let mut options = TableJobOptions {
            data: TableDataOptions {
                data: a.data.clone(),
                target: a.target.clone(),
                test_data: a.test_data.clone(),
                test_fraction: a.test_fraction.unwrap_or(DEFAULT_TEST_FRACTION),
                val_fraction: a.val_fraction,
                patience: a.patience,
                drop_missing: a.drop_missing,
                overrides: TypeOverrides {
                    categorical: a.categorical.clone(),
                    numeric: a.numeric.clone(),
                    ignore: a.ignore.clone(),
                },
                balanced: a.class_weight.is_some(),
                folds: a.folds,
                folds_up_to_rows: None,
                fold: None,
            },
            model: self.model.clone(),
            training: crate::session::choices(&a.train),
        };
        if self.cross_validates_by_default(&options) {
            options.data.folds = Some(MLP_FOLDS);
            options.data.folds_up_to_rows = Some(MLP_FOLDS_MAX_ROWS);
        }
        options
    }
}

impl Job for Tabular {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let options = self.options();
        let args = &self.data.train;
        if let Some(out) = &args.out {
            options
                .check_resumed_task(out)
                .and_then(|()| options.check_auto_resumable(out))
                .map_err(jobs::Error::from)?;
        }
        let mut printer = Printer::new(args);
        if options.data.folds.is_some() {
            let dir = run_dir::prepare(args, options.job())?;
            let mut options = options;
            options.training.stop = Some(crate::signals::watch());
            let outcome =
                cross_validate(&options, backend, &dir, &mut printer).map_err(task_advice)?;
            print_outcome(&outcome);
            return run_dir::write_if_stopped(&dir, &outcome.metrics);
        }
        let job = TableJob::prepare(&options, &mut printer).map_err(task_advice)?;
        let dir = run_dir::prepare(args, job.job())?;
        let job = job.stop_flag(crate::signals::watch());
        let outcome = job.train(backend, &dir, &mut printer)?;
        print_outcome(&outcome);
        run_dir::write_if_stopped(&dir, &outcome.metrics)
    }
}
