//! `iron-learn image fit`: an image as a function (x, y) -> pixel. The fit is the library's
//! ([`jobs::image::fit_image`]); this converts the flags into its options and prints what
//! it returns.

use crate::cli::{ArchArg, ImageFitArgs};
use crate::cli_values::hidden_arg;
use crate::device::Job;
use crate::report::run_dir;
use anyhow::Result;
use jobs::image::{GridOptions, ImageArch, ImageFitOptions, fit_image};
use std::path::PathBuf;
use tensor_core::Backend;

/// Fits an image.
pub struct ImageFit(pub ImageFitArgs);

/// The library's network family for `--arch`.
fn arch(arch: ArchArg) -> ImageArch {
    match arch {
        ArchArg::Siren => ImageArch::Siren,
        ArchArg::Fourier => ImageArch::Fourier,
        ArchArg::Relu => ImageArch::Relu,
        ArchArg::Hashgrid => ImageArch::HashGrid,
    }
}

/// The library's options for these flags, the fit written into `out`.
pub fn options(args: &ImageFitArgs, out: PathBuf) -> Result<ImageFitOptions> {
    Ok(ImageFitOptions {
        size: args.size,
        arch: args.arch.map(arch),
        hidden: args.hidden.as_deref().map(hidden_arg).transpose()?,
        grid: GridOptions {
            levels: args.levels,
            features: args.features,
            log2_table_size: args.log2_table_size,
            base_resolution: args.base_resolution,
            finest_resolution: args.finest_resolution,
        },
        budget: args
            .params_per_pixel
            .map(jobs::image::SizeBudget::new)
            .transpose()?,
        gray: args.gray,
        color: args.color,
        threshold: args.threshold,
        supersample: args.supersample,
        training: crate::session::choices(&args.train),
        ..ImageFitOptions::new(args.image.clone(), out)
    })
}

impl Job for ImageFit {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let mut options = options(args, PathBuf::new())?;
        jobs::image::check_options(&options)?;
        options.out = run_dir::prepare(&args.train, jobs::image::JOB)?;
        options.training.stop = Some(crate::signals::watch());
        let mut reporter = crate::session::reporter(&args.train);
        let fit = fit_image(backend, &options, &mut reporter)?;
        let steps = fit.metrics.run.steps;
        crate::session::record_if_stopped(fit.stop_reason, steps, &fit.dir, &fit.metrics)?;
        println!("{}", fit.line());
        let short = options
            .budget
            .and_then(|b| b.shortfall_note(fit.metrics.params_per_pixel));
        if let Some(note) = short {
            println!("note: {note}");
        }
        if let Some(note) = &fit.under_trained {
            println!("note: under-trained: {note}");
        }
        Ok(())
    }
}
