//! Tables as people have them: text cells read as they are ([`Table`], [`read_table`]; any
//! table file, CSV, Parquet or JSON, by [`load_table_file`]), column types decided from the
//! whole table in file order ([`infer_schema`]), numbers read as people write them
//! ([`NumberFormat`]), and an encoding fitted on the training rows ([`Preprocessor`]) that
//! turns any table with the same columns into the numbers a network takes. The one parser,
//! delimiter sniffer and missing-cell rule of the crate: the numeric CSV reader of
//! [`crate::dataset`] is a view of [`read_table`]'s table.
//!
//! ```
//! use io::table::{EncodeOptions, Preprocessor, TypeOverrides, infer_schema, read_table};
//!
//! let text = "id;size;colour;sold;price\n1;50;red;yes;100\n2;NA;blue;no;160\n3;120;red;yes;250\n";
//! let table = read_table(text.as_bytes(), "houses.csv", None)?;
//! let schema = infer_schema(&table, Some("price"), &TypeOverrides::default())?;
//! let kinds: Vec<String> = schema.iter().map(|c| c.kind.to_string()).collect();
//! assert_eq!(kinds, ["number", "number", "category", "yes/no"]);
//! let options = EncodeOptions { min_count: 1, ..EncodeOptions::default() };
//! let encoding = Preprocessor::fit(&table, &schema, &options)?;
//! assert_eq!(
//!     encoding.output_names(),
//!     ["id", "size", "size_missing", "colour=red", "colour=blue", "sold"]
//! );
//! let x = encoding.transform(&table)?;
//! assert_eq!(&x[3..6], &[1.0, 0.0, 1.0]); // row 1: red, yes
//! # Ok::<(), io::Error>(())
//! ```

mod category;
mod cells;
mod column;
mod counts;
mod dates;
mod encode;
mod file;
mod infer;
mod json;
mod names;
mod notes;
mod numbers;
mod parquet;
mod parts;
mod piecewise;
mod place;
mod plain;
mod preprocessor;
mod printed;
mod read;
mod sniff;
mod target;
mod text;

pub use crate::error::case_hint;
pub use cells::{
    MISSING_TOKENS, NO_WORDS, YES_WORDS, is_missing, number, number_f32, too_large_for_f32, yes_no,
};
pub use dates::{DateOrder, DateTime};
pub use encode::{ColumnEncoder, DateField, EncodeOptions, Scaling};
pub use file::{TableFile, is_parquet, load_table_file};
pub use infer::{
    ColumnInfo, ColumnKind, ColumnOverride, FEW_WORDS, IDENTIFIER_MIN_ROWS, IDENTIFIER_SHARE,
    MANY_VALUES, MOSTLY_NUMBERS, SOME_NUMBERS, TypeOverrides, infer_schema, is_id_name,
};
pub use json::{is_dataset_json, read_json_table};
pub use names::{MAX_NAME_BYTES, short_name};
pub use notes::{ReadNote, number_notes};
pub use numbers::NumberFormat;
pub use parquet::{load_parquet, read_parquet};
pub use piecewise::{Piecewise, PlainColumn};
pub use place::RowPlace;
pub use preprocessor::Preprocessor;
pub use read::{
    DELIMITERS, TableEstimate, estimate_text_table, load_table, path_delimiter, read_bytes,
    read_table, sniff_delimiter,
};
pub use sniff::{SHOWN_CHARS, shown};
pub use target::{
    MAX_CODES, STRAY_TARGETS, TaskGuess, class_indices, class_labels, guess_task,
    looks_categorical, regression_targets, regression_targets_as, rows_with_number_target,
    rows_with_target, target_column, target_number_format,
};
pub use text::{Cell, ColumnRef, Table, TextColumn};
