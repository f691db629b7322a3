//! `iron-learn approx`: fit a network to a function of x typed by the user.

use super::matrix;
use crate::cli::ApproxArgs;
use crate::device::Job;
use crate::memory_budget::Estimate;
use crate::report::run_dir;
use crate::session::Run;
use anyhow::{Result, bail};
use io::Standardizer;
use io::expr::{Function, Samples, ScaledSamples, parse_range};
use nn::{Activation, Data, Loss, Mlp};
use serde::Serialize;
use serde_json::Map;
use tensor_core::Backend;
use train::LossUnits;
use train::history::number;
use train::metrics;
use train::plot::{Chart, Series, line_chart};
use train::record::write_file;

/// Fits a typed function.
pub struct Approx(pub ApproxArgs);

/// The samples of `f` on `[a, b]` ([`Function::fittable_samples`]); says how many were
/// left out.
fn checked_samples(args: &ApproxArgs, f: &Function, (a, b): (f64, f64)) -> Result<Samples> {
    let s = f.fittable_samples((a, b), args.samples, args.classify)?;
    if s.undefined + s.overflow + s.outliers > 0 {
        eprintln!(
            "note: left out {} points where the function is undefined, {} where it is infinite (poles) and {} near-pole values far outside the rest",
            s.undefined, s.overflow, s.outliers
        );
    }
    Ok(s)
}

impl Job for Approx {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let (f, hidden, (a, b)) = read_args(args)?;
        let architecture = Mlp::<B>::builder()
            .input(1)
            .hidden(hidden.widths(), Activation::Tanh)
            .output(1, Activation::Identity)
            .config(args.train.seed)?;
        // Every sample is in every (full-batch) step: refuse what cannot fit before sampling.
        Estimate::training(&architecture, args.samples, args.samples, None, 0).check("approx")?;
        let s = checked_samples(args, &f, (a, b))?;
        let dir = run_dir::prepare(&args.train, "approx")?;
        let ScaledSamples {
            inputs,
            xs,
            raw,
            stats,
            ys,
        } = s.scaled((a, b), args.classify)?;
        let n = xs.len();
        let xt = matrix(backend, &xs, n, 1)?;
        let yt = matrix(backend, &ys, n, 1)?;
        let (info, loss, loss_units) = what_is_fitted(args.classify, &stats, &inputs);
        let run = Run {
            job: "approx",
            dir: dir.clone(),
            args: &args.train,
            defaults: crate::defaults::APPROX,
            architecture,
            loss,
            extra: serde_json::to_value(ApproxExtra::new(args, &f, (a, b), &stats))?,
            info,
            early_stopping: None,
            pool: 1,
            output_bias: None,
            record: record(args, &f, (a, b), &s, &hidden)?,
            loss_units,
            weight_decay: 0.0,
            held_beside: 0.0,
        };
        let out = run.train(backend, Data::new(&xt, &yt), None)?;
        let pred = out.model.predict(&xt)?.to_vec()?;
        let (truth, fit) = score(args, &f, (a, b), &pred, (&ys, &raw), &stats)?;
        let fitted = FittedCurve {
            args,
            f: &f,
            range: (a, b),
            kept: &s.index,
            truth: &truth,
            inputs: &inputs,
            stats: &stats,
        };
        fitted.write(backend, &out.model, &dir)?;
        println!("{}; results in {}", out.summary(), dir.display());
        let metrics = ApproxMetrics {
            points_used: n,
            points_left_out: s.undefined + s.overflow + s.outliers,
            fit,
            run: out.metrics(out.model.num_params()),
        };
        run_dir::write_metrics(&dir, &metrics)
    }
}

/// `metrics.json` of a fitted function.
#[derive(Serialize)]
struct ApproxMetrics {
    points_used: usize,
    points_left_out: usize,
    #[serde(flatten)]
    fit: Fit,
    #[serde(flatten)]
    run: train::RunMetrics,
}

/// How well the function was fitted: its sign's accuracy, or the errors in its units.
#[derive(Serialize)]
#[serde(untagged)]
enum Fit {
    Sign {
        accuracy: f64,
        baseline_accuracy: f64,
    },
    Values {
        mse: f64,
        mae: f64,
        max_error: f32,
        r2: f64,
    },
}

