//! `linreg`, `logreg` and `mlp`: models of tabular data, with test-set reports.

use super::class_report::print_classification;
use super::matrix;
use super::regression_report::print_regression;
use super::tabular_auto;
use super::tabular_out::{prepare_table, print_coefficients};
use super::tabular_second::Second;
use crate::cli::{
    ActivationArg, ClassWeightArg, MlpArgs, ModelArg, NumberArgs, NumericEncodingArg,
    RegressionArgs, TaskArg,
};
use crate::device::Job;
use crate::report::run_dir;
use crate::session::Run;
use anyhow::{Result, bail};
use io::Standardizer;
use nn::{Activation, Data, Loss, Mlp};
use serde_json::{Map, Value};
use tensor_core::Backend;
use tensor_core::Tensor;
use train::metrics::Coefficients;
use train::metrics::lstsq::affordable;
use train::table::{Prepared, balance, network_targets};
use train::tabular::auto::{self, NumericEncoding};
use train::tabular::report::{TableData, TableExtra, TableRecord, TableRecordOptions, TableRows};
use train::tabular::report::{
    TabularMetrics, TestFigures, TrainingFigures, write_table_predictions,
};
use train::{LossUnits, Outcome};

/// Which model of the data to train.
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

    fn job(&self) -> &'static str {
        match self.model {
            Model::Linear => "linreg",
            Model::Logistic => "logreg",
            Model::Mlp { .. } => "mlp",
        }
    }

    /// The task when the command fixes it; `None` lets the target decide.
    fn task(&self) -> Option<bool> {
        match &self.model {
            Model::Linear => Some(false),
            Model::Logistic => Some(true),
            Model::Mlp { task, .. } => task.map(|t| t == TaskArg::Classification),
        }
    }

    /// How `mlp` reads numbers, as asked.
    fn numbers(&self) -> Option<&NumberArgs> {
        match &self.model {
            Model::Mlp { numbers, .. } => Some(numbers),
            _ => None,
        }
    }

    /// `auto` (choose by validation) or the network alone.
    fn choice(&self) -> ModelArg {
        match self.model {
            Model::Mlp { choice, .. } => choice,
            _ => ModelArg::Mlp,
        }
    }

    fn check_args(&self) -> Result<()> {
        let a = &self.data;
        if !(0.0..1.0).contains(&a.test_fraction) {
            bail!("--test-fraction must be in [0, 1), got {}", a.test_fraction);
        }
        if let Some(f) = a.val_fraction
            && !(0.0..1.0).contains(&f)
        {
            bail!("--val-fraction must be in [0, 1), got {f}");
        }
        if self.choice() == ModelArg::Auto && a.train.resume {
            bail!(
                "--resume continues one network's training; add --model mlp (the default, auto, compares several models and keeps one)"
            );
        }
        if let Model::Mlp { weight_decay, .. } = self.model
            && !(weight_decay.is_finite() && weight_decay >= 0.0)
        {
            bail!("--weight-decay must be 0 or more, got {weight_decay}");
        }
        Ok(())
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

/// The network a tabular job trains, from its options and the target.
pub(super) struct Network {
    architecture: nn::MlpConfig,
    hidden: Vec<usize>,
    activation: Activation,
    weight_decay: f32,
    out_dim: usize,
    loss: Loss,
}

impl Tabular {
    /// Refuses a target the job cannot learn; returns its number of classes (0: regression).
    fn check_target(&self, p: &Prepared) -> Result<usize> {
        let column = p.target.as_str();
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        if let (Model::Logistic, Some(labels)) = (&self.model, &p.labels)
            && classes != 2
        {
            let shown: Vec<&str> = labels.iter().take(6).map(String::as_str).collect();
            bail!(
                "logreg is binary but the column `{column}` has {classes} distinct values ({}{}); use `mlp --task classification` for more classes",
                shown.join(", "),
                if classes > 6 { ", ..." } else { "" }
            );
        }
        p.refuse_unlearnable()
            .map_err(super::tabular_out::task_advice)?;
        if self.data.class_weight.is_some() && classes == 0 {
            bail!("--class-weight applies to classes, but `{column}` is a regression target");
        }
        Ok(classes)
    }

    /// The network for `inputs` features and `classes` classes (0: regression).
    pub(super) fn network<B: Backend>(
        &self,
        inputs: usize,
        classes: usize,
        periodic: usize,
    ) -> Result<Network> {
        let out_dim = match classes {
            0 | 2 => 1,
            k => k,
        };
        let (hidden, activation, weight_decay) = match &self.model {
            Model::Mlp {
                hidden,
                activation,
                weight_decay,
                ..
            } => (
                crate::hidden::hidden_arg(hidden)?.0,
                hidden_activation(*activation),
                *weight_decay,
            ),
            _ => (Vec::new(), Activation::Identity, 0.0),
        };
        let loss = match out_dim {
            _ if classes == 0 => Loss::Mse,
            1 => Loss::BceWithLogits,
            _ => Loss::SoftmaxCrossEntropy,
        };
        let mut builder = Mlp::<B>::builder().input(inputs);
        if periodic > 0 {
            builder = builder.positional_encoding(periodic, true);
        }
        let architecture = builder
            .hidden(&hidden, activation)
            .output(out_dim, Activation::Identity)
            .config(self.data.train.seed)?;
        Ok(Network {
            architecture,
            hidden,
            activation,
            weight_decay,
            out_dim,
            loss,
        })
    }

    /// The job's entries of `config.json`: the data read and the options.
    fn record(&self, p: &Prepared, net: &Network, classes: usize) -> Result<Map<String, Value>> {
        let a = &self.data;
        let numbers = self.numbers();
        let rows = TableRows::of(p);
        let data = TableData {
            file: train::record::DataFile::read(&a.data)?,
            rows,
            target: &p.target,
        };
        let options = TableRecordOptions {
            test_fraction: a.test_fraction,
            test_data: &a.test_data,
            val_fraction: a.val_fraction,
            drop_missing: a.drop_missing,
            patience_epochs: a.patience,
            task: if classes > 0 {
                "classification"
            } else {
                "regression"
            },
            class_weight: a.class_weight.map(|_| "balanced"),
            hidden: crate::hidden::Hidden(net.hidden.clone()).to_string(),
            activation: format!("{:?}", net.activation).to_lowercase(),
            weight_decay: net.weight_decay,
            categorical: &a.categorical,
            numeric: &a.numeric,
            ignore: &a.ignore,
            numeric_encoding: numbers.and_then(|n| n.numeric_encoding).map(|e| match e {
                NumericEncodingArg::Plain => "plain",
                NumericEncodingArg::Periodic => "periodic",
                NumericEncodingArg::Piecewise => "piecewise",
            }),
            periodic: numbers.and_then(|n| n.periodic),
            bins: numbers.and_then(|n| n.bins),
        };
        Ok(train::record::entries(&TableRecord { data, options })?)
    }

    /// Trains the network on the rows of `train` whose features are `x` (taken over by the
    /// training tensor, without a copy on the CPU), validating on the prepared validation
    /// rows; gives `x` back with the outcome.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn train<B: Backend>(
        &self,
        backend: &B,
        p: &Prepared,
        (train, x): (&io::Dataset, Vec<f32>),
        net: &Network,
        targets: Option<&Standardizer>,
        dir: &std::path::Path,
    ) -> Result<(Outcome<Mlp<B>>, Vec<f32>)> {
        let a = &self.data;
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let matrices = |d: &io::Dataset| -> Result<_> {
            let y = network_targets(&d.y, classes, targets)?;
            Ok((
                matrix(backend, &d.x, d.rows, d.n_features)?,
                matrix(backend, &y, d.rows, net.out_dim)?,
            ))
        };
        let xt = Tensor::from_vec(backend, x, [train.rows, train.n_features])?;
        let yt = matrix(
            backend,
            &network_targets(&train.y, classes, targets)?,
            train.rows,
            net.out_dim,
        )?;
        let validation = p.val.as_ref().map(matrices).transpose()?;
        let run = Run {
            job: self.job(),
            dir: dir.to_path_buf(),
            args: &a.train,
            defaults: if net.hidden.is_empty() {
                crate::defaults::LINEAR
            } else {
                crate::defaults::mlp(train.rows)
            },
            architecture: net.architecture.clone(),
            loss: net.loss,
            extra: serde_json::to_value(TableExtra {
                targets,
                classes: &p.labels,
                feature_names: &train.feature_names,
                target_name: &p.target,
            })?,
            info: p.model_info(targets),
            early_stopping: auto::early_stopping(self.choice() == ModelArg::Auto, a.patience, p),
            pool: 1,
            output_bias: None,
            record: self.record(p, net, classes)?,
            loss_units: match targets {
                Some(t) => LossUnits::target_mse(t.std[0]),
                None => LossUnits::plain(net.loss),
            },
            weight_decay: net.weight_decay,
            held_beside: p.held_bytes() as f64,
        };
        let val_data = validation.as_ref().map(|(x, y)| Data::new(x, y));
        let outcome = run.train(backend, Data::new(&xt, &yt), val_data)?;
        Ok((outcome, xt.into_vec()?))
    }
}

