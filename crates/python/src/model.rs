//! Model files: what a model holds, read from and written to the command line's files, and
//! exported as ONNX, all from the bytes of a model file.

use crate::failure::{Failure, Result};
use crate::table::load;
use io::fitted::Task;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use tensor_cpu::CpuBackend;

/// What a model file holds, for the Python side.
#[derive(IntoPyObject)]
pub struct ModelInfo {
    /// `classification`, `regression` or `image`.
    task: &'static str,
    /// The columns it reads, in order (an image model: `x`, `y`).
    inputs: Vec<String>,
    /// The target columns (an image model: its channels).
    targets: Vec<String>,
    /// The classes' texts, in the model's order (classifiers only).
    classes: Option<Vec<String>>,
    /// The fitted picture's width and height (image models only).
    size: Option<(usize, usize)>,
}

/// What the model in the model file's bytes `model` holds.
#[pyfunction]
pub fn model_info(model: &[u8]) -> PyResult<ModelInfo> {
    let model = load(model).map_err(Failure::into_py)?;
    let info = model.info();
    let classes = info
        .classes()
        .map(|c| (0..c.len()).map(|i| info.class_text(i)).collect());
    let (task, size) = match info.task {
        Task::Regression => ("regression", None),
        Task::Classification { .. } => ("classification", None),
        Task::Image { width, height } => ("image", Some((width, height))),
    };
    Ok(ModelInfo {
        task,
        inputs: info.input_columns(),
        targets: info.target_names.clone(),
        classes,
        size,
    })
}

/// The bytes of the model in `path`: a model file, a run folder or a run's checkpoint (its
/// optimizer state left out), as `iron-learn predict` reads them.
#[pyfunction]
pub fn read_model<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyBytes>> {
    let read = || -> Result<Vec<u8>> {
        let file = io::fitted::model_file(&path);
        let (model, _) = train::checkpoint::load_fitted(&CpuBackend::try_new()?, &file)?;
        Ok(model.to_checkpoint()?.to_bytes()?)
    };
    let bytes = py.detach(read).map_err(Failure::into_py)?;
    Ok(PyBytes::new(py, &bytes))
}

/// Writes the model file's bytes `model` to `path`, atomically, after checking that they
/// hold a model.
#[pyfunction]
pub fn write_model(py: Python<'_>, model: &[u8], path: PathBuf) -> PyResult<()> {
    let write = || -> Result<()> {
        load(model)?;
        Ok(io::output::write_atomic(&path, model)?)
    };
    py.detach(write).map_err(Failure::into_py)
}

/// Writes the model in the bytes `model` as the ONNX graph `iron-learn export` writes
/// (`half`: float16 weights, as `--half`).
#[pyfunction]
#[pyo3(signature = (model, path, half=false))]
pub fn write_onnx(py: Python<'_>, model: &[u8], path: PathBuf, half: bool) -> PyResult<()> {
    let write = || -> Result<()> {
        let model = load(model)?;
        let precision = match half {
            true => onnx::Precision::Float16,
            false => onnx::Precision::Float32,
        };
        Ok(onnx::save_with(&model, &path, precision)?)
    };
    py.detach(write).map_err(Failure::into_py)
}