/// The checkpoint's job data of a fitted function.
#[derive(Serialize)]
struct ApproxExtra<'a> {
    function: &'a str,
    range: [f64; 2],
    targets: &'a Standardizer,
    classify: bool,
}

impl<'a> ApproxExtra<'a> {
    fn new(
        args: &ApproxArgs,
        f: &'a Function,
        (a, b): (f64, f64),
        stats: &'a Standardizer,
    ) -> Self {
        ApproxExtra {
            function: f.text(),
            range: [a, b],
            targets: stats,
            classify: args.classify,
        }
    }
}

/// The entries of `config.json` of a fitted function.
#[derive(Serialize)]
struct ApproxRecord<'a> {
    data: ApproxData<'a>,
    options: ApproxOptions,
}

/// The function, range and samples of a fit.
#[derive(Serialize)]
struct ApproxData<'a> {
    function: &'a str,
    range: [f64; 2],
    samples: usize,
    points_used: usize,
    points_left_out: usize,
}

/// The job's options of a fit.
#[derive(Serialize)]
struct ApproxOptions {
    classify: bool,
    hidden: String,
    activation: &'static str,
}

/// The job's entries of `config.json`: the function, range and samples, and its options.
fn record(
    args: &ApproxArgs,
    f: &Function,
    (a, b): (f64, f64),
    s: &Samples,
    hidden: &crate::hidden::Hidden,
) -> Result<Map<String, serde_json::Value>> {
    Ok(train::record::entries(&ApproxRecord {
        data: ApproxData {
            function: f.text(),
            range: [a, b],
            samples: args.samples,
            points_used: s.x.len(),
            points_left_out: s.undefined + s.overflow + s.outliers,
        },
        options: ApproxOptions {
            classify: args.classify,
            hidden: hidden.to_string(),
            activation: "tanh",
        },
    })?)
}

/// Prints and records how well the network's raw outputs `pred` fit: the sign's accuracy
/// (classification) or the errors in the function's units; returns the targets (the
/// classes, or the values) of the kept points.
fn score(
    args: &ApproxArgs,
    f: &Function,
    (a, b): (f64, f64),
    pred: &[f32],
    (ys, raw): (&[f32], &[f32]),
    stats: &Standardizer,
) -> Result<(Vec<f32>, Fit)> {
    Ok(if args.classify {
        let p: Vec<f32> = pred
            .iter()
            .map(|&z| if z > 0.0 { 1.0 } else { 0.0 })
            .collect();
        let c = metrics::binary_classification(&p, ys);
        println!(
            "sign of {} on [{a}, {b}]: accuracy {:.4} (majority class {:.4})",
            f.text(),
            c.accuracy,
            c.baseline_accuracy
        );
        let fit = Fit::Sign {
            accuracy: c.accuracy,
            baseline_accuracy: c.baseline_accuracy,
        };
        (ys.to_vec(), fit)
    } else {
        let p = stats.inverse_transform(pred)?;
        let r = metrics::regression(&p, raw);
        let max_err = p
            .iter()
            .zip(raw)
            .map(|(p, t)| (p - t).abs())
            .fold(0f32, f32::max);
        println!(
            "{} on [{a}, {b}]: MSE {:.3e}, MAE {:.3e}, max error {max_err:.3e}, R^2 {:.5}",
            f.text(),
            r.mse,
            r.mae,
            r.r2
        );
        let fit = Fit::Values {
            mse: r.mse,
            mae: r.mae,
            max_error: max_err,
            r2: r.r2,
        };
        (raw.to_vec(), fit)
    })
}

/// A fitted function with what is needed to draw it: the samples kept, their targets, and
/// the standardisations of inputs and values.
struct FittedCurve<'a> {
    args: &'a ApproxArgs,
    f: &'a Function,
    range: (f64, f64),
    /// The sample index of each kept point.
    kept: &'a [usize],
    /// The target of each kept point (the value, or its sign class).
    truth: &'a [f32],
    inputs: &'a Standardizer,
    stats: &'a Standardizer,
}