impl Job for Tabular {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        self.check_args()?;
        let a = &tabular_auto::data_options(self.choice(), &self.data);
        let (first, second) = tabular_auto::numeric_encodings(self.choice(), self.numbers())?;
        let mut p = prepare_table(a, self.task())?;
        let classes = self.check_target(&p)?;
        if let Some(NumericEncoding::Piecewise(bins)) = first {
            tabular_auto::refuse_piecewise_beyond_budget(&p, bins)?;
            let mut parts = p.piecewise(&p.train.x, bins)?;
            p.swap_encoded(&mut parts);
        }
        // The training rows' features move into the training tensor and back: one copy.
        let (balanced, x) = match a.class_weight {
            Some(ClassWeightArg::Balanced) => {
                let (mut rows, most) = balance(&p.train, classes)?;
                println!(
                    "note: --class-weight balanced: each class repeated to {most} training rows ({} in all)",
                    rows.rows
                );
                let x = std::mem::take(&mut rows.x);
                (Some(rows), x)
            }
            None => (None, std::mem::take(&mut p.train.x)),
        };
        let train = balanced.as_ref().unwrap_or(&p.train);
        let targets = (classes == 0)
            .then(|| Standardizer::fit(&train.y, 1))
            .transpose()?;
        let bands = match first {
            Some(NumericEncoding::Periodic(n)) => n,
            _ => 0,
        };
        let net = self.network::<B>(train.n_features, classes, bands)?;
        let dir = run_dir::prepare(&a.train, self.job())?;
        let train_rows = p.train.rows;
        let (out, x) = self.train(backend, &p, (train, x), &net, targets.as_ref(), &dir)?;
        let compare = self.choice() == ModelArg::Auto && balanced.is_none();
        let (out, x, choice) = match compare {
            true => {
                let second = auto::second_network(first, second, &p).map(|inputs| Second {
                    inputs,
                    classes,
                    targets: targets.as_ref(),
                    dir: &dir,
                    third: auto::third_network(inputs, second),
                });
                self.compare(backend, &mut p, (out, x), second, targets.as_ref())?
            }
            false => (out, x, None),
        };
        // The features are read again only by the least-squares reference of a regression.
        let reference = classes == 0 && affordable(train_rows, p.train.n_features);
        if balanced.is_none() && reference {
            p.train.x = x;
        } else {
            drop(x);
        }
        self.report(&p, out, &net, targets.as_ref(), &dir, choice)
    }
}

