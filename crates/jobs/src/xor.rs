//! XOR, the smallest problem that needs a hidden layer, as a library call: what
//! `iron-learn xor` runs. A network learns the truth table of `a XOR b` in a run folder.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use jobs::xor::{XorOptions, train_xor};
//! let cpu = tensor_cpu::CpuBackend::new();
//! let xor = train_xor(&cpu, &XorOptions::new("runs/xor"), &mut train::Silent)?;
//! for (a, b, target, p) in xor.rows() {
//!     println!("{a} xor {b} = {target}: {p:.3}");
//! }
//! # Ok(()) }
//! ```

use crate::Result;
use nn::{Activation, Data, HiddenLayers, Loss, Mlp};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tensor_core::{Backend, Tensor};
use train::budget::mlp_check;
use train::outcome::{METRICS_FILE, write_metrics};
use train::{LossUnits, Reporter, Run, RunMetrics, Settings};

/// The job name of XOR runs (in their checkpoints and records).
pub const JOB: &str = "xor";
/// The four input rows `(a, b)`, row-major.
pub const INPUTS: [f32; 8] = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0];
/// `a XOR b` of each row.
pub const TARGETS: [f32; 4] = [0.0, 1.0, 1.0, 0.0];

/// How to train XOR; [`XorOptions::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct XorOptions {
    /// The network's hidden layers (tanh).
    pub hidden: HiddenLayers,
    /// The run folder; the caller creates it and keeps other runs out of it.
    pub out: PathBuf,
    /// The run's settings.
    pub settings: Settings,
    /// A flag that, once set (by a signal handler), stops training at the next step.
    pub stop: Option<Arc<AtomicBool>>,
}

impl XorOptions {
    /// One hidden layer of 4, the settings of [`defaults::XOR`](crate::defaults::XOR).
    pub fn new(out: impl Into<PathBuf>) -> Self {
        XorOptions {
            hidden: HiddenLayers(vec![4]),
            out: out.into(),
            settings: Settings::from_defaults(&crate::defaults::XOR),
            stop: None,
        }
    }
}

/// `metrics.json` of an XOR run: the four predicted probabilities and the largest error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct XorMetrics {
    /// The probability of `1` for each row of [`INPUTS`].
    pub predictions: Vec<f32>,
    /// The largest distance of a probability from its target.
    pub max_error: f32,
    /// The figures of every run: loss, steps, seconds, parameters.
    #[serde(flatten)]
    pub run: RunMetrics,
}

/// A finished XOR run.
pub struct XorOutcome<B: Backend> {
    /// The trained network (its output is a logit).
    pub model: Mlp<B>,
    /// Its figures.
    pub metrics: XorMetrics,
    /// `1000 steps in 0.2 s`: the run's length and time.
    pub summary: String,
    /// Why training ended (completed, or stopped by the stop flag).
    pub stop_reason: nn::StopReason,
    /// The run folder.
    pub dir: PathBuf,
}

impl<B: Backend> XorOutcome<B> {
    /// The truth table: `(a, b, target, predicted probability)` of each row.
    pub fn rows(&self) -> Vec<(f32, f32, f32, f32)> {
        (0..TARGETS.len())
            .map(|i| {
                let p = self.metrics.predictions[i];
                (INPUTS[2 * i], INPUTS[2 * i + 1], TARGETS[i], p)
            })
            .collect()
    }
}

/// The entries of `config.json` of an XOR run.
#[derive(Serialize)]
struct XorRecord {
    options: XorRecordOptions,
}

/// The network options of an XOR run.
#[derive(Serialize)]
struct XorRecordOptions {
    hidden: String,
    activation: &'static str,
}

/// Trains a network on the XOR table in `options.out` (resuming where the settings ask),
/// writes `config.json`, `history.csv`, `model.safetensors`, `loss.png` and
/// `metrics.json`, and returns the network with its predictions.
pub fn train_xor<B: Backend>(
    backend: &B,
    options: &XorOptions,
    reporter: &mut dyn Reporter,
) -> Result<XorOutcome<B>> {
    let architecture = Mlp::<B>::builder()
        .input(2)
        .hidden(options.hidden.widths(), Activation::Tanh)
        .output(1, Activation::Identity)
        .config(options.settings.seed)?;
    let x = Tensor::from_slice(backend, &INPUTS, [4, 2])?;
    let y = Tensor::from_slice(backend, &TARGETS, [4, 1])?;
    let record = train::record::entries(&XorRecord {
        options: XorRecordOptions {
            hidden: options.hidden.to_string(),
            activation: "tanh",
        },
    })?;
    let loss = Loss::BceWithLogits;
    let dir = options.out.as_path();
    let mut run = Run::new(JOB, dir, architecture, loss, options.settings)
        .info(io::ModelInfo::classification(
            &["a", "b"],
            "xor",
            vec![0.0, 1.0],
        ))
        .record(record)
        .loss_units(LossUnits::plain(loss))
        .memory_check(mlp_check(JOB, 0.0))
        .reporter(reporter);
    if let Some(flag) = &options.stop {
        run = run.stop_flag(flag.clone());
    }
    let out = run.train::<B, Mlp<B>>(backend, Data::new(&x, &y), None)?;
    crate::plot::draw_loss(dir, &out.history, &out.loss_units)?;
    let predictions = out.model.predict(&x)?.sigmoid()?.to_vec()?;
    let max_error = predictions
        .iter()
        .zip(TARGETS)
        .map(|(p, t)| (p - t).abs())
        .fold(0f32, f32::max);
    let metrics = XorMetrics {
        predictions,
        max_error,
        run: out.metrics(out.model.num_params()),
    };
    write_metrics(&dir.join(METRICS_FILE), &metrics)?;
    Ok(XorOutcome {
        summary: out.summary(),
        stop_reason: out.report.stop_reason,
        model: out.model,
        metrics,
        dir: options.out.clone(),
    })
}
