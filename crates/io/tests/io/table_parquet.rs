//! Parquet tables: written here with the `parquet` crate, read back as the same text cells
//! and column types as the same table written as CSV; a truncated file and a file that is
//! not Parquet are each one clear error.

use std::sync::Arc;

use io::table::{TypeOverrides, infer_schema, read_parquet, read_table};
use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// The same four rows as [`CSV`]: a number with a null, a string (dictionary-encoded by
/// default), a boolean with a null, a whole-number target.
fn small_parquet() -> Vec<u8> {
    let schema = parse_message_type(
        "message houses { optional double size; required binary colour (UTF8); \
         optional boolean sold; required int64 price; }",
    )
    .unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut bytes = Vec::new();
    let mut writer =
        SerializedFileWriter::new(&mut bytes, Arc::new(schema), Arc::new(props)).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<DoubleType>()
        .write_batch(&[50.5, 120.0, 80.25], Some(&[1, 0, 1, 1]), None)
        .unwrap();
    column.close().unwrap();
    let colours: Vec<ByteArray> = ["red", "blue", "red", "green"]
        .iter()
        .map(|s| ByteArray::from(*s))
        .collect();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<ByteArrayType>()
        .write_batch(&colours, None, None)
        .unwrap();
    column.close().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<BoolType>()
        .write_batch(&[true, false, true], Some(&[1, 1, 0, 1]), None)
        .unwrap();
    column.close().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<Int64Type>()
        .write_batch(&[100, 160, 250, 90], None, None)
        .unwrap();
    column.close().unwrap();
    group.close().unwrap();
    writer.close().unwrap();
    bytes
}

const CSV: &str = "size,colour,sold,price\n50.5,red,true,100\n,blue,false,160\n120,red,,250\n80.25,green,true,90\n";

#[test]
fn parquet_reads_as_the_same_table_as_csv() {
    let from_parquet = read_parquet(small_parquet(), "houses.parquet").unwrap();
    let from_csv = read_table(CSV.as_bytes(), "houses.csv", None).unwrap();
    assert_eq!(from_parquet.names(), from_csv.names());
    assert_eq!(from_parquet.rows(), 4);
    for c in 0..from_csv.names().len() {
        let p: Vec<&str> = from_parquet.column(c).iter().collect();
        let t: Vec<&str> = from_csv.column(c).iter().collect();
        assert_eq!(p, t, "column {}", from_csv.names()[c]);
    }
    let kinds = |t| {
        infer_schema(t, Some("price"), &TypeOverrides::default())
            .unwrap()
            .iter()
            .map(|c| (c.kind.to_string(), c.missing))
            .collect::<Vec<_>>()
    };
    let parquet_kinds = kinds(&from_parquet);
    assert_eq!(parquet_kinds, kinds(&from_csv));
    assert_eq!(
        parquet_kinds,
        [
            ("number".to_string(), 1),
            ("category".to_string(), 0),
            ("yes/no".to_string(), 1)
        ]
    );
}

#[test]
fn truncated_parquet_is_one_clear_error() {
    let bytes = small_parquet();
    let cut = bytes[..bytes.len() - 20].to_vec();
    let message = read_parquet(cut, "cut.parquet").unwrap_err().to_string();
    assert!(message.contains("cut.parquet"), "{message}");
    assert!(message.contains("truncated"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
}

#[test]
fn text_named_parquet_is_one_clear_error() {
    let message = read_parquet(CSV.as_bytes().to_vec(), "houses.parquet")
        .unwrap_err()
        .to_string();
    assert!(message.contains("houses.parquet"), "{message}");
    assert!(message.contains("not a Parquet file"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
}
