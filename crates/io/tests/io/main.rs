//! Integration tests of `iron-learn-io`.
//!
//! One test binary for the crate: each module below is one former test file.

mod affine;
mod checkpoint;
mod compact;
mod compact_band;
mod crash;
mod custom_model;
mod dataset;
mod dataset_homes;
mod drawing;
mod fitted;
mod image;
mod image_quality;
mod output;
mod positional_json;
mod shrink;
mod streamed;
mod table;
mod table_encoding;
mod table_files;
mod table_parquet;
mod table_parquet_kinds;
mod table_piecewise;
mod table_typing;
