//! `linreg`, `logreg` and `mlp`: models of tabular data, with test-set reports.

use super::class_report::{predicted_classes, report_classification};
use super::matrix;
use super::regression_report;
use super::tabular_out::{print_coefficients, write_table_predictions};
use super::tabular_prepare::{Prepared, prepare};
use crate::cli::{ActivationArg, ClassWeightArg, MlpArgs, RegressionArgs, TaskArg};
use crate::device::Job;
use crate::report::{run_dir, run_record};
use crate::session::Run;
use anyhow::{Result, bail};
use io::{ModelInfo, Standardizer};
use nn::{Activation, Data, Loss, Mlp};
use serde_json::{Map, json};
use tensor_core::Backend;
use train::LossUnits;

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

/// Targets as the network learns them: 0/1 (two classes), one-hot rows, or standardised
/// values.
fn network_targets(y: &[f32], classes: usize, targets: Option<&Standardizer>) -> Result<Vec<f32>> {
    if let Some(t) = targets {
        return Ok(t.transform(y)?);
    }
    if classes == 2 {
        return Ok(y.to_vec());
    }
    let mut out = vec![0f32; y.len() * classes];
    for (r, &i) in y.iter().enumerate() {
        out[r * classes + i as usize] = 1.0;
    }
    Ok(out)
}

/// The training rows with each class repeated up to the size of the largest
/// (`--class-weight balanced`): the same expected gradient as weighing class `c` by
/// `rows / (classes * rows_c)`, up to a common factor.
fn balance(train: &io::Dataset, classes: usize) -> Result<io::Dataset> {
    let mut by_class: Vec<Vec<usize>> = vec![Vec::new(); classes];
    for r in 0..train.rows {
        by_class[train.row_y(r)[0] as usize].push(r);
    }
    let most = by_class.iter().map(Vec::len).max().unwrap_or(0);
    let mut rows = Vec::with_capacity(most * classes);
    for members in by_class.iter().filter(|m| !m.is_empty()) {
        rows.extend((0..most).map(|i| members[i % members.len()]));
    }
    rows.sort_unstable();
    println!(
        "note: --class-weight balanced: each class repeated to {most} training rows ({} in all)",
        rows.len()
    );
    Ok(train.select_rows(&rows)?)
}