impl Tabular {
    /// Scores the trained model on the test rows, prints and writes the figures, the schema
    /// and the predictions.
    fn report<B: Backend>(
        &self,
        p: &Prepared,
        out: Outcome<Mlp<B>>,
        net: &Network,
        targets: Option<&Standardizer>,
        dir: &std::path::Path,
        selected: Option<auto::Selected>,
    ) -> Result<()> {
        let resave = selected.as_ref().is_some_and(|s| s.resave);
        let choice = selected.map(|s| s.choice);
        let kept_linear = choice
            .as_ref()
            .is_some_and(|c| c.kept == train::tabular::Kept::Linear);
        let linear = net.hidden.is_empty() || kept_linear;
        let coefficients = linear.then(|| out.model.export_state()).transpose()?;
        train::record::write_file(
            &dir.join("schema.json"),
            serde_json::to_string_pretty(&serde_json::to_value(&p.schema)?)?.as_bytes(),
        )?;
        let summary = out.summary();
        let training = TrainingFigures::of(&out);
        let fitted = io::FittedModel::new(out.model, p.model_info(targets))?;
        if resave {
            // The run's checkpoint holds another candidate: the kept model replaces it.
            fitted.save(dir.join(train::checkpoint::FILE_NAME))?;
        }
        // The test figures come from the fitted model on the raw test rows: exactly what
        // `predict` gives for them.
        let test = TestFigures::of(&fitted, p, targets, net.out_dim)?;
        self.print_test(p, &test);
        let coefficients = coefficients
            .as_deref()
            .and_then(|state| Coefficients::of_linear(state, &p.train.feature_names, targets));
        if let Some(c) = &coefficients {
            print_coefficients(c, &p.labels);
        }
        println!("{summary}; results in {}", dir.display());
        self.write_predictions(p, &fitted, dir)?;
        let metrics = TabularMetrics::new(p, training, test, coefficients, choice);
        run_dir::write_metrics(dir, &metrics)
    }

    /// Prints the test figures.
    fn print_test(&self, p: &Prepared, test: &TestFigures) {
        match test {
            TestFigures::Classes(r) => print_classification(r, p.test.rows),
            TestFigures::Regression(r) => {
                let shape = (p.train.rows, p.train.n_features);
                print_regression(r, shape, p.test.rows, self.job() == "linreg");
            }
        }
    }

    /// Writes the test rows' predictions, and those of the rows given without targets.
    fn write_predictions<B: Backend>(
        &self,
        p: &Prepared,
        fitted: &io::FittedModel<B>,
        dir: &std::path::Path,
    ) -> Result<()> {
        let path = dir.join("test_predictions.csv");
        write_table_predictions(&path, fitted, &p.test_table, Some(&p.target))?;
        if let Some(rows) = &p.unlabeled {
            let path = dir.join("predictions.csv");
            write_table_predictions(&path, fitted, rows, None)?;
            println!(
                "predicted the {} rows given without targets: {}",
                rows.rows(),
                path.display()
            );
        }
        Ok(())
    }
}
