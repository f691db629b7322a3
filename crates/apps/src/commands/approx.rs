//! `iron-learn approx`: fit a network to a function of x typed by the user. The fit is the
//! library's ([`jobs::approx::fit_function`]); this converts the flags into its options
//! and prints what it returns.

use crate::cli::ApproxArgs;
use crate::device::Job;
use crate::report::run_dir;
use anyhow::Result;
use io::expr::parse_range;
use jobs::approx::{ApproxOptions, check_options, fit_function};
use std::path::PathBuf;
use tensor_core::Backend;

/// Fits a typed function.
pub struct Approx(pub ApproxArgs);

/// The library's options for these flags, the fit written into `out`; what they leave
/// out takes [`ApproxOptions::new`]'s defaults.
pub fn options(args: &ApproxArgs, out: PathBuf) -> Result<ApproxOptions> {
    let mut options = ApproxOptions {
        samples: args.samples,
        classify: args.classify,
        settings: crate::session::settings(&args.train, &crate::defaults::APPROX),
        ..ApproxOptions::new(&args.function, parse_range(&args.range)?, out)
    };
    if let Some(hidden) = &args.hidden {
        options.hidden = crate::cli_values::hidden_arg(hidden)?;
    }
    Ok(options)
}

impl Job for Approx {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let mut options = options(args, PathBuf::new())?;
        check_options::<B>(&options)?;
        options.out = run_dir::prepare(&args.train, jobs::approx::JOB)?;
        options.stop = Some(crate::signals::watch());
        let mut reporter = crate::session::reporter(&args.train);
        let fit = fit_function(backend, &options, &mut reporter)?;
        let steps = fit.metrics.run.steps;
        crate::session::record_if_stopped(fit.stop_reason, steps, &fit.dir, &fit.metrics)?;
        println!("{}", fit.fit_line());
        println!("{}", fit.line());
        Ok(())
    }
}
