//! `iron-learn xor`: the smallest network that needs a hidden layer.

use super::matrix;
use crate::cli::XorArgs;
use crate::device::Job;
use crate::report::run_dir;
use crate::session::Run;
use anyhow::Result;
use nn::{Activation, Data, Loss, Mlp};
use serde::Serialize;
use serde_json::Map;
use tensor_core::Backend;
use train::LossUnits;

const INPUTS: [f32; 8] = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0];
const TARGETS: [f32; 4] = [0.0, 1.0, 1.0, 0.0];

/// Trains XOR and prints the truth table.
pub struct Xor(pub XorArgs);

impl Job for Xor {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let hidden = crate::hidden::hidden_arg(&args.hidden)?;
        let dir = run_dir::prepare(&args.train, "xor")?;
        let architecture = Mlp::<B>::builder()
            .input(2)
            .hidden(hidden.widths(), Activation::Tanh)
            .output(1, Activation::Identity)
            .config(args.train.seed)?;
        let x = matrix(backend, &INPUTS, 4, 2)?;
        let y = matrix(backend, &TARGETS, 4, 1)?;
        let run = Run {
            job: "xor",
            dir: dir.clone(),
            args: &args.train,
            defaults: crate::defaults::XOR,
            architecture,
            loss: Loss::BceWithLogits,
            extra: serde_json::Value::Object(Map::new()),
            info: io::ModelInfo::classification(&["a", "b"], "xor", vec![0.0, 1.0]),
            early_stopping: None,
            pool: 1,
            output_bias: None,
            record: train::record::entries(&XorRecord {
                options: XorOptions {
                    hidden: hidden.to_string(),
                    activation: "tanh",
                },
            })?,
            loss_units: LossUnits::plain(Loss::BceWithLogits),
            weight_decay: 0.0,
            held_beside: 0.0,
        };
        let out = run.train(backend, Data::new(&x, &y), None)?;
        let probs = out.model.predict(&x)?.sigmoid()?.to_vec()?;
        println!("  a  b | target | prediction");
        let mut max_error = 0f32;
        for (i, p) in probs.iter().enumerate() {
            let (a, b) = (INPUTS[2 * i], INPUTS[2 * i + 1]);
            println!("  {a}  {b} |   {}    |   {p:.3}", TARGETS[i]);
            max_error = max_error.max((p - TARGETS[i]).abs());
        }
        println!(
            "trained {}; largest error {max_error:.3}; results in {}",
            out.summary(),
            dir.display()
        );
        let run = out.metrics(out.model.num_params());
        let metrics = XorMetrics {
            predictions: probs,
            max_error,
            run,
        };
        run_dir::write_metrics(&dir, &metrics)
    }
}

/// The entries of `config.json` of an XOR run.
#[derive(Serialize)]
struct XorRecord {
    options: XorOptions,
}

/// The network options of an XOR run.
#[derive(Serialize)]
struct XorOptions {
    hidden: String,
    activation: &'static str,
}

/// `metrics.json` of an XOR run: the four predicted probabilities and the largest error.
#[derive(Serialize)]
struct XorMetrics {
    predictions: Vec<f32>,
    max_error: f32,
    #[serde(flatten)]
    run: train::RunMetrics,
}
