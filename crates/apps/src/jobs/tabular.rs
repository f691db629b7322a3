//! `linreg`, `logreg` and `mlp`: models of tabular data, with test-set reports.

use super::matrix;
use super::predict::write_predictions;
use super::regression_report;
use crate::cli::{ActivationArg, MlpArgs, RegressionArgs, TaskArg};
use crate::device::Job;
use crate::report::{metrics, run_dir, run_record};
use crate::session::Run;
use anyhow::{Result, bail};
use io::dataset::{CsvOptions, LoadOptions, load_dataset, train_test_split};
use io::{Dataset, Standardizer};
use nn::{Activation, Data, Loss, Mlp};
use serde_json::{Map, Value, json};
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
        /// Regression or classification.
        task: TaskArg,
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

    fn classifies(&self) -> bool {
        matches!(
            self.model,
            Model::Logistic
                | Model::Mlp {
                    task: TaskArg::Classification,
                    ..
                }
        )
    }
}

/// Class labels found in the training targets, mapped to 0..k.
struct Classes(Vec<f32>);

impl Classes {
    fn find(y: &[f32]) -> Result<Self> {
        let mut values: Vec<f32> = y.to_vec();
        values.sort_by(f32::total_cmp);
        values.dedup();
        if values.len() < 2 {
            bail!(
                "the target column has a single value ({:?}); there is nothing to classify",
                values.first()
            );
        }
        if values.len() > 100 {
            bail!(
                "the target column has {} distinct values; is this a regression target? (use --task regression)",
                values.len()
            );
        }
        Ok(Classes(values))
    }

    fn index(&self, v: f32) -> Option<usize> {
        self.0.iter().position(|&c| c == v)
    }

    /// Targets as 0/1 (two classes) or one-hot rows.
    fn encode(&self, y: &[f32]) -> Result<Vec<f32>> {
        let k = self.width();
        let mut out = vec![0f32; y.len() * k];
        for (r, &v) in y.iter().enumerate() {
            let Some(i) = self.index(v) else {
                bail!("the test set has the label {v}, which the training set lacks");
            };
            if k == 1 {
                out[r] = i as f32;
            } else {
                out[r * k + i] = 1.0;
            }
        }
        Ok(out)
    }

