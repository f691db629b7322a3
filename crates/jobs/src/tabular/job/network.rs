//! The networks a table job trains: their shape from the options and the target, their
//! record, and their training run in a folder.

use super::drop_outs::DropOuts;
use super::options::{TableJobOptions, TableModel};
use super::part::{PartRows, part_features, part_matrix};
use crate::Result;
use crate::error::Error;
use crate::table::{Encoded, Prepared, network_targets};
use crate::tabular::auto;
use crate::tabular::report::{TableData, TableExtra, TableRecord, TableRecordOptions, TableRows};
use io::{Dataset, Standardizer};
use nn::{Activation, Data, HiddenLayers, Loss, Mlp};
use serde_json::{Map, Value};
use std::path::Path;
use tensor_core::{Backend, Tensor};
use train::record::DataFile;
use train::{DataSummary, LossUnits, Outcome, Reporter, RunData};

/// The network a table job trains, from its options and the target.
#[derive(Clone)]
pub(super) struct Network {
    pub(super) architecture: nn::MlpConfig,
    pub(super) hidden: Vec<usize>,
    activation: Activation,
    weight_decay: f32,
    pub(super) out_dim: usize,
    loss: Loss,
}

/// What trains a table job's networks: its options and the device (shared by networks
/// trained side by side), and how a network's run relates to the other processes.
pub(super) struct Trainer<'a, B: Backend> {
    pub(super) options: &'a TableJobOptions,
    pub(super) backend: &'a B,
    pub(super) mode: RunMode,
    /// Where `auto`'s networks after the first drop out when they diverge (`None`: a
    /// divergence fails the job).
    pub(super) drop_outs: Option<&'a DropOuts<'a>>,
    /// How a regression's targets are standardized for the networks (`None`: classes).
    pub(super) targets: Option<&'a Standardizer>,
}

/// How a network's run relates to the other processes of a run over several
/// ([`train::ranks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunMode {
    /// Every process computes a share of each step (and a process alone trains it all).
    Shared,
    /// This process trains the whole network.
    Alone,
    /// Another process trained it: this one loads it from the files it sent.
    Reload,
}

impl<B: Backend> Clone for Trainer<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Backend> Copy for Trainer<'_, B> {}

/// The rows a network trains and validates on (the table's parts in the network's
/// encoding, its training features borrowed on the device), and what its model file says of
/// them.
pub(super) struct NetworkRows<'a, B: Backend> {
    /// The training rows (their targets and shape; their features are `x`).
    pub(super) train: &'a Dataset,
    /// The training features, on the device.
    pub(super) x: &'a Tensor<B>,
    /// The validation rows.
    pub(super) val: Option<&'a Dataset>,
    /// The model file's description of the inputs and targets.
    pub(super) info: io::ModelInfo,
    /// This process's part of the rows, where it holds only its part on the device (`x` is
    /// then the part's features, `train` and `val` still the whole sets').
    pub(super) part: Option<PartRows>,
}

impl<'a, B: Backend> NetworkRows<'a, B> {
    /// The parts of `p` in its own encoding, training on `train` (the balanced rows, or
    /// `p`'s), whose features are `x`.
    pub(super) fn of(
        p: &'a Prepared,
        train: &'a Dataset,
        x: &'a Tensor<B>,
        targets: Option<&Standardizer>,
    ) -> Self {
        NetworkRows {
            train,
            x,
            val: p.val.as_ref(),
            info: p.model_info(targets),
            part: None,
        }
    }

    /// The parts of `p` in the encoding `parts` (piecewise-linear rows), whose training
    /// features are `x`.
    pub(super) fn encoded(
        p: &Prepared,
        parts: &'a Encoded,
        x: &'a Tensor<B>,
        targets: Option<&Standardizer>,
    ) -> Self {
        NetworkRows {
            train: &parts.train,
            x,
            val: parts.val.as_ref(),
            info: p.model_info_with(&parts.encoding, targets),
            part: None,
        }
    }
}

