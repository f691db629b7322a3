//! `linreg`, `logreg` and `mlp`: models of tabular data, with test-set reports.

use super::{matrix, seconds};
use crate::cli::{ActivationArg, MlpArgs, RegressionArgs, ScheduleArg, TaskArg};
use crate::device::Job;
use crate::report::{lstsq, metrics, run_dir};
use crate::session::{Defaults, Run};
use anyhow::{Result, bail};
use io::dataset::{CsvOptions, LoadOptions, load_dataset};
use io::{Dataset, Standardizer};
use nn::{Activation, Data, Loss, Mlp, TrainLength};
use serde_json::{Map, Value, json};
use tensor_core::Backend;

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
        /// Hidden widths.
        hidden: Vec<usize>,
        /// Hidden activation.
        activation: ActivationArg,
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
        let split = load_dataset(&a.data, &options)?;
        if split.test.is_none() {
            bail!(
                "--test-fraction 0 leaves no rows to test on ({} has no test part); use a fraction such as 0.2",
                a.data.display()
            );
        }
        let train = split.train;
        if train.n_targets != 1 {
            bail!("expected one target column, found {}", train.n_targets);
        }
        let test = split.test.unwrap_or_else(|| train.clone());
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
        let target_name = train.target_names.first().map_or("target", String::as_str);
        if let (Model::Logistic, Some(c)) = (&self.model, &classes)
            && c.0.len() != 2
        {
            let shown: Vec<String> = c.0.iter().take(6).map(f32::to_string).collect();
            bail!(
                "logreg is binary but the column `{target_name}` has {} distinct values ({}{}); use `mlp --task classification` for more classes",
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
                "the target column `{target_name}` is constant (every training row holds {first}); there is nothing to learn"
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
        let (y_train, y_test) = (encode(&train.y)?, encode(&test.y)?);
        let out_dim = classes.as_ref().map_or(1, Classes::width);
        let (hidden, act) = match &self.model {
            Model::Mlp {
                hidden, activation, ..
            } => (hidden.clone(), hidden_activation(*activation)),
            _ => (Vec::new(), Activation::Identity),
        };
        let architecture = Mlp::<B>::builder()
            .input(train.n_features)
            .hidden(&hidden, act)
            .output(out_dim, Activation::Identity)
            .config(a.train.seed)?;
        let loss = match out_dim {
            _ if classes.is_none() => Loss::Mse,
            1 => Loss::BceWithLogits,
            _ => Loss::SoftmaxCrossEntropy,
        };
        let xt = matrix(backend, &x_train, train.rows, train.n_features)?;
        let yt = matrix(backend, &y_train, train.rows, out_dim)?;
        let xv = matrix(backend, &x_test, test.rows, test.n_features)?;
        let yv = matrix(backend, &y_test, test.rows, out_dim)?;
        let deep = !hidden.is_empty();
        let run = Run {
            job,
            dir: dir.clone(),
            args: &a.train,
            defaults: Defaults {
                lr: if deep { 3e-3 } else { 0.05 },
                length: TrainLength::Epochs(if deep { 400 } else { 2000 }),
                batch: if deep && train.rows > 256 {
                    Some(64)
                } else {
                    None
                },
                schedule: ScheduleArg::Cosine,
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
            early_stopping: None,
            pool: 1,
            output_bias: None,
        };
        let out = run.train(backend, Data::new(&xt, &yt), Some(Data::new(&xv, &yv)))?;
        let raw = out.model.predict(&xv)?.to_vec()?;
        let mut m = Map::new();
        match (&classes, &targets) {
            (Some(c), _) => report_classification(&mut m, c, &raw, &test, out_dim),
            (None, Some(t)) => report_regression(&mut m, t, &raw, &train, &test, job == "linreg")?,
            _ => unreachable!(),
        }
        let r = &out.report;
        println!(
            "{} steps in {}; results in {}",
            r.steps,
            seconds(r.seconds),
            dir.display()
        );
        m.insert("train_rows".into(), json!(train.rows));
        m.insert("test_rows".into(), json!(test.rows));
        m.insert("final_train_loss".into(), json!(r.final_train_loss));
        m.insert("steps".into(), json!(r.steps));
        m.insert("seconds".into(), json!(r.seconds));
        m.insert("parameters".into(), json!(out.model.num_params()));
        run_dir::write_metrics(&dir, &m)
    }
}

fn report_regression(
    m: &mut Map<String, Value>,
    targets: &Standardizer,
    raw: &[f32],
    train: &Dataset,
    test: &Dataset,
    linear: bool,
) -> Result<()> {
    let pred = targets.inverse_transform(raw)?;
    let ours = metrics::regression(&pred, &test.y);
    let cols = train.n_features;
    let closed = lstsq::least_squares(&train.x, &train.y, train.rows, cols);
    if train.rows <= cols {
        println!(
            "note: {cols} features but only {} training rows: the problem is underdetermined (many weight vectors fit the training rows exactly), so expect overfitting",
            train.rows
        );
    }
    println!("test set ({} rows):", test.rows);
    println!(
        "  {:<22} {:>12} {:>10} {:>10} {:>8}",
        "", "MSE", "RMSE", "MAE", "R^2"
    );
    let row = |name: &str, r: &metrics::RegressionMetrics| {
        // R^2 is undefined (NaN) when the test targets are constant.
        let r2 = if r.r2.is_nan() {
            "n/a".to_string()
        } else {
            format!("{:.4}", r.r2)
        };
        println!(
            "  {name:<22} {:>12.4} {:>10.4} {:>10.4} {r2:>8}",
            r.mse, r.rmse, r.mae
        )
    };
    row(
        if linear {
            "gradient descent"
        } else {
            "network"
        },
        &ours,
    );
    if ours.r2.is_nan() {
        println!("  (R^2 is undefined: the test rows' target is constant)");
    }
    match &closed {
        Ok(fit) => {
            let c = metrics::regression(
                &metrics::linear_predict(&fit.coef, &test.x, test.n_features),
                &test.y,
            );
            let name = if fit.underdetermined {
                "least squares (min-norm)"
            } else {
                "least squares (exact)"
            };
            row(name, &c);
            // A percentage of a (near) zero MSE means nothing: compare with the spread of
            // the test targets instead.
            let spread = ours.mse.max(1e-30);
            if linear && c.mse > 1e-9 * spread {
                let gap = (ours.mse - c.mse) / c.mse * 100.0;
                println!("  gradient descent is {gap:+.2}% from the closed-form test MSE");
            } else if linear {
                println!("  the closed form fits the test rows exactly; compare the MSE columns");
            }
            m.insert("closed_form_test_mse".into(), json!(c.mse));
        }
        Err(lstsq::Skipped::Singular) => {
            println!("  (no closed-form reference: the features are linearly dependent)");
        }
        Err(lstsq::Skipped::TooCostly { side }) => {
            println!("  (no closed-form reference: a {side}x{side} solve would take too long)");
        }
    }
    m.insert("test_mse".into(), json!(ours.mse));
    m.insert("test_rmse".into(), json!(ours.rmse));
    m.insert("test_mae".into(), json!(ours.mae));
    m.insert("test_r2".into(), json!(ours.r2));
    Ok(())
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
