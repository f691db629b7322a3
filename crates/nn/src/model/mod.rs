//! Models: the [`Model`] trait the trainer and checkpoints work with, and its everyday
//! implementation, the multi-layer perceptron ([`Mlp`](mlp::Mlp)) with its configuration,
//! builder and state export/import, and the hash-grid encoding followed by a small network
//! ([`HashGridMlp`](hashgrid::HashGridMlp)).

pub mod builder;
pub mod config;
pub mod dense;
pub mod ensemble;
mod fold;
pub mod hashgrid;
pub mod hashgrid_config;
pub mod hidden;
mod mask;
pub mod mlp;
mod predict;
pub mod state;
mod traits;

pub use predict::{PREDICT_BUDGET, chunk_rows_for, predict_in_chunks};
pub use state::{export_params, import_params};
pub use traits::{InputSplit, Model};