impl FittedCurve<'_> {
    /// Every sample point, in order: its x, the target where the function was kept (NaN
    /// elsewhere) and the network's value.
    fn points<B: Backend>(&self, backend: &B, model: &Mlp<B>) -> Result<Points> {
        let (a, b, n) = (self.range.0, self.range.1, self.args.samples);
        let x: Vec<f64> = (0..n)
            .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
            .collect();
        let scaled = self
            .inputs
            .transform(&x.iter().map(|&x| x as f32).collect::<Vec<_>>())?;
        let pred = model
            .predict(&matrix(backend, &scaled, x.len(), 1)?)?
            .to_vec()?;
        let fit: Vec<f32> = if self.args.classify {
            pred.iter().map(|&z| tensor_core::sigmoid(z)).collect()
        } else {
            self.stats.inverse_transform(&pred)?
        };
        let mut target = vec![f64::NAN; x.len()];
        for (&i, &t) in self.kept.iter().zip(self.truth) {
            target[i] = f64::from(t);
        }
        Ok(Points { x, target, fit })
    }

    /// Writes `points.csv` and draws `fit.png`; lines break where points were left out (a
    /// pole).
    fn write<B: Backend>(&self, backend: &B, model: &Mlp<B>, dir: &std::path::Path) -> Result<()> {
        let p = self.points(backend, model)?;
        let mut csv = String::from("x,target,prediction\n");
        for ((x, t), f) in p.x.iter().zip(&p.target).zip(&p.fit) {
            let t = if t.is_finite() {
                number(*t)
            } else {
                String::new()
            };
            csv += &format!("{},{t},{}\n", number(*x), number(f64::from(*f)));
        }
        write_file(&dir.join("points.csv"), csv.as_bytes())?;
        let line = |v: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
            p.x.iter()
                .enumerate()
                .map(|(i, &x)| {
                    (
                        x,
                        if p.target[i].is_finite() {
                            v(i)
                        } else {
                            f64::NAN
                        },
                    )
                })
                .collect()
        };
        let classify = self.args.classify;
        let series = [
            Series {
                name: if classify { "f(x) > 0" } else { "f(x)" }.into(),
                points: line(&|i| p.target[i]),
            },
            Series {
                name: "network".into(),
                points: line(&|i| f64::from(p.fit[i])),
            },
        ];
        let chart = Chart {
            title: format!("f(x) = {}", self.f.text()),
            x_label: "x".into(),
            y_label: if classify {
                "probability that f(x) > 0".into()
            } else {
                "f(x)".into()
            },
            log_y: false,
            integer_x: false,
            wide_first: true,
        };
        Ok(line_chart(&dir.join("fit.png"), &chart, &series)?)
    }
}

/// The network along every sample point.
struct Points {
    x: Vec<f64>,
    target: Vec<f64>,
    fit: Vec<f32>,
}

/// What the curve's model predicts (for its model file), its loss, and the units the loss is
/// reported in: a class of x, or y in the function's units.
fn what_is_fitted(
    classify: bool,
    stats: &io::Standardizer,
    inputs: &io::Standardizer,
) -> (io::ModelInfo, Loss, LossUnits) {
    if classify {
        let info = io::ModelInfo::classification(&["x"], "positive", vec![0.0, 1.0]);
        let loss = Loss::BceWithLogits;
        (
            info.with_features(inputs.clone()),
            loss,
            LossUnits::plain(loss),
        )
    } else {
        let info = io::ModelInfo::regression(&["x"], &["y"]).with_targets(stats.clone());
        let units = LossUnits::target_mse(stats.std[0]);
        (info.with_features(inputs.clone()), Loss::Mse, units)
    }
}

/// The function, hidden layers and range asked for; refuses fewer than 10 samples.
fn read_args(args: &ApproxArgs) -> Result<(Function, crate::hidden::Hidden, (f64, f64))> {
    let f = Function::parse(&args.function)?;
    let hidden = crate::hidden::hidden_arg(&args.hidden)?;
    let range = parse_range(&args.range)?;
    if args.samples < 10 {
        bail!("--samples must be at least 10");
    }
    Ok((f, hidden, range))
}