    fn width(&self) -> usize {
        if self.0.len() == 2 { 1 } else { self.0.len() }
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

/// Splits `fraction` of the training rows off for validation (seeded; none when that is less
/// than one row).
fn split_validation(
    train: Dataset,
    fraction: f32,
    seed: u64,
) -> Result<(Dataset, Option<Dataset>)> {
    let rows = (train.rows as f64 * f64::from(fraction)).round() as usize;
    if fraction == 0.0 || rows == 0 || train.rows < 4 {
        return Ok((train, None));
    }
    let split = train_test_split(&train, fraction, seed.wrapping_add(1))?;
    Ok((split.train, split.test))
}

impl Job for Tabular {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let a = &self.data;
        if !(0.0..1.0).contains(&a.test_fraction) {
            bail!("--test-fraction must be in [0, 1), got {}", a.test_fraction);
        }
        let options = LoadOptions {
            csv: CsvOptions {
                targets: a.target.iter().cloned().collect(),
                drop_missing: a.drop_missing,
                ..CsvOptions::default()
            },
            test_fraction: Some(a.test_fraction).filter(|&f| f > 0.0),
            seed: a.train.seed,
            ..LoadOptions::default()
        };
        if a.patience == Some(0) {
            bail!("--patience must be at least 1 epoch");
        }
        if !(0.0..1.0).contains(&a.val_fraction) {
            bail!("--val-fraction must be in [0, 1), got {}", a.val_fraction);
        }
        let split = load_dataset(&a.data, &options)?;
        if split.train.n_targets != 1 {
            bail!(
                "expected one target column, found {}",
                split.train.n_targets
            );
        }
        if split.test.is_none() {
            bail!(
                "--test-fraction 0 leaves no rows to test on ({} has no test part); use a fraction such as 0.2",
                a.data.display()
            );
        }
        let test = split.test.unwrap_or_else(|| split.train.clone());
        let (train, val) = split_validation(split.train, a.val_fraction, a.train.seed)?;
        let job = self.job();
        let dir = run_dir::prepare(&a.train, job)?;
        let features = Standardizer::fit(&train.x, train.n_features)?;
        let x_train = features.transform(&train.x)?;
        let x_test = features.transform(&test.x)?;
        let classes = if self.classifies() {
            Some(Classes::find(&train.y)?)
        } else {
            None
        };
        let column = train.target_names.first().map_or("target", String::as_str);
        if let (Model::Logistic, Some(c)) = (&self.model, &classes)
            && c.0.len() != 2
        {
            let shown: Vec<String> = c.0.iter().take(6).map(f32::to_string).collect();
            bail!(
                "logreg is binary but the column `{column}` has {} distinct values ({}{}); use `mlp --task classification` for more classes",
                c.0.len(),
                shown.join(", "),
                if c.0.len() > 6 { ", ..." } else { "" }
            );
        }
        if classes.is_none()
            && let Some(&first) = train.y.first()
            && train.y.iter().all(|&v| v == first)
        {
            bail!(
                "the target column `{column}` is constant (every training row holds {first}); there is nothing to learn"
            );
        }
        let targets = if classes.is_none() {
            Some(Standardizer::fit(&train.y, 1)?)
        } else {
            None
        };
        let encode = |y: &[f32]| -> Result<Vec<f32>> {
            match (&classes, &targets) {
                (Some(c), _) => c.encode(y),
                (None, Some(t)) => Ok(t.transform(y)?),
                _ => unreachable!("either classes or target statistics exist"),
            }
        };
        let y_train = encode(&train.y)?;
        // Every test label must be one the model can predict.
        encode(&test.y)?;
        let y_val = val.as_ref().map(|v| encode(&v.y)).transpose()?;
        let out_dim = classes.as_ref().map_or(1, Classes::width);
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
        if !(weight_decay.is_finite() && weight_decay >= 0.0) {
            bail!("--weight-decay must be 0 or more, got {weight_decay}");
        }
        let architecture = Mlp::<B>::builder()
            .input(train.n_features)
            .hidden(&hidden, act)
            .output(out_dim, Activation::Identity)
            .config(a.train.seed)?;
        let target_name = train.target_names.first().map_or("target", String::as_str);
        let info = match (&classes, &targets) {
            (Some(c), _) => {
                io::ModelInfo::classification(&train.feature_names, target_name, c.0.clone())
            }
            (None, Some(t)) => {
                io::ModelInfo::regression(&train.feature_names, &[target_name.to_string()])
                    .with_targets(t.clone())
            }
            _ => unreachable!("either classes or target statistics exist"),
        }
        .with_features(features.clone());
        let loss = match out_dim {
            _ if classes.is_none() => Loss::Mse,
            1 => Loss::BceWithLogits,
            _ => Loss::SoftmaxCrossEntropy,
        };
        let xt = matrix(backend, &x_train, train.rows, train.n_features)?;
        let yt = matrix(backend, &y_train, train.rows, out_dim)?;
        let xv = matrix(backend, &x_test, test.rows, test.n_features)?;
        let validation = match (&val, &y_val) {
            (Some(v), Some(y)) => Some((
                matrix(backend, &features.transform(&v.x)?, v.rows, v.n_features)?,
                matrix(backend, y, v.rows, out_dim)?,
            )),
            _ => None,
        };
        let deep = !hidden.is_empty();
        let val_rows = val.as_ref().map_or(0, |v| v.rows);
        let mut record = serde_json::Map::new();
        let mut data = run_record::data_file(&a.data)?;
        data["rows"] = json!({ "train": train.rows, "validation": val_rows, "test": test.rows });
        data["target"] = json!(train.target_names.first());
        record.insert("data".into(), data);
        record.insert(
            "options".into(),
            json!({
                "test_fraction": a.test_fraction,
                "val_fraction": a.val_fraction,
                "drop_missing": a.drop_missing,
                "patience_epochs": a.patience,
                "task": if classes.is_some() { "classification" } else { "regression" },
                "hidden": crate::hidden::Hidden(hidden.clone()).to_string(),
                "activation": format!("{act:?}").to_lowercase(),
                "weight_decay": weight_decay,
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
                "features": features,
                "targets": targets,
                "classes": classes.as_ref().map(|c| c.0.clone()),
                "feature_names": train.feature_names,
                "target_name": train.target_names.first(),
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
        let raw = out.model.predict(&xv)?.to_vec()?;
        let mut m = Map::new();
        match (&classes, &targets) {
            (Some(c), _) => report_classification(&mut m, c, &raw, &test, out_dim),
            (None, Some(t)) => regression_report::report_regression(
                &mut m,
                t,
                &raw,
                &train,
                &test,
                job == "linreg",
            )?,
            _ => unreachable!(),
        }
        let r = &out.report;
        println!("{}; results in {}", out.summary(), dir.display());
        m.insert("train_rows".into(), json!(train.rows));
        m.insert("validation_rows".into(), json!(val_rows));
        m.insert("test_rows".into(), json!(test.rows));
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
        // The fitted model's answers for the test rows (beside their targets), and for the
        // rows a JSON file gives without targets.
        let fitted = io::FittedModel::new(out.model, info)?;
        let truth = (target_name, test.y.as_slice());
        write_predictions(
            &dir.join("test_predictions.csv"),
            &fitted,
            &test.x,
            Some(truth),
        )?;
        if let Some(x) = &split.unlabeled_x {
            let path = dir.join("predictions.csv");
            write_predictions(&path, &fitted, x, None)?;
            println!(
                "predicted the {} rows given without targets: {}",
                x.len() / train.n_features,
                path.display()
            );
        }
        run_dir::write_metrics(&dir, &m)
    }
}

fn report_classification(
    m: &mut Map<String, Value>,
    classes: &Classes,
    raw: &[f32],
    test: &Dataset,
    width: usize,
) {
    let truth: Vec<f32> = test
        .y
        .iter()
        .map(|&v| classes.index(v).map_or(-1.0, |i| i as f32))
        .collect();
    if width == 1 {
        let pred: Vec<f32> = raw
            .iter()
            .map(|&z| if z > 0.0 { 1.0 } else { 0.0 })
            .collect();
        let c = metrics::binary_classification(&pred, &truth);
        println!(
            "test set ({} rows, positive class: {}):",
            test.rows, classes.0[1]
        );
        println!(
            "  accuracy  {:.4}   (always the majority class: {:.4})",
            c.accuracy, c.baseline_accuracy
        );
        println!(
            "  precision {:.4}   recall {:.4}   F1 {:.4}",
            c.precision, c.recall, c.f1
        );
        println!("  confusion matrix (rows: truth, columns: prediction)");
        println!("              pred 0  pred 1");
        println!(
            "    truth 0   {:>6}  {:>6}",
            c.confusion[0][0], c.confusion[0][1]
        );
        println!(
            "    truth 1   {:>6}  {:>6}",
            c.confusion[1][0], c.confusion[1][1]
        );
        m.insert("test_accuracy".into(), json!(c.accuracy));
        m.insert("test_precision".into(), json!(c.precision));
        m.insert("test_recall".into(), json!(c.recall));
        m.insert("test_f1".into(), json!(c.f1));
        m.insert("baseline_accuracy".into(), json!(c.baseline_accuracy));
        m.insert("confusion_matrix".into(), json!(c.confusion));
    } else {
        let pred: Vec<f32> = raw
            .chunks_exact(width)
            .map(|r| {
                r.iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .map_or(0.0, |(i, _)| i as f32)
            })
            .collect();
        let acc = metrics::multiclass_accuracy(&pred, &truth);
        let mut counts = vec![0usize; width];
        truth
            .iter()
            .filter(|&&t| t >= 0.0)
            .for_each(|&t| counts[t as usize] += 1);
        let baseline = counts.iter().max().copied().unwrap_or(0) as f64 / truth.len().max(1) as f64;
        println!("test set ({} rows, {width} classes):", test.rows);
        println!("  accuracy {acc:.4}   (always the majority class: {baseline:.4})");
        m.insert("test_accuracy".into(), json!(acc));
        m.insert("baseline_accuracy".into(), json!(baseline));
    }
}
