//! A Parquet table, end to end: `mlp --data FILE.parquet`, `--test-data` and `predict --data`
//! on Parquet files, and a file named `.parquet` that is not Parquet is one clear line.

use crate::common::*;
use std::path::Path;
use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, DoubleType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// Writes `rows` rows of `x` (a number with nulls), `colour` (a string) and `y`, a class
/// word that `x` decides.
fn write_parquet(path: &Path, rows: usize) {
    let schema = parse_message_type(
        "message t { optional double x; required binary colour (UTF8); required binary y (UTF8); }",
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let props = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(file, Arc::new(schema), props).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let xs: Vec<f64> = (0..rows).map(|r| (r % 40) as f64 / 40.0).collect();
    let defined: Vec<i16> = (0..rows).map(|r| i16::from(r % 13 != 4)).collect();
    let present: Vec<f64> = (0..rows).filter(|r| r % 13 != 4).map(|r| xs[r]).collect();
    let mut column = group.next_column().unwrap().unwrap();
    column
        .typed::<DoubleType>()
        .write_batch(&present, Some(&defined), None)
        .unwrap();
    column.close().unwrap();
    let words = |f: &dyn Fn(usize) -> &'static str| -> Vec<ByteArray> {
        (0..rows).map(|r| ByteArray::from(f(r))).collect()
    };
    for values in [
        words(&|r| ["red", "blue"][r % 2]),
        words(&|r| if (r % 40) < 20 { "low" } else { "high" }),
    ] {
        let mut column = group.next_column().unwrap().unwrap();
        column
            .typed::<ByteArrayType>()
            .write_batch(&values, None, None)
            .unwrap();
        column.close().unwrap();
    }
    group.close().unwrap();
    writer.close().unwrap();
}

#[test]
fn parquet_trains_scores_and_predicts() {
    let dir = tmp();
    let train_file = dir.path().join("train.parquet");
    let test_file = dir.path().join("test.parquet");
    write_parquet(&train_file, 400);
    write_parquet(&test_file, 80);
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp",
            "--data",
            train_file.to_str().unwrap(),
            "--test-data",
            test_file.to_str().unwrap(),
            "--target",
            "y",
            "--epochs",
            "40",
        ],
        &run_dir,
    );
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("category") && out.contains("number"),
        "{}",
        describe(&o)
    );
    let m = metrics(&run_dir);
    assert!(num(&m, "test_accuracy") > 0.85, "{m}");
    let o = run([
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        test_file.to_str().unwrap(),
    ]);
    assert_success(&o);
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 81, "{text}");
    assert!(
        text.lines().nth(1).is_some_and(|l| l.starts_with("low,")),
        "{text}"
    );
}

#[test]
fn not_parquet_is_one_line() {
    let dir = tmp();
    let fake = dir.path().join("fake.parquet");
    std::fs::write(&fake, "x,y\n1,2\n3,4\n").unwrap();
    let run_dir = dir.path().join("run");
    let o = train(&["mlp", "--data", fake.to_str().unwrap()], &run_dir);
    assert_one_line_error(&o, &["fake.parquet", "not a Parquet file"]);
    assert!(!run_dir.exists(), "nothing is written");
}
