//! Parquet as pandas 2, Spark and databases write it: timestamps of every unit, with and
//! without a time zone, read as date-times; pages compressed with every common codec read.

use std::sync::Arc;

use io::table::{ColumnKind, TypeOverrides, infer_schema, read_parquet};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::data_type::{DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// 2023-11-14 22:13:20 UTC, as seconds since 1970-01-01.
const SECONDS: i64 = 1_700_000_000;

/// One int64 column `t` whose logical type is `logical` (as the schema parser writes it),
/// holding `values`, and a double column `y`, compressed with `codec`.
fn file(logical: &str, values: &[i64], codec: Compression) -> Vec<u8> {
    let schema = parse_message_type(&format!(
        "message m {{ required int64 t {logical}; required double y; }}"
    ))
    .unwrap();
    let props = WriterProperties::builder().set_compression(codec).build();
    let mut bytes = Vec::new();
    let mut writer =
        SerializedFileWriter::new(&mut bytes, Arc::new(schema), Arc::new(props)).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<Int64Type>()
        .write_batch(values, None, None)
        .unwrap();
    column.close().unwrap();
    let y: Vec<f64> = (0..values.len()).map(|i| i as f64 * 0.5).collect();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<DoubleType>()
        .write_batch(&y, None, None)
        .unwrap();
    column.close().unwrap();
    group.close().unwrap();
    writer.close().unwrap();
    bytes
}

#[test]
fn timestamps_of_every_unit_are_date_times() {
    for (unit, per_second) in [
        ("NANOS", 1_000_000_000),
        ("MICROS", 1_000_000),
        ("MILLIS", 1_000),
    ] {
        for utc in ["true", "false"] {
            let logical = format!("(TIMESTAMP({unit},{utc}))");
            let values: Vec<i64> = (0..4)
                .map(|d| (SECONDS + d * 86_400) * per_second + per_second / 3)
                .collect();
            let t = read_parquet(file(&logical, &values, Compression::SNAPPY), "t.parquet")
                .unwrap_or_else(|e| panic!("{logical}: {e}"));
            assert_eq!(t.column(0).get(0), "2023-11-14 22:13:20", "{logical}");
            assert_eq!(t.column(0).get(3), "2023-11-17 22:13:20", "{logical}");
            let schema = infer_schema(&t, Some("y"), &TypeOverrides::default()).unwrap();
            assert!(
                matches!(schema[0].kind, ColumnKind::Date { .. }),
                "{logical}: {:?}",
                schema[0].kind
            );
        }
    }
    // Before 1970 the seconds round down, not toward zero.
    let t = read_parquet(
        file("(TIMESTAMP(NANOS,true))", &[-1, 0], Compression::SNAPPY),
        "t.parquet",
    )
    .unwrap();
    assert_eq!(t.column(0).get(0), "1969-12-31 23:59:59");
    // A plain int64 stays a number.
    let t = read_parquet(file("", &[SECONDS, 7], Compression::SNAPPY), "t.parquet").unwrap();
    assert_eq!(t.column(0).get(0), "1700000000");
}

#[test]
fn every_common_codec_is_read() {
    let values = [1i64, 2, 3, 4];
    for codec in [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::GZIP(GzipLevel::default()),
        Compression::ZSTD(ZstdLevel::default()),
        Compression::BROTLI(BrotliLevel::default()),
        Compression::LZ4_RAW,
        Compression::LZ4,
    ] {
        let t = read_parquet(file("", &values, codec), "t.parquet")
            .unwrap_or_else(|e| panic!("{codec:?}: {e}"));
        let y: Vec<&str> = t.column(1).iter().collect();
        assert_eq!(y, ["0", "0.5", "1", "1.5"], "{codec:?}");
    }
}
