//! [`fit_function`]: a network fitted to a typed function of `x` in a run folder.

use super::curve::FittedCurve;
use super::options::{ApproxOptions, MIN_SAMPLES};
use super::outcome::{ApproxMetrics, ApproxOutcome, FunctionFit};
use crate::{Error, Result};
use io::Standardizer;
use io::expr::{Function, Samples, ScaledSamples};
use nn::{Activation, Data, Loss, Mlp, MlpConfig};
use serde::Serialize;
use serde_json::{Map, Value};
use tensor_core::{Backend, Tensor};
use train::budget::{Estimate, mlp_check};
use train::{LossUnits, Reporter, Run};

/// The job name of a function fit's runs (in their checkpoints and records).
pub const JOB: &str = "approx";

/// Refuses, before anything is sampled or written, what the fit cannot do: a function that
/// cannot be read, a range that is not `a < b`, fewer than [`MIN_SAMPLES`] samples, a
/// network and samples beyond the memory budget (every sample is in every step).
pub fn check_options<B: Backend>(options: &ApproxOptions) -> Result<()> {
    Function::parse(&options.function)?;
    let (a, b) = options.range;
    if !(a.is_finite() && b.is_finite() && a < b) {
        return Err(Error::refused(format!(
            "the range must be two finite numbers a < b, got {a}:{b}"
        )));
    }
    if options.samples < MIN_SAMPLES {
        return Err(Error::TooFewSamples {
            given: options.samples,
            least: MIN_SAMPLES,
        });
    }
    let n = options.samples;
    Ok(Estimate::training(&architecture::<B>(options)?, n, n, None, 0).check(JOB)?)
}

/// The network of a fit: one input, the hidden tanh layers, one identity output.
fn architecture<B: Backend>(options: &ApproxOptions) -> Result<MlpConfig> {
    Ok(Mlp::<B>::builder()
        .input(1)
        .hidden(options.hidden.widths(), Activation::Tanh)
        .output(1, Activation::Identity)
        .config(options.settings.seed)?)
}

/// Fits the function the options name on their range in the run folder `options.out`
/// (which must exist), resuming from its checkpoint where the settings ask. Samples it,
/// leaving out (and counting, in a note to `reporter`) the points where it is undefined,
/// infinite or far outside the rest near a pole; trains; writes `config.json`,
/// `history.csv`, `model.safetensors`, `loss.png`, `points.csv`, `fit.png` and
/// `metrics.json`, and returns the model, its figures and the files.
pub fn fit_function<B: Backend>(
    backend: &B,
    options: &ApproxOptions,
    reporter: &mut dyn Reporter,
) -> Result<ApproxOutcome<B>> {
    check_options::<B>(options)?;
    let f = Function::parse(&options.function)?;
    let s = f.fittable_samples(options.range, options.samples, options.classify)?;
    let left_out = s.undefined + s.overflow + s.outliers;
    if left_out > 0 {
        reporter.note(&format!(
            "note: left out {} points where the function is undefined, {} where it is infinite (poles) and {} near-pole values far outside the rest",
            s.undefined, s.overflow, s.outliers
        ));
    }
    let scaled = s.scaled(options.range, options.classify)?;
    let n = scaled.xs.len();
    let xt = Tensor::from_slice(backend, &scaled.xs, [n, 1])?;
    let yt = Tensor::from_slice(backend, &scaled.ys, [n, 1])?;
    let out = training_run::<B>(options, &f, &s, &scaled, reporter)?.train::<B, Mlp<B>>(
        backend,
        Data::new(&xt, &yt),
        None,
    )?;
    let dir = options.out.as_path();
    crate::plot::draw_loss(dir, &out.history, &out.loss_units)?;
    let pred = out.model.predict(&xt)?.to_vec()?;
    let (truth, fit) = score(options.classify, &pred, &scaled)?;
    let curve = FittedCurve {
        options,
        f: &f,
        kept: &s.index,
        truth: &truth,
        inputs: &scaled.inputs,
        stats: &scaled.stats,
    };
    let mut files = curve.write(backend, &out.model, dir)?;
    let metrics = ApproxMetrics {
        points_used: n,
        points_left_out: left_out,
        fit,
        run: out.metrics(out.model.num_params()),
    };
    let path = dir.join(train::outcome::METRICS_FILE);
    train::outcome::write_metrics(&path, &metrics)?;
    files.push(path);
    Ok(ApproxOutcome {
        summary: out.summary(),
        stop_reason: out.report.stop_reason,
        model: out.model,
        metrics,
        function: f.text().to_string(),
        range: options.range,
        dir: options.out.clone(),
        files,
    })
}

