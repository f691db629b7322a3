//! `iron-learn predict`: new rows through a trained model, answers in the user's units.

use crate::cli::PredictArgs;
use crate::device::Job;
use crate::report::output::write_file;
use anyhow::{Result, bail};
use io::fitted::{FittedModel, Task, load_inputs};
use std::path::Path;
use tensor_core::Backend;

/// Predicts the rows of a file, or points given on the command line.
pub struct Predict(pub PredictArgs);

/// Predicts `x` (raw rows in the model's feature order) and writes the CSV to `path`
/// atomically: the feature columns, the known `target` column when given, then the
/// prediction columns.
pub fn write_predictions<B: Backend>(
    path: &Path,
    model: &FittedModel<B>,
    x: &[f32],
    target: Option<(&str, &[f32])>,
) -> Result<()> {
    let predictions = model.predict(x)?;
    let mut names = model.feature_names().to_vec();
    let f = names.len();
    let mut values = Vec::with_capacity(x.len() + predictions.rows);
    for (r, row) in x.chunks_exact(f).enumerate() {
        values.extend_from_slice(row);
        if let Some((_, y)) = target {
            values.push(y[r]);
        }
    }
    if let Some((name, _)) = target {
        names.push(name.to_string());
    }
    let mut bytes = Vec::new();
    predictions.write_csv(&mut bytes, Some((&names, &values)))?;
    write_file(path, &bytes)
}

impl Job for Predict {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        if let Some(output) = &args.output {
            let model_file = io::fitted::model_file(&args.model);
            let mut inputs = vec![model_file.as_path()];
            inputs.extend(args.data.as_deref());
            io::output::refuse_own_input(output, &inputs)?;
        }
        let model = FittedModel::load(&args.model, backend)?;
        let info = model.info();
        if let Task::Image { width, height } = info.task {
            bail!(
                "{} is an image model ({width}x{height}); draw it with `iron-learn image render` \
                 or export it with `iron-learn export`",
                args.model.display()
            );
        }
        let names = model.feature_names();
        let (x, leading) = match (&args.data, &args.x) {
            (Some(path), _) => {
                let rows = load_inputs(path, names)?;
                if !rows.ignored.is_empty() {
                    eprintln!(
                        "note: ignored {} column{} the model does not use: {}",
                        rows.ignored.len(),
                        if rows.ignored.len() == 1 { "" } else { "s" },
                        rows.ignored.join(", ")
                    );
                }
                (rows.x, None)
            }
            (None, Some(points)) => {
                if names.len() != 1 {
                    bail!(
                        "--x gives points of one input, but this model takes {} ({}); use --data",
                        names.len(),
                        names.join(", ")
                    );
                }
                if let Some(v) = points.iter().find(|v| !v.is_finite()) {
                    bail!("--x: {v} is not a finite number");
                }
                (points.clone(), Some(points.as_slice()))
            }
            (None, None) => bail!("give the rows to predict with --data FILE or --x POINTS"),
        };
        let predictions = model.predict(&x)?;
        let leading = leading.map(|v| (names, v));
        match &args.output {
            Some(path) => {
                let mut bytes = Vec::new();
                predictions.write_csv(&mut bytes, leading)?;
                write_file(path, &bytes)?;
                eprintln!(
                    "predicted {} rows into {}",
                    predictions.rows,
                    path.display()
                );
            }
            None => predictions.write_csv(std::io::stdout().lock(), leading)?,
        }
        Ok(())
    }
}
