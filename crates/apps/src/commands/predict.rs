//! `iron-learn predict`: new rows through a trained model, answers in the user's units. The
//! prediction is the library's ([`jobs::predict::predict`]); this converts the flags and
//! prints the answers unless `--output` names a file for them.

use crate::cli::PredictArgs;
use crate::device::Job;
use anyhow::{Result, bail};
use jobs::predict::{PredictOptions, Rows, predict};
use tensor_core::Backend;

/// Predicts the rows of a file, or points given on the command line.
pub struct Predict(pub PredictArgs);

impl Job for Predict {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let rows = match (&args.data, &args.x) {
            (Some(path), _) => Rows::File(path.clone()),
            (None, Some(points)) => Rows::Points(points.clone()),
            (None, None) => bail!("give the rows to predict with --data FILE or --x POINTS"),
        };
        // Under several processes, rank 0 alone writes the answers.
        let writer = train::ranks::world().is_writer();
        let options = PredictOptions {
            keep: args.keep.clone(),
            output: args.output.clone().filter(|_| writer),
            ..PredictOptions::new(&args.model, rows)
        };
        let answers = predict(backend, &options, &mut train::Lines { every: 0 })?;
        match &args.output {
            Some(_) if !writer => {}
            Some(path) => eprintln!(
                "predicted {} row{} into {}",
                answers.rows,
                if answers.rows == 1 { "" } else { "s" },
                path.display()
            ),
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
