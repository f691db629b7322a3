//! The numeric CSV reader as a view of the table reader: the same parser, sniffer and
//! missing-cell rule; and the pieces both readers share (split draw, unnamed target, file
//! formats, the zero-deviation rule).

use io::Error;
use io::dataset::{
    CsvOptions, Dataset, Standardizer, dataset_from_table, read_csv, split_indices,
    train_test_split,
};
use io::table::{RowPlace, Table, load_table_file, read_table, target_column};

fn csv(text: &str, options: &CsvOptions) -> io::Result<Dataset> {
    read_csv(text.as_bytes(), "t.csv", options)
}

#[test]
fn quoted_fields_and_an_excel_separator_line_read_as_the_table_reader_reads_them() {
    let d = csv("a,\"b, quoted\",y\n\"1\",2,3\n", &CsvOptions::new()).unwrap();
    assert_eq!(d.feature_names, ["a", "b, quoted"]);
    assert_eq!(
        (d.x.as_slice(), d.y.as_slice()),
        (&[1.0, 2.0][..], &[3.0][..])
    );
    // Excel's `sep=` line names the delimiter; the rows keep their file lines.
    let e = csv("sep=;\na;b\n1;x\n", &CsvOptions::new().delimiter(b';')).unwrap_err();
    assert!(
        matches!(e, Error::BadNumber { place: RowPlace::Line(3), ref value, .. } if value == "x"),
        "{e:?}"
    );
}

#[test]
fn every_missing_token_of_the_table_reader_is_missing_here() {
    for token in io::table::MISSING_TOKENS {
        let text = format!("a,b\n1,2\n{token},3\n");
        let e = csv(&text, &CsvOptions::new()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::MissingValue {
                    place: RowPlace::Line(3),
                    ..
                }
            ),
            "{token:?}: {e:?}"
        );
        let d = csv(&text, &CsvOptions::new().drop_missing(true)).unwrap();
        assert_eq!(d.rows, 1, "{token:?}");
    }
}

#[test]
fn a_pipe_separated_file_read_with_commas_gets_the_hint() {
    let e = csv("a|b|y\n1|2|3\n", &CsvOptions::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::WrongSeparator {
                separator: "vertical bars",
                ..
            }
        ),
        "{e:?}"
    );
    // A single column that holds no delimiter is a plain one-column table.
    let e = csv("y\n1\n", &CsvOptions::new()).unwrap_err();
    assert!(e.to_string().contains("no feature columns"), "{e}");
}

#[test]
fn the_numeric_view_of_a_table_matches_reading_the_text() {
    let text = "x1,x2,y\n1,2,3\n4,5,6\n";
    let table = read_table(text.as_bytes(), "t.csv", None).unwrap();
    let options = CsvOptions::new().target("x1");
    assert_eq!(
        dataset_from_table(&table, &options).unwrap(),
        csv(text, &options).unwrap()
    );
}

#[test]
fn the_split_draw_is_the_datasets_split() {
    let x: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let data = Dataset::new(x.clone(), x, 10, vec![], vec![]).unwrap();
    let split = train_test_split(&data, 0.3, 5).unwrap();
    let (kept, held) = split_indices(10, 0.3, 5).unwrap();
    let as_rows = |idx: &[usize]| idx.iter().map(|&i| i as f32).collect::<Vec<_>>();
    assert_eq!(split.train.y, as_rows(&kept));
    assert_eq!(split.test.unwrap().y, as_rows(&held));
    assert_eq!(held.len(), 3);
    assert!(split_indices(1, 0.5, 5).is_none());
    // At least one row each side, whatever the share.
    assert_eq!(split_indices(3, 0.01, 1).unwrap().1.len(), 1);
    assert_eq!(split_indices(3, 0.99, 1).unwrap().0.len(), 1);
}

#[test]
fn an_unnamed_target_is_the_last_column() {
    let table = Table::from_rows("t.csv", &["a", "b", "c"], &[vec!["1", "2", "3"]]).unwrap();
    assert_eq!(target_column(&table, None).unwrap(), 2);
    assert_eq!(target_column(&table, Some("a")).unwrap(), 0);
    let e = target_column(&table, Some("z")).unwrap_err();
    assert!(matches!(e, Error::UnknownColumn { .. }), "{e:?}");
}

#[test]
fn table_files_of_each_format_read_as_text_tables() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("t.tsv");
    std::fs::write(&tsv, "a\tb\n1\t2\n").unwrap();
    assert_eq!(load_table_file(&tsv).unwrap().rows.names(), ["a", "b"]);
    let json = dir.path().join("d.json");
    let dataset = r#"{"m":2,"n":1,"m_test":1,"x":[1,2],"y":[3,4.5],"x_test":[5],"y_test":[6]}"#;
    std::fs::write(&json, dataset).unwrap();
    let file = load_table_file(&json).unwrap();
    assert_eq!(file.rows.names(), ["x0", "y"]);
    assert_eq!(file.rows.column(1).get(1), "4.5");
    assert_eq!(file.test.unwrap().rows(), 1);
    let records = dir.path().join("r.json");
    // One record in an array is a table, not the dataset format.
    std::fs::write(&records, r#"[{"a": 1, "b": "x"}]"#).unwrap();
    assert_eq!(load_table_file(&records).unwrap().rows.names(), ["a", "b"]);
}

#[test]
fn a_constant_column_is_scaled_by_one() {
    let scaler = Standardizer::fit(&[2.0, 5.0, 2.0, 7.0], 2).unwrap();
    assert_eq!(scaler.std, [1.0, 1.0]);
    assert_eq!(scaler.transform(&[2.0, 6.0]).unwrap(), [0.0, 0.0]);
}
