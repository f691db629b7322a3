//! The multi-layer perceptron: its configuration, builder, state export/import.

pub mod builder;
pub mod config;
pub mod mlp;
pub mod state;