impl Job for Tabular {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        self.check_args()?;
        let a = &self.data;
        let p = prepare(a, self.task())?;
        let job = self.job();
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
        if classes > 100 {
            bail!(
                "the target column `{column}` has {classes} distinct values; is this a regression target? (use --task regression)"
            );
        }
        if classes == 0
            && let Some(&first) = p.train.y.first()
            && p.train.y.iter().all(|&v| v == first)
        {
            bail!(
                "the target column `{column}` is constant (every training row holds {first}); there is nothing to learn"
            );
        }
        if a.class_weight.is_some() && classes == 0 {
            bail!("--class-weight applies to classes, but `{column}` is a regression target");
        }
        let train = match a.class_weight {
            Some(ClassWeightArg::Balanced) => balance(&p.train, classes)?,
            None => p.train.clone(),
        };
        let targets = (classes == 0)
            .then(|| Standardizer::fit(&train.y, 1))
            .transpose()?;
        let out_dim = match classes {
            0 | 2 => 1,
            k => k,
        };
        let (hidden, act, weight_decay) = match &self.model {
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
        let architecture = Mlp::<B>::builder()
            .input(train.n_features)
            .hidden(&hidden, act)
            .output(out_dim, Activation::Identity)
            .config(a.train.seed)?;
        let info = model_info(&p, targets.as_ref());
        let loss = match out_dim {
            _ if classes == 0 => Loss::Mse,
            1 => Loss::BceWithLogits,
            _ => Loss::SoftmaxCrossEntropy,
        };
        let dir = run_dir::prepare(&a.train, job)?;
        let y_train = network_targets(&train.y, classes, targets.as_ref())?;
        let xt = matrix(backend, &train.x, train.rows, train.n_features)?;
        let yt = matrix(backend, &y_train, train.rows, out_dim)?;
        let validation = match &p.val {
            Some(v) => Some((
                matrix(backend, &v.x, v.rows, v.n_features)?,
                matrix(
                    backend,
                    &network_targets(&v.y, classes, targets.as_ref())?,
                    v.rows,
                    out_dim,
                )?,
            )),
            None => None,
        };
        let deep = !hidden.is_empty();
        let val_rows = p.val.as_ref().map_or(0, |v| v.rows);
        let mut record = Map::new();
        let mut data = run_record::data_file(&a.data)?;
        data["rows"] =
            json!({ "train": p.train.rows, "validation": val_rows, "test": p.test.rows });
        data["target"] = json!(column);
        record.insert("data".into(), data);
        record.insert(
            "options".into(),
            json!({
                "test_fraction": a.test_fraction,
                "test_data": a.test_data,
                "val_fraction": a.val_fraction,
                "drop_missing": a.drop_missing,
                "patience_epochs": a.patience,
                "task": if classes > 0 { "classification" } else { "regression" },
                "class_weight": a.class_weight.map(|_| "balanced"),
                "hidden": crate::hidden::Hidden(hidden.clone()).to_string(),
                "activation": format!("{act:?}").to_lowercase(),
                "weight_decay": weight_decay,
                "categorical": a.categorical,
                "numeric": a.numeric,
                "ignore": a.ignore,
            }),
        );
        let loss_units = match &targets {
            Some(t) => LossUnits::target_mse(t.std[0]),
            None => LossUnits::plain(loss),
        };
        let run = Run {
            job,
            dir: dir.clone(),
            args: &a.train,
            defaults: if deep {
                crate::defaults::mlp(train.rows)
            } else {
                crate::defaults::LINEAR
            },
            architecture,
            loss,
            extra: json!({
                "targets": targets,
                "classes": p.labels,
                "feature_names": train.feature_names,
                "target_name": column,
            }),
            info: info.clone(),
            early_stopping: a.patience.map(|p| nn::EarlyStopping::new(p, 0.0)),
            pool: 1,
            output_bias: None,
            record,
            loss_units,
            weight_decay,
        };
        let val_data = validation.as_ref().map(|(x, y)| Data::new(x, y));
        let out = run.train(backend, Data::new(&xt, &yt), val_data)?;
        let coefficients = (!deep).then(|| out.model.export_state()).transpose()?;
        let mut m = Map::new();
        let r = &out.report;
        let summary = out.summary();
        m.insert("train_rows".into(), json!(p.train.rows));
        m.insert("validation_rows".into(), json!(val_rows));
        m.insert("test_rows".into(), json!(p.test.rows));
        m.insert("final_train_loss".into(), json!(out.final_loss()));
        m.insert(
            "final_val_loss".into(),
            json!(
                r.final_val_loss
                    .map(|v| f64::from(v) * out.loss_units.scale)
            ),
        );
        m.insert("loss_units".into(), json!(out.loss_units.label));
        m.insert("steps".into(), json!(r.steps));
        m.insert("seconds".into(), json!(out.elapsed));
        if let Some((step, loss)) = out.restored {
            m.insert("restored_step".into(), json!(step));
            m.insert("restored_val_loss".into(), json!(loss));
        }
        m.insert("parameters".into(), json!(out.model.num_params()));
        crate::report::output::write_file(
            &dir.join("schema.json"),
            serde_json::to_string_pretty(&p.schema_json)?.as_bytes(),
        )?;
        let fitted = io::FittedModel::new(out.model, info)?;
        // The test figures come from the fitted model on the raw test rows: exactly what
        // `predict` gives for them.
        let raw = fitted.table_outputs(&p.test_table)?;
        match (&p.labels, &targets) {
            (Some(labels), _) => {
                let truth: Vec<usize> = p.test.y.iter().map(|&v| v as usize).collect();
                report_classification(&mut m, labels, &predicted_classes(&raw, out_dim), &truth);
            }
            (None, Some(t)) => regression_report::report_regression(
                &mut m,
                t,
                &raw,
                &p.train,
                &p.test,
                job == "linreg",
            )?,
            _ => unreachable!("either classes or target statistics exist"),
        }
        if let Some(state) = &coefficients {
            print_coefficients(
                &mut m,
                state,
                &p.train.feature_names,
                targets.as_ref(),
                &p.labels,
            );
        }
        println!("{summary}; results in {}", dir.display());
        write_table_predictions(
            &dir.join("test_predictions.csv"),
            &fitted,
            &p.test_table,
            Some(column),
        )?;
        if let Some(rows) = &p.unlabeled {
            let path = dir.join("predictions.csv");
            write_table_predictions(&path, &fitted, rows, None)?;
            println!(
                "predicted the {} rows given without targets: {}",
                rows.rows(),
                path.display()
            );
        }
        run_dir::write_metrics(&dir, &m)
    }
}

/// The fitted model's description: a plain standardisation when every column is a number
/// without gaps (the model file then reads as before tables had types), the whole encoding
/// otherwise.
fn model_info(p: &Prepared, targets: Option<&Standardizer>) -> ModelInfo {
    let names = p.encoding.output_names();
    let target = p.target.as_str();
    let info = match (&p.labels, targets) {
        (Some(labels), _) => {
            let numeric: Option<Vec<f32>> = labels.iter().map(|l| l.parse::<f32>().ok()).collect();
            match numeric {
                Some(values) => ModelInfo::classification(&names, target, values),
                None => ModelInfo::classification_labels(&names, target, labels.clone()),
            }
        }
        (None, Some(t)) => {
            ModelInfo::regression(&names, &[target.to_string()]).with_targets(t.clone())
        }
        (None, None) => ModelInfo::regression(&names, &[target.to_string()]),
    };
    match p.encoding.as_standardizer() {
        Some(s) => info.with_features(s),
        None => info.with_preprocessing(p.encoding.clone()),
    }
}