impl<B: Backend> NetworkRows<'_, B> {
    /// The rows with `x` the features of this process's `part` of them.
    pub(super) fn in_part(self, part: Option<PartRows>) -> Self {
        NetworkRows { part, ..self }
    }
}

impl Network {
    /// The same network trained without weight decay (plain Adam), when it has some.
    pub(super) fn without_weight_decay(&self) -> Option<Network> {
        (self.weight_decay > 0.0).then(|| Network {
            weight_decay: 0.0,
            ..self.clone()
        })
    }
}

impl<B: Backend> Trainer<'_, B> {
    /// The network for `inputs` features and `classes` classes (0: regression), with
    /// `periodic` encoding bands, learning a factor per input when `scale` (a network with
    /// hidden layers only).
    pub(super) fn network(
        &self,
        inputs: usize,
        classes: usize,
        periodic: usize,
        scale: bool,
    ) -> Result<Network> {
        let out_dim = match classes {
            0 | 2 => 1,
            k => k,
        };
        let (hidden, activation, weight_decay) = match &self.options.model {
            TableModel::Network(n) => (n.hidden.0.clone(), n.activation, n.weight_decay),
            _ => (Vec::new(), Activation::Identity, 0.0),
        };
        let loss = match out_dim {
            _ if classes == 0 => Loss::Mse,
            1 => Loss::BceWithLogits,
            _ => Loss::SoftmaxCrossEntropy,
        };
        let scale = scale && !hidden.is_empty();
        let mut builder = Mlp::<B>::builder().input(inputs).input_scale(scale);
        if periodic > 0 {
            builder = builder.positional_encoding(periodic, true);
        }
        let architecture = builder
            .hidden(&hidden, activation)
            .output(out_dim, Activation::Identity)
            .config(self.options.training.seed)?;
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
        let a = &self.options.data;
        let numbers = self.options.numbers();
        let data = TableData {
            file: DataFile::read(&a.data)?,
            rows: TableRows::of(p),
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
            class_weight: a.balanced.then_some("balanced"),
            hidden: HiddenLayers(net.hidden.clone()).to_string(),
            activation: format!("{:?}", net.activation).to_lowercase(),
            weight_decay: net.weight_decay,
            categorical: &a.overrides.categorical,
            numeric: &a.overrides.numeric,
            ignore: &a.overrides.ignore,
            numeric_encoding: numbers.and_then(|n| n.encoding).map(|e| e.name()),
            periodic: numbers.and_then(|n| n.periodic),
            bins: numbers.and_then(|n| n.bins),
        };
        Ok(train::record::entries(&TableRecord { data, options })?)
    }

    /// Trains the network `net` in `dir` on `rows`, reporting its progress to `reporter`.
    pub(super) fn train<R: Reporter + ?Sized>(
        self,
        p: &Prepared,
        net: &Network,
        rows: &NetworkRows<'_, B>,
        dir: &Path,
        reporter: &mut R,
    ) -> Result<Outcome<Mlp<B>>> {
        let (backend, targets) = (self.backend, self.targets);
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let net_targets = |d: &Dataset| network_targets(&d.y, classes, targets);
        let train = rows.train;
        let y = net_targets(train)?;
        let whole = |d: &Dataset| 0..d.rows;
        let (train_part, val_part) = match &rows.part {
            Some(part) => (part.train.clone(), part.val.clone()),
            None => (whole(train), rows.val.map_or(0..0, whole)),
        };
        let yt = part_matrix(backend, &y, net.out_dim, &train_part)?;
        let validation = match rows.val {
            Some(v) => Some((
                part_features(backend, v, &val_part)?,
                part_matrix(backend, &net_targets(v)?, net.out_dim, &val_part)?,
            )),
            None => None,
        };
        let val_data = validation.as_ref().map(|(x, y)| Data::new(x, y));
        let extra = self.extra(p, train)?;
        let data = match &rows.part {
            Some(part) => {
                let summary = DataSummary::of_rows(&train.x, &y, train.rows, &extra)?;
                RunData::Part(Data::new(rows.x, &yt), summary, part.whole)
            }
            None => RunData::Tensors(Data::new(rows.x, &yt)),
        };
        let run = self.run(p, net, rows.info.clone(), dir, train, extra)?;
        let trained = run
            .reporter(reporter)
            .train::<B, Mlp<B>>(backend, data, val_data);
        let mut out = match (trained, self.drop_outs) {
            (Ok(out), _) => out,
            (Err(train::Error::Diverged(d)), Some(drop_outs)) if drop_outs.takes(dir) => {
                drop_outs.record(dir, d.to_string());
                return self.dropped_out(net);
            }
            (Err(e), _) => return Err(e.into()),
        };
        out.model = out.model.fold_input_scale()?;
        crate::plot::draw_loss(dir, &out.history, &out.loss_units)?;
        Ok(out)
    }

    /// What stands for a network that dropped out: its untrained weights, no step taken
    /// (the comparison leaves it out).
    pub(super) fn dropped_out(self, net: &Network) -> Result<Outcome<Mlp<B>>> {
        let seed = self.options.training.seed;
        Ok(Outcome {
            model: Mlp::from_config(self.backend, &net.architecture, seed)?,
            report: nn::TrainReport {
                steps: 0,
                steps_run: 0,
                epochs: 0,
                seconds: 0.0,
                final_train_loss: None,
                final_val_loss: None,
                history: Vec::new(),
                stopped_early: false,
                stop_reason: nn::StopReason::Completed,
            },
            history: Vec::new(),
            loss_units: LossUnits::plain(net.loss),
            elapsed: 0.0,
            first_step: 0,
            restored: None,
        })
    }

    /// What the run's checkpoint says of the table besides the tensors: the targets'
    /// standardization, the classes and the column names of `train`.
    fn extra(self, p: &Prepared, train: &Dataset) -> Result<Value> {
        let extra = TableExtra {
            targets: self.targets,
            classes: &p.labels,
            feature_names: &train.feature_names,
            target_name: &p.target,
        };
        serde_json::to_value(extra)
            .map_err(|e| Error::json("cannot encode the table model's data", e))
    }

    /// The training run of `net` in `dir` on `train` (its checkpoint's `extra`), before its
    /// data.
    fn run<'r>(
        self,
        p: &Prepared,
        net: &Network,
        info: io::ModelInfo,
        dir: &Path,
        train: &Dataset,
        extra: Value,
    ) -> Result<train::Run<'r>> {
        let (options, job, targets) = (self.options, self.options.job(), self.targets);
        let classes = p.labels.as_ref().map_or(0, Vec::len);
        let defaults = match net.hidden.is_empty() {
            true => crate::defaults::LINEAR,
            false => crate::defaults::mlp(train.rows),
        };
        let patience = options.data.patience;
        let loss_units = match targets {
            Some(t) => LossUnits::target_mse(t.std[0]),
            None => LossUnits::plain(net.loss),
        };
        let mut settings = options.training.settings(&defaults);
        if options.auto() && !dir.join(train::checkpoint::FILE_NAME).exists() {
            // `auto` resumed: a run the job had not started yet trains from the start.
            settings.resume = false;
        }
        let architecture = net.architecture.clone();
        let mut run = train::Run::new(job, dir, architecture, net.loss, settings)
            .extra(extra)
            .info(info)
            .early_stopping(auto::early_stopping(options.auto(), patience, p))
            .pool(1)
            .output_bias(None)
            .record(self.record(p, net, classes)?)
            .loss_units(loss_units)
            .weight_decay(net.weight_decay)
            .memory_check(train::budget::mlp_check(job, p.held_bytes() as f64));
        if let Some(flag) = &options.training.stop {
            run = run.stop_flag(flag.clone());
        }
        Ok(match self.mode {
            RunMode::Shared => run,
            RunMode::Alone => run.alone(),
            RunMode::Reload => run.alone().reloading(),
        })
    }
}
