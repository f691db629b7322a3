//! The `iron-learn` command line, run as a user would run it.
//!
//! One test binary for the crate: each module below is one former test file.

mod accounting;
mod approx;
mod budget;
mod common;
mod errors;
mod hashgrid;
mod hidden;
mod hostile_tables;
mod image;
mod image_color;
mod limits;
mod log;
mod onnx_runtime;
mod outputs;
mod predict;
mod python;
mod ranks;
#[cfg(feature = "mpi")]
mod ranks_refused;
mod record;
mod render_stops;
mod results;
mod resume;
mod resume_changes;
mod runs;
mod small;
mod special_outputs;
mod table_edges;
mod table_names;
mod table_typing;
mod tables;
mod tables_onnx;
mod tabular;
mod tabular_auto;
mod tabular_parquet;
mod tabular_piecewise;
mod words;
