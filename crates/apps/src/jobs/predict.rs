//! `iron-learn predict`: new rows through a trained model, answers in the user's units. The
//! prediction is the library's ([`train::predict::predict`]); this converts the flags and
//! writes the answers where `--output` says (standard output by default).

use crate::cli::PredictArgs;
use crate::device::Job;
use anyhow::{Result, bail};
use tensor_core::Backend;
use train::predict::{PredictOptions, Rows, predict};
use train::record::write_file;

/// Predicts the rows of a file, or points given on the command line.
pub struct Predict(pub PredictArgs);

impl Job for Predict {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        if let Some(output) = &args.output {
            let model_file = io::fitted::model_file(&args.model);
            let mut inputs = vec![model_file.as_path()];
            inputs.extend(args.data.as_deref());
            io::output::refuse_own_input(output, &inputs)?;
        }
        let rows = match (&args.data, &args.x) {
            (Some(path), _) => Rows::File(path.clone()),
            (None, Some(points)) => Rows::Points(points.clone()),
            (None, None) => bail!("give the rows to predict with --data FILE or --x POINTS"),
        };
        let options = PredictOptions {
            keep: args.keep.clone(),
            ..PredictOptions::new(&args.model, rows)
        };
        let answers = predict(backend, &options, &mut train::Lines { every: 0 })?;
        match &args.output {
            Some(path) => {
                write_file(path, &answers.csv)?;
                eprintln!("predicted {} rows into {}", answers.rows, path.display());
            }
            None => {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                out.write_all(&answers.csv)?;
                out.flush()?;
            }
        }
        Ok(())
    }
}