/// The training run of a fit: its network, loss, checkpoint data and record.
fn training_run<'r, B: Backend>(
    options: &ApproxOptions,
    f: &Function,
    s: &Samples,
    scaled: &ScaledSamples,
    reporter: &'r mut dyn Reporter,
) -> Result<Run<'r, MlpConfig>> {
    let (info, loss, units) = what_is_fitted(options.classify, &scaled.stats, &scaled.inputs);
    let extra = ApproxExtra {
        function: f.text(),
        range: [options.range.0, options.range.1],
        targets: &scaled.stats,
        classify: options.classify,
    };
    let extra = serde_json::to_value(extra)
        .map_err(|e| Error::json("cannot encode the fit's checkpoint data", e))?;
    let architecture = architecture::<B>(options)?;
    let mut run = Run::new(JOB, &options.out, architecture, loss, options.settings)
        .extra(extra)
        .info(info)
        .record(record(options, f, s)?)
        .loss_units(units)
        .memory_check(mlp_check(JOB, 0.0))
        .reporter(reporter);
    if let Some(flag) = &options.stop {
        run = run.stop_flag(flag.clone());
    }
    Ok(run)
}

/// The checkpoint's job data of a fitted function.
#[derive(Serialize)]
struct ApproxExtra<'a> {
    function: &'a str,
    range: [f64; 2],
    targets: &'a Standardizer,
    classify: bool,
}

/// The entries of `config.json` of a fitted function.
#[derive(Serialize)]
struct ApproxRecord<'a> {
    data: ApproxData<'a>,
    options: ApproxRecordOptions,
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
struct ApproxRecordOptions {
    classify: bool,
    hidden: String,
    activation: &'static str,
}

/// The job's entries of `config.json`: the function, range and samples, and its options.
fn record(options: &ApproxOptions, f: &Function, s: &Samples) -> Result<Map<String, Value>> {
    Ok(train::record::entries(&ApproxRecord {
        data: ApproxData {
            function: f.text(),
            range: [options.range.0, options.range.1],
            samples: options.samples,
            points_used: s.x.len(),
            points_left_out: s.undefined + s.overflow + s.outliers,
        },
        options: ApproxRecordOptions {
            classify: options.classify,
            hidden: options.hidden.to_string(),
            activation: "tanh",
        },
    })?)
}

/// How well the network's raw outputs `pred` fit: the sign's accuracy (classification) or
/// the errors in the function's units; returns the targets (the classes, or the values) of
/// the kept points too.
fn score(classify: bool, pred: &[f32], scaled: &ScaledSamples) -> Result<(Vec<f32>, FunctionFit)> {
    Ok(if classify {
        let p: Vec<f32> = pred
            .iter()
            .map(|&z| if z > 0.0 { 1.0 } else { 0.0 })
            .collect();
        let c = crate::metrics::binary_classification(&p, &scaled.ys);
        let fit = FunctionFit::Sign {
            accuracy: c.accuracy,
            baseline_accuracy: c.baseline_accuracy,
        };
        (scaled.ys.clone(), fit)
    } else {
        let raw = &scaled.raw;
        let p = scaled.stats.inverse_transform(pred)?;
        let r = crate::metrics::regression(&p, raw);
        let max_error = p
            .iter()
            .zip(raw)
            .map(|(p, t)| (p - t).abs())
            .fold(0f32, f32::max);
        let fit = FunctionFit::Values {
            mse: r.mse,
            mae: r.mae,
            max_error,
            r2: r.r2,
        };
        (raw.clone(), fit)
    })
}

/// What the curve's model predicts (for its model file), its loss, and the units the loss is
/// reported in: a class of x, or y in the function's units.
fn what_is_fitted(
    classify: bool,
    stats: &Standardizer,
    inputs: &Standardizer,
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
