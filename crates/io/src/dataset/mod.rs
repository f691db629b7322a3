//! Tabular datasets held on the host as plain row-major `Vec<f32>`.
//!
//! - [`read_csv`] / [`load_csv`]: CSV with a header, target columns by name (default: the last),
//!   read by [`crate::table::read_table`] and viewed as numbers ([`dataset_from_table`]).
//! - [`parse_json`] / [`load_json`]: the seed system's JSON format `{m, n, m_test, x, y, x_test, y_test}`.
//! - [`load_dataset`]: picks CSV or JSON by extension (or content), splits off a seeded test part
//!   when the file has none ([`split_indices`], the one seeded draw of held-out rows).
//! - [`Standardizer`]: per-column mean and standard deviation, fitted on the training part only.

mod csv;
mod json;
mod load;
mod split;
mod standardize;
mod table;

pub use self::csv::{CsvOptions, dataset_from_table, load_csv, read_csv};
pub use self::json::{load_json, parse_json};
pub use self::load::{DatasetFormat, LoadOptions, detect_format, load_dataset};
pub use self::split::{held_count, split_indices, train_test_split};
pub(crate) use self::standardize::deviation_or_one;
pub use self::standardize::{Standardization, Standardizer};
pub use self::table::{DataSplit, Dataset};
