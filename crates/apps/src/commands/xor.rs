//! `iron-learn xor`: the smallest network that needs a hidden layer. The training is the
//! library's ([`jobs::xor::train_xor`]); this converts the flags and prints the truth table.

use crate::cli::XorArgs;
use crate::cli_values::hidden_arg;
use crate::device::Job;
use crate::report::run_dir;
use anyhow::Result;
use jobs::xor::{JOB, XorOptions, train_xor};
use tensor_core::Backend;

/// Trains XOR and prints the truth table.
pub struct Xor(pub XorArgs);

impl Job for Xor {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let hidden = args.hidden.as_deref().map(hidden_arg).transpose()?;
        let mut options = XorOptions {
            settings: crate::session::settings(&args.train, &crate::defaults::XOR),
            stop: Some(crate::signals::watch()),
            ..XorOptions::new(run_dir::prepare(&args.train, JOB)?)
        };
        if let Some(hidden) = hidden {
            options.hidden = hidden;
        }
        let mut reporter = crate::session::reporter(&args.train);
        let xor = train_xor(backend, &options, &mut reporter)?;
        let steps = xor.metrics.run.steps;
        crate::session::record_if_stopped(xor.stop_reason, steps, &xor.dir, &xor.metrics)?;
        println!("  a  b | target | prediction");
        for (a, b, target, p) in xor.rows() {
            println!("  {a}  {b} |   {target}    |   {p:.3}");
        }
        println!(
            "trained {}; largest error {:.3}; results in {}",
            xor.summary,
            xor.metrics.max_error,
            xor.dir.display()
        );
        Ok(())
    }
}
