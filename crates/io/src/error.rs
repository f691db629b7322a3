//! The crate's error type: one enum, each message one sentence that names the problem.

use std::path::{Path, PathBuf};

use crate::table::shown;

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading or writing datasets, images and checkpoints.
///
/// Every message is one sentence that names the file (and, for CSV values, the line and the
/// column) so that a command-line tool can print it as it is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file that should be read does not exist.
    #[error("file `{}` does not exist", path.display())]
    FileNotFound {
        /// The missing file.
        path: PathBuf,
    },

    /// A file to write in a folder that does not exist.
    #[error("there is no folder `{}` to write `{}` in", dir.display(), file.display())]
    NoFolder {
        /// The missing folder.
        dir: PathBuf,
        /// The file to write, as the caller named it.
        file: PathBuf,
    },

    /// An operating-system error while reading or writing a file.
    #[error("could not {action} `{}`: {source}", path.display())]
    Io {
        /// What was being done, e.g. "read" or "rename the temporary file onto".
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A file (or stream) holds nothing at all.
    #[error("`{source_name}` is empty")]
    EmptyFile {
        /// The file name, or a description of the stream.
        source_name: String,
    },

    /// A file given as a text table holds something else (compressed data, an image, a
    /// Parquet or Excel file, binary data).
    #[error("`{source_name}` is {what}, not a text table; {advice}")]
    NotText {
        /// The file name, or a description of the stream.
        source_name: String,
        /// What the file holds, e.g. "a gzip-compressed file".
        what: String,
        /// What to do instead.
        advice: String,
    },

    /// A JSON file that is neither the dataset format nor a table of records.
    #[error(
        "`{source_name}` is not a table in a JSON form read here (records `[{{\"column\": value, ...}}, ...]` as pandas writes with orient=\"records\", JSON lines `{{...}}` one a line as with lines=True, or the dataset format `{{\"m\", \"n\", \"x\", \"y\", ...}}`): {message}"
    )]
    JsonTable {
        /// The file name, or a description of the stream.
        source_name: String,
        /// What is wrong, and where.
        message: String,
    },

    /// A CSV file has a header but no data rows (after dropping rows with missing values, if asked).
    #[error("`{source_name}` has no data rows{}", if *dropped > 0 { format!(" left after dropping {dropped} rows with missing values") } else { String::new() })]
    NoDataRows {
        /// The file name, or a description of the stream.
        source_name: String,
        /// Rows dropped because of missing values.
        dropped: usize,
    },

    /// A CSV row that the parser could not read (bad quoting, invalid UTF-8, ...).
    #[error("`{source_name}` line {line}: {message}")]
    CsvSyntax {
        /// The file name, or a description of the stream.
        source_name: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },

    /// A CSV row with a different number of fields than the header.
    #[error("`{source_name}` line {line} has {found} fields but the header has {expected}")]
    RaggedRow {
        /// The file name, or a description of the stream.
        source_name: String,
        /// 1-based line number.
        line: u64,
        /// Fields in the row.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },

    /// A CSV cell that should hold a number does not.
    #[error(
        "`{source_name}` {place}, column `{column}`: `{}` is not a number",
        shown(value)
    )]
    BadNumber {
        /// The file name, or a description of the stream.
        source_name: String,
        /// Where the row is in the file.
        place: crate::table::RowPlace,
        /// Column name from the header.
        column: String,
        /// The offending text.
        value: String,
    },

    /// A CSV cell holds a number beyond the range of 32-bit floats (about ±3.4e38).
    #[error(
        "`{source_name}` {place}, column `{column}`: `{}` is too large for a 32-bit float",
        shown(value)
    )]
    NumberTooLarge {
        /// The file name, or a description of the stream.
        source_name: String,
        /// Where the row is in the file.
        place: crate::table::RowPlace,
        /// Column name from the header.
        column: String,
        /// The offending text.
        value: String,
    },

    /// A CSV file whose header is one column that holds another separator (`;`, tab).
    #[error("`{source_name}` has a single column `{header}`: it looks separated by {separator} rather than commas; save it comma-separated{}", if *separator == "tabs" { " or name it .tsv" } else { "" })]
    WrongSeparator {
        /// The file name, or a description of the stream.
        source_name: String,
        /// The header line as read.
        header: String,
        /// The separator it seems to use, in words ("semicolons", "tabs").
        separator: &'static str,
    },

    /// A CSV cell is empty, `NA` or `nan` while missing values are not allowed.
    #[error(
        "`{source_name}` {place}, column `{column}`: value is missing ({}); ask to drop rows with missing values to skip such rows",
        if value.is_empty() { "empty cell".to_string() } else { format!("`{}`", shown(value)) }
    )]
    MissingValue {
        /// The file name, or a description of the stream.
        source_name: String,
        /// Where the row is in the file.
        place: crate::table::RowPlace,
        /// Column name from the header.
        column: String,
        /// The cell's text as written (empty, `NA`, `nan`, ...).
        value: String,
    },

    /// New rows whose column holds no cell readable as the type the model was trained on
    /// (every cell that is not missing is text where numbers were read, say).
    #[error("`{source_name}`: column `{column}`: {note}, which the model reads there")]
    UnreadableColumn {
        /// The file name, or a description of the stream.
        source_name: String,
        /// Column name.
        column: String,
        /// How many cells are not what the model reads (`numbers`, `dates`, `yes/no
        /// values`), with examples.
        note: String,
    },

    /// New rows' dates read in another order of day and month than the model's: read the
    /// model's way, their days and months would be swapped (or, for a model of year-first
    /// dates, not read).
    #[error(
        "`{source_name}`: column `{column}` has dates written {}, but the model reads them \
         written {}; write them so{}",
        found.written(),
        trained.written(),
        match trained {
            crate::table::DateOrder::YearFirst => "",
            _ => ", or their days and months would be swapped",
        }
    )]
    DatesInAnotherOrder {
        /// The file name, or a description of the stream.
        source_name: String,
        /// Column name.
        column: String,
        /// How the model reads the column's dates.
        trained: crate::table::DateOrder,
        /// How the new rows write them.
        found: crate::table::DateOrder,
    },

    /// A column asked for by name is not in the header.
    #[error(
        "`{source_name}` has no column `{name}`{}; available columns: {}",
        case_hint(name, available),
        available.join(", ")
    )]
    UnknownColumn {
        /// The file name, or a description of the stream.
        source_name: String,
        /// The name asked for.
        name: String,
        /// The header's column names.
        available: Vec<String>,
    },

    /// A column asked to be read one way (as categories, as numbers, or left out) is not in
    /// the header.
    #[error(
        "`{name}`, asked to be {how}, is not a column of `{source_name}`{}; columns: {}",
        case_hint(name, available),
        available.join(", ")
    )]
    OverrideUnknownColumn {
        /// The file name, or a description of the stream.
        source_name: String,
        /// How it was asked to be read.
        how: crate::table::ColumnOverride,
        /// The name asked for.
        name: String,
        /// The header's column names.
        available: Vec<String>,
    },

    /// The target column asked to be read as a feature is (as categories, as numbers, or
    /// left out).
    #[error(
        "`{name}` is the target and cannot also be {how}: the column overrides are for the \
         features, and the task decides how the target is read"
    )]
    OverrideOfTarget {
        /// The target column.
        name: String,
        /// How it was asked to be read.
        how: crate::table::ColumnOverride,
    },

    /// A column asked to be read as numbers of which fewer than half the filled cells are
    /// numbers.
    #[error(
        "column `{name}` is asked to be read as numbers, but {} of its {cells} filled cells \
         {} (`{examples}`)",
        match numbers { 0 => "none".to_string(), n => format!("only {n}") },
        if *numbers <= 1 { "is a number" } else { "are numbers" }
    )]
    FewNumbers {
        /// The column.
        name: String,
        /// Its cells that are numbers.
        numbers: usize,
        /// Its cells that are not missing.
        cells: usize,
        /// A few of its values.
        examples: String,
    },

    /// One column asked to be read two ways.
    #[error("column `{name}` is asked to be both {first} and {second}")]
    OverriddenTwice {
        /// The column.
        name: String,
        /// The first way asked.
        first: crate::table::ColumnOverride,
        /// The second.
        second: crate::table::ColumnOverride,
    },

    /// A JSON dataset that cannot be parsed.
    #[error("`{source_name}` is not a valid dataset JSON file: {message}")]
    Json {
        /// The file name, or a description of the stream.
        source_name: String,
        /// What is wrong (from the JSON parser, with line and column).
        message: String,
    },

    /// A JSON dataset whose arrays do not match the sizes it declares.
    #[error("`{source_name}`: `{field}` has {found} values but {expected_formula} = {expected}")]
    JsonSize {
        /// The file name, or a description of the stream.
        source_name: String,
        /// The array that is wrong (`x`, `y`, `x_test`, `y_test`).
        field: &'static str,
        /// Values it holds.
        found: usize,
        /// Values it should hold.
        expected: usize,
        /// How `expected` was computed, e.g. `m*n = 321*6`.
        expected_formula: String,
    },

    /// The file's format cannot be told from its extension or its content.
    #[error("cannot tell the format of `{}`: expected a `.csv` or `.json` dataset", path.display())]
    UnknownFormat {
        /// The file concerned.
        path: PathBuf,
    },

    /// An image file that cannot be decoded (or encoded).
    #[error("cannot {action} image `{}`: {message}", path.display())]
    Image {
        /// "decode" or "encode".
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// What the image library said.
        message: String,
    },

    /// A pixel CSV (`x,y,value` or `x,y,r,g,b`) with a bad row, a duplicate or a missing pixel.
    #[error("`{source_name}`{}: {message}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    PixelCsv {
        /// The file name, or a description of the stream.
        source_name: String,
        /// 1-based line number, where one row is at fault.
        line: Option<u64>,
        /// What is wrong.
        message: String,
    },

    /// Two pictures that should have the same size and channel count do not.
    #[error("{what}: sizes differ, {left} vs {right}")]
    SizeMismatch {
        /// The operation, e.g. "psnr".
        what: &'static str,
        /// First operand, as `WxHxC`.
        left: String,
        /// Second operand, as `WxHxC`.
        right: String,
    },

    /// A checkpoint file that is shorter than its header says.
    #[error("checkpoint `{}` is truncated: {detail}", path.display())]
    CheckpointTruncated {
        /// The file concerned.
        path: PathBuf,
        /// Sizes found and expected.
        detail: String,
    },

    /// A file that is not in the safetensors format, or whose Iron Learn metadata is damaged.
    #[error("`{}` is not a valid safetensors checkpoint: {detail}", path.display())]
    NotSafetensors {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },

    /// A checkpoint tensor stored with an element type other than f32 or f16.
    #[error("checkpoint `{}`: tensor `{tensor}` has dtype {dtype}, but Iron Learn reads only F32 and F16 tensors", path.display())]
    UnsupportedDtype {
        /// The file concerned.
        path: PathBuf,
        /// The tensor's name.
        tensor: String,
        /// The dtype found.
        dtype: String,
    },

    /// A value too large for `float16` (beyond ±65504), asked to be stored as `float16`.
    #[error(
        "tensor `{tensor}` holds {value}, beyond float16's range of ±65504; store it as float32"
    )]
    BeyondFloat16 {
        /// The tensor's name.
        tensor: String,
        /// The value.
        value: f32,
    },

    /// A tensor the model needs is not in the checkpoint.
    #[error("checkpoint has no tensor `{name}`; it holds: {}", if available.is_empty() { "no tensors".to_string() } else { available.join(", ") })]
    MissingTensor {
        /// The tensor asked for.
        name: String,
        /// The tensors the checkpoint holds.
        available: Vec<String>,
    },

    /// A checkpoint tensor whose shape differs from the model's.
    #[error("checkpoint tensor `{name}` has shape {found:?} but the model expects {expected:?}")]
    ShapeMismatch {
        /// The tensor's name.
        name: String,
        /// Shape the model expects.
        expected: Vec<usize>,
        /// Shape stored in the checkpoint.
        found: Vec<usize>,
    },

    /// The architecture stored in a checkpoint differs from the one expected.
    #[error("checkpoint architecture differs at `{field}`: expected {expected}, found {found}")]
    ArchitectureMismatch {
        /// JSON path of the first differing field, e.g. `layers[1].width`.
        field: String,
        /// Expected value (JSON text, or `nothing`).
        expected: String,
        /// Stored value (JSON text, or `nothing`).
        found: String,
    },

    /// A table whose header names the same column twice.
    #[error(
        "`{source_name}` names the column `{name}` twice (columns {first} and {second} of the header)"
    )]
    DuplicateColumn {
        /// The file name, or a description of the stream.
        source_name: String,
        /// The repeated name.
        name: String,
        /// 1-based position of its first use.
        first: usize,
        /// 1-based position of its second use.
        second: usize,
    },

    /// A text table whose lines do not all end the same way (`\n`, `\r\n` or `\r`).
    #[error(
        "`{source_name}` line {line} ends with {found} where the lines before end with {expected}; save the file with one kind of line ending"
    )]
    MixedLineEndings {
        /// The file name, or a description of the stream.
        source_name: String,
        /// 1-based line number of the first line that ends differently.
        line: u64,
        /// How that line ends, in words (`LF`, `CRLF`, `CR`).
        found: &'static str,
        /// How the earlier lines end.
        expected: &'static str,
    },

    /// A table cell or column that cannot be used as asked (a text regression target, a
    /// single class, every feature ignored, ...).
    #[error("`{source_name}`: {message}")]
    Table {
        /// The file name, or a description of the stream.
        source_name: String,
        /// What is wrong.
        message: String,
    },

    /// An argument that the caller supplied is out of range or inconsistent.
    #[error("{0}")]
    InvalidArgument(String),

    /// A request (an image to decode, a picture to draw) that would need more memory than the
    /// budget allows; the message says what would fit.
    #[error("{0}")]
    TooLarge(String),

    /// A file that should hold a fitted model does not describe one usable model.
    #[error("`{}` is not a usable iron-learn model: {detail}", path.display())]
    NotAModel {
        /// The file.
        path: PathBuf,
        /// What is missing or inconsistent.
        detail: String,
    },

    /// The network failed (building it from its configuration, restoring its parameters, or
    /// running it).
    #[error(transparent)]
    Network(#[from] nn::Error),
}

impl Error {
    /// Wraps an OS error, turning "not found" on a read into [`Error::FileNotFound`].
    pub(crate) fn io(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        if source.kind() == std::io::ErrorKind::NotFound && action == "read" {
            Error::FileNotFound {
                path: path.to_path_buf(),
            }
        } else {
            Error::Io {
                action,
                path: path.to_path_buf(),
                source,
            }
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Error::InvalidArgument(message.into())
    }
}

/// Reads a whole file, mapping errors to [`Error`].
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io("read", path, e))
}

/// ` (did you mean `Sales`? column names match with their case)` when a column of
/// `available` is `name` but for its case or surrounding spaces; nothing otherwise: the
/// hint of every message about a column name not found.
pub fn case_hint(name: &str, available: &[String]) -> String {
    let wanted = name.trim().to_lowercase();
    match available.iter().find(|c| c.trim().to_lowercase() == wanted) {
        Some(column) => {
            format!(" (did you mean `{column}`? column names match with their case)")
        }
        None => String::new(),
    }
}
