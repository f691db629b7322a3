//! `iron-learn export`: a trained model for use elsewhere — an ONNX graph, or the model's
//! safetensors without the optimizer and trainer state.

use crate::cli::{ExportArgs, ExportFormat};
use anyhow::{Context, Result};
use tensor_cpu::CpuBackend;

/// Writes the model of a run folder or checkpoint in the asked format; a model whose
/// weights are not all finite (a diverged run) is refused before anything is written.
pub fn export(args: &ExportArgs) -> Result<()> {
    let source = io::fitted::model_file(&args.model);
    io::output::refuse_own_input(&args.output, &[&source])?;
    let (model, _) = train::checkpoint::load_fitted(&CpuBackend::new(), &source)?;
    let what = match args.format {
        ExportFormat::Onnx if args.half => {
            onnx::save_with(&model, &args.output, onnx::Precision::Float16)?;
            "ONNX graph (float16 weights)"
        }
        ExportFormat::Onnx => {
            onnx::save(&model, &args.output)?;
            "ONNX graph"
        }
        ExportFormat::Safetensors => {
            let storage = if args.half {
                io::checkpoint::Storage::Float16
            } else {
                io::checkpoint::Storage::Float32
            };
            model
                .save_as(&args.output, storage)
                .with_context(|| format!("cannot write {}", args.output.display()))?;
            if args.half {
                "model (float16, no optimizer state)"
            } else {
                "model (no optimizer state)"
            }
        }
    };
    let size = std::fs::metadata(&args.output).map_or(0, |m| m.len());
    let names = model.feature_names().join(", ");
    // An image model's graph takes one input of the pixels' coordinates.
    let inputs = match (args.format, model.image_size().is_ok()) {
        (ExportFormat::Onnx, true) => format!("coordinates [N, 2] ({names})"),
        _ => names,
    };
    println!(
        "wrote the {what} to {} ({size} bytes); inputs: {inputs}",
        args.output.display()
    );
    Ok(())
}
