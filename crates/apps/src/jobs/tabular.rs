//! `linreg`, `logreg` and `mlp`: models of tabular data. The job is the library's
//! ([`train::tabular::job`]); this converts the flags into its options and prints what it
//! returns ([`super::tabular_print`]).

use super::tabular_print::{Printer, print_outcome, task_advice};
use crate::cli::{
    ActivationArg, MlpArgs, ModelArg, NumberArgs, NumericEncodingArg, RegressionArgs, TaskArg,
};
use crate::device::Job;
use crate::report::run_dir;
use anyhow::Result;
use io::table::TypeOverrides;
use nn::Activation;
use tensor_core::Backend;
use train::tabular::job::{
    EncodingAsked, ModelChoice, NetworkOptions, NumberOptions, TableDataOptions, TableJob,
    TableJobOptions, TableModel, TableTask,
};

/// Which model of the data to train, as the flags ask.
#[derive(Debug, Clone)]
pub enum Model {
    /// A single linear layer, MSE loss.
    Linear,
    /// A single linear layer with a sigmoid, cross-entropy loss.
    Logistic,
    /// A multilayer network.
    Mlp {
        /// Regression or classification (`None`: from the target column).
        task: Option<TaskArg>,
        /// Hidden widths, as given to --hidden.
        hidden: String,
        /// Hidden activation.
        activation: ActivationArg,
        /// AdamW's weight decay (0: Adam).
        weight_decay: f32,
        /// The network alone, or the better of it and a linear model.
        choice: ModelArg,
        /// How the network reads numbers (with `auto`, the second network).
        numbers: NumberArgs,
    },
}

/// A tabular job: data options and the model.
pub struct Tabular {
    /// Data file, target column, split.
    pub data: RegressionArgs,
    /// The model.
    pub model: Model,
}

impl Tabular {
    /// `mlp` from its arguments.
    pub fn mlp(args: MlpArgs) -> Self {
        Tabular {
            data: args.data,
            model: Model::Mlp {
                task: args.task,
                hidden: args.hidden,
                activation: args.activation,
                weight_decay: args.weight_decay,
                choice: args.model,
                numbers: args.numbers,
            },
        }
    }

    /// The library's options for these flags.
    fn options(&self) -> Result<TableJobOptions> {
        let a = &self.data;
        Ok(TableJobOptions {
            data: TableDataOptions {
                data: a.data.clone(),
                target: a.target.clone(),
                test_data: a.test_data.clone(),
                test_fraction: a.test_fraction,
                val_fraction: a.val_fraction,
                patience: a.patience,
                drop_missing: a.drop_missing,
                overrides: TypeOverrides {
                    categorical: a.categorical.clone(),
                    numeric: a.numeric.clone(),
                    ignore: a.ignore.clone(),
                },
                balanced: a.class_weight.is_some(),
            },
            model: self.table_model()?,
            training: crate::session::choices(&a.train),
        })
    }

    /// The library's model for these flags.
    fn table_model(&self) -> Result<TableModel> {
        Ok(match &self.model {
            Model::Linear => TableModel::Linear,
            Model::Logistic => TableModel::Logistic,
            Model::Mlp {
                task,
                hidden,
                activation,
                weight_decay,
                choice,
                numbers,
            } => TableModel::Network(NetworkOptions {
                task: task.map(|t| match t {
                    TaskArg::Regression => TableTask::Regression,
                    TaskArg::Classification => TableTask::Classification,
                }),
                hidden: crate::hidden::hidden_arg(hidden)?,
                activation: hidden_activation(*activation),
                weight_decay: *weight_decay,
                choice: match choice {
                    ModelArg::Auto => ModelChoice::Auto,
                    ModelArg::Mlp => ModelChoice::Network,
                },
                numbers: number_options(numbers),
            }),
        })
    }
}

fn hidden_activation(a: ActivationArg) -> Activation {
    match a {
        ActivationArg::Relu => Activation::Relu,
        ActivationArg::Tanh => Activation::Tanh,
        ActivationArg::Sigmoid => Activation::Sigmoid,
        ActivationArg::Sine => Activation::Sine { w0: 1.0 },
    }
}

fn number_options(n: &NumberArgs) -> NumberOptions {
    NumberOptions {
        encoding: n.numeric_encoding.map(|e| match e {
            NumericEncodingArg::Plain => EncodingAsked::Plain,
            NumericEncodingArg::Periodic => EncodingAsked::Periodic,
            NumericEncodingArg::Piecewise => EncodingAsked::Piecewise,
        }),
        periodic: n.periodic,
        bins: n.bins,
    }
}

impl Job for Tabular {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let options = self.options()?;
        let args = &self.data.train;
        let mut printer = Printer::new(&self.data.data, args);
        let job = TableJob::prepare(&options, &mut printer).map_err(task_advice)?;
        let dir = run_dir::prepare(args, job.job())?;
        let job = job.stop_flag(crate::signals::watch());
        let outcome = job.train(backend, &dir, &mut printer)?;
        print_outcome(&outcome, matches!(self.model, Model::Linear));
        if crate::signals::received().is_some() {
            // The signal's name and step join the figures.
            run_dir::write_metrics(&dir, &outcome.metrics)?;
        }
        Ok(())
    }
}
