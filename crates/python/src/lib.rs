//! The native part of the Python package `iron_learn` (`iron_learn._native`): the table job,
//! predictions, model files, ONNX export and the image fit of the Rust crates, called from
//! the package's Python estimators. Nothing here is a second implementation: each function
//! converts Python values into the library's options, runs the library's job on a worker
//! thread with the GIL released, and hands back bytes, numbers and text.
//!
//! Models cross into Python as the bytes of a model file (`iron-learn model v1`, the
//! safetensors file `iron-learn export --format safetensors` writes), so a fitted
//! estimator pickles as plain bytes and reads and writes the command line's files.
//!
//! From Python:
//!
//! ```python
//! from iron_learn import TableRegressor
//! model = TableRegressor(seed=1).fit(frame.drop(columns="price"), frame["price"])
//! model.predict(new_rows)
//! ```

mod background;
mod device;
mod failure;
mod image;
mod model;
mod table;
mod table_options;

use pyo3::prelude::*;

/// The extension module `iron_learn._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table::fit_table, m)?)?;
    m.add_function(wrap_pyfunction!(table::predict_table, m)?)?;
    m.add_function(wrap_pyfunction!(model::model_info, m)?)?;
    m.add_function(wrap_pyfunction!(model::read_model, m)?)?;
    m.add_function(wrap_pyfunction!(model::write_model, m)?)?;
    m.add_function(wrap_pyfunction!(model::write_onnx, m)?)?;
    m.add_function(wrap_pyfunction!(image::fit_image, m)?)?;
    m.add_function(wrap_pyfunction!(image::render_image, m)?)?;
    m.add_function(wrap_pyfunction!(image::render_png, m)?)?;
    m.add_function(wrap_pyfunction!(image::write_png, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_SEED", train::Settings::default().seed)?;
    Ok(())
}
