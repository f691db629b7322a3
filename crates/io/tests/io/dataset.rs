//! Datasets: CSV, JSON, load_dataset, split and standardisation.

use io::Error;
use io::dataset::{
    CsvOptions, DataSplit, Dataset, LoadOptions, Standardizer, load_csv, load_dataset, parse_json,
    read_csv, train_test_split,
};
use io::table::RowPlace;

const HOUSES: &str = "\
id,size,rooms,age,price
a,50,2,10,100
b,80,3,5,160
c,120,4,30,250
";

fn csv(text: &str, options: &CsvOptions) -> io::Result<Dataset> {
    read_csv(text.as_bytes(), "t.csv", options)
}

#[test]
fn csv_target_by_name_and_feature_subset() {
    let d = csv(
        HOUSES,
        &CsvOptions::new()
            .target("size")
            .features(["rooms", "price"]),
    )
    .unwrap();
    assert_eq!(d.rows, 3);
    assert_eq!((d.n_features, d.n_targets), (2, 1));
    assert_eq!(d.feature_names, ["rooms", "price"]);
    assert_eq!(d.target_names, ["size"]);
    assert_eq!(d.x, [2.0, 100.0, 3.0, 160.0, 4.0, 250.0]);
    assert_eq!(d.y, [50.0, 80.0, 120.0]);
}

#[test]
fn csv_default_target_is_last_column() {
    // The text column `id` must be left out when features are listed; by default all others
    // are features, so use a numeric file here.
    let d = csv("a,b,c\n1,2,3\n4,5,6\n", &CsvOptions::new()).unwrap();
    assert_eq!(d.target_names, ["c"]);
    assert_eq!(d.feature_names, ["a", "b"]);
    assert_eq!(d.x, [1.0, 2.0, 4.0, 5.0]);
    assert_eq!(d.y, [3.0, 6.0]);
    assert_eq!(d.row_x(1), [4.0, 5.0]);
    assert_eq!(d.row_y(1), [6.0]);
}

#[test]
fn csv_several_targets_and_whitespace() {
    let d = csv(
        "x, y , r,g,b\n0, 1, 0.5, 1e-3 ,-2\n",
        &CsvOptions::new().targets(["r", "g", "b"]),
    )
    .unwrap();
    assert_eq!(d.n_targets, 3);
    assert_eq!(d.x, [0.0, 1.0]);
    assert_eq!(d.y, [0.5, 0.001, -2.0]);
}

#[test]
fn csv_bad_value_names_line_and_column() {
    let text = "a,b,c\n1,2,3\n4,five,6\n";
    let e = csv(text, &CsvOptions::new()).unwrap_err();
    match &e {
        Error::BadNumber {
            place,
            column,
            value,
            ..
        } => {
            assert_eq!(
                (*place, column.as_str(), value.as_str()),
                (RowPlace::Line(3), "b", "five")
            );
        }
        other => panic!("wrong error: {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("t.csv") && msg.contains("line 3") && msg.contains("`b`"),
        "{msg}"
    );
}

#[test]
fn csv_unused_text_columns_are_not_parsed() {
    let d = csv(
        HOUSES,
        &CsvOptions::new().features(["size", "rooms", "age"]),
    )
    .unwrap();
    assert_eq!(d.n_features, 3);
    // Without a feature list the text column `id` is a feature and fails on line 2.
    let e = csv(HOUSES, &CsvOptions::new()).unwrap_err();
    assert!(
        matches!(e, Error::BadNumber { place: RowPlace::Line(2), ref column, .. } if column == "id"),
        "{e:?}"
    );
}

#[test]
fn csv_ragged_row() {
    let e = csv("a,b,c\n1,2,3\n4,5\n", &CsvOptions::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::RaggedRow {
                line: 3,
                found: 2,
                expected: 3,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("line 3 has 2 fields but the header has 3")
    );
}

#[test]
fn csv_empty_file_and_header_only() {
    let e = csv("", &CsvOptions::new()).unwrap_err();
    assert!(matches!(e, Error::EmptyFile { .. }), "{e:?}");
    let e = csv("a,b\n", &CsvOptions::new()).unwrap_err();
    assert!(matches!(e, Error::NoDataRows { dropped: 0, .. }), "{e:?}");
}

#[test]
fn csv_missing_values_error_or_dropped() {
    let text = "a,b,c\n1,2,3\n4,NA,6\n7,8,\n9,nan,1\n10,11,12\n";
    let e = csv(text, &CsvOptions::new()).unwrap_err();
    match &e {
        Error::MissingValue { place, column, .. } => {
            assert_eq!((*place, column.as_str()), (RowPlace::Line(3), "b"))
        }
        other => panic!("wrong error: {other:?}"),
    }
    let d = csv(text, &CsvOptions::new().drop_missing(true)).unwrap();
    assert_eq!(d.rows, 2);
    assert_eq!(d.x, [1.0, 2.0, 10.0, 11.0]);
    assert_eq!(d.y, [3.0, 12.0]);
    // Missing values in a column that is not used do not matter.
    let d = csv(text, &CsvOptions::new().features(["a"])).unwrap_err();
    assert!(
        matches!(
            d,
            Error::MissingValue {
                place: RowPlace::Line(4),
                ..
            }
        ),
        "{d:?}"
    );
    let all_missing = "a,b\nNA,1\n";
    let e = csv(all_missing, &CsvOptions::new().drop_missing(true)).unwrap_err();
    assert!(matches!(e, Error::NoDataRows { dropped: 1, .. }), "{e:?}");
}

#[test]
fn csv_unknown_column_lists_available() {
    let e = csv(HOUSES, &CsvOptions::new().target("cost")).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::UnknownColumn { ref name, .. } if name == "cost"));
    assert!(msg.contains("id, size, rooms, age, price"), "{msg}");
    let e = csv(HOUSES, &CsvOptions::new().features(["size", "floors"])).unwrap_err();
    assert!(matches!(e, Error::UnknownColumn { ref name, .. } if name == "floors"));
}

#[test]
fn csv_column_chosen_twice_is_an_error() {
    let e = csv(HOUSES, &CsvOptions::new().target("size").features(["size"])).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
}

/// A number beyond f32 is "too large for a 32-bit float" (as in the JSON reader); the words
/// `inf` and `infinity` are not numbers.
#[test]
fn csv_infinite_value_is_rejected() {
    let e = csv("a,b\n1e40,1\n", &CsvOptions::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NumberTooLarge {
                place: RowPlace::Line(2),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("`a`: `1e40` is too large for a 32-bit float"),
        "{e}"
    );
    let e = csv("a,b\n1,-3.5e38\n", &CsvOptions::new()).unwrap_err();
    assert!(matches!(e, Error::NumberTooLarge { .. }), "{e:?}");
    for word in ["inf", "-infinity"] {
        let e = csv(&format!("a,b\n{word},1\n"), &CsvOptions::new()).unwrap_err();
        assert!(matches!(e, Error::BadNumber { .. }), "{e:?}");
    }
    // The largest f32 itself is fine.
    let d = csv("a,b\n3.4e38,1\n", &CsvOptions::new()).unwrap();
    assert_eq!(d.x, [3.4e38]);
}

/// A semicolon- or tab-separated file read as CSV is one column: the error says which
/// separator it seems to use.
#[test]
fn csv_with_another_separator_gets_a_hint() {
    let e = csv("a;b;y\n1;2;3\n", &CsvOptions::new()).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::WrongSeparator { .. }), "{e:?}");
    assert!(
        text.contains("semicolons") && text.contains("a;b;y"),
        "{text}"
    );
    let e = csv("a\tb\ty\n1\t2\t3\n", &CsvOptions::new()).unwrap_err();
    assert!(
        e.to_string().contains("tabs") && e.to_string().contains(".tsv"),
        "{e}"
    );
    // Read with the right delimiter, the same file works.
    let d = csv("a;b;y\n1;2;3\n", &CsvOptions::new().delimiter(b';')).unwrap();
    assert_eq!((d.n_features, d.y.as_slice()), (2, &[3.0][..]));
}

#[test]
fn csv_file_not_found_names_file() {
    let e = load_csv("/no/such/dir/data.csv", &CsvOptions::new()).unwrap_err();
    assert!(matches!(e, Error::FileNotFound { .. }));
    assert!(e.to_string().contains("/no/such/dir/data.csv"));
}

const XOR: &str = r#"{"m": 4, "n": 2, "m_test": 2,
  "x": [0, 0, 0, 1, 1, 0, 1, 1], "y": [0, 1, 1, 0],
  "x_test": [1, 1, 0.5, 0.25], "y_test": [0, 1]}"#;

#[test]
fn json_good_file_loads() {
    let split = parse_json(XOR.as_bytes(), "xor.json").unwrap();
    assert_eq!(split.train.rows, 4);
    assert_eq!(split.train.n_features, 2);
    assert_eq!(split.train.x, [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]);
    assert_eq!(split.train.y, [0.0, 1.0, 1.0, 0.0]);
    assert_eq!(split.train.feature_names, ["x0", "x1"]);
    let test = split.test.unwrap();
    assert_eq!(test.rows, 2);
    assert_eq!(test.row_x(1), [0.5, 0.25]);
    assert_eq!(test.y, [0.0, 1.0]);
    assert_eq!(split.unlabeled_x, None);
}

#[test]
fn json_without_test_part_and_with_unlabeled_test_inputs() {
    let s = parse_json(br#"{"m":2,"n":1,"x":[1,2],"y":[3,4]}"#, "a.json").unwrap();
    assert!(s.test.is_none() && s.unlabeled_x.is_none());
    let s = parse_json(
        br#"{"m":2,"n":1,"m_test":3,"x":[1,2],"y":[3,4],"x_test":[5,6,7],"y_test":[]}"#,
        "a.json",
    )
    .unwrap();
    assert!(s.test.is_none());
    assert_eq!(s.unlabeled_x, Some(vec![5.0, 6.0, 7.0]));
}

#[test]
fn json_wrong_sizes_error() {
    let cases = [
        (
            r#"{"m":3,"n":2,"x":[1,2,3,4,5],"y":[1,2,3]}"#,
            "x",
            5,
            6,
            "m*n = 3*2",
        ),
        (
            r#"{"m":3,"n":2,"x":[1,2,3,4,5,6],"y":[1,2]}"#,
            "y",
            2,
            3,
            "m",
        ),
        (
            r#"{"m":1,"n":2,"m_test":2,"x":[1,2],"y":[1],"x_test":[1,2,3],"y_test":[1,2]}"#,
            "x_test",
            3,
            4,
            "m_test*n = 2*2",
        ),
        (
            r#"{"m":1,"n":2,"m_test":2,"x":[1,2],"y":[1],"x_test":[1,2,3,4],"y_test":[1]}"#,
            "y_test",
            1,
            2,
            "m_test",
        ),
    ];
    for (text, field, found, expected, formula) in cases {
        let e = parse_json(text.as_bytes(), "bad.json").unwrap_err();
        match &e {
            Error::JsonSize {
                field: f,
                found: fo,
                expected: ex,
                expected_formula,
                ..
            } => {
                assert_eq!((*f, *fo, *ex), (field, found, expected), "{text}");
                assert_eq!(expected_formula, formula);
            }
            other => panic!("wrong error for {text}: {other:?}"),
        }
        assert!(e.to_string().starts_with("`bad.json`: `"), "{e}");
    }
}

#[test]
fn json_syntax_and_missing_field_errors() {
    let e = parse_json(b"{\"m\": 2, ", "t.json").unwrap_err();
    assert!(
        matches!(e, Error::Json { .. }) && e.to_string().contains("line 1"),
        "{e}"
    );
    let e = parse_json(br#"{"m":2,"n":1,"x":[1,2]}"#, "t.json").unwrap_err();
    assert!(e.to_string().contains("missing field `y`"), "{e}");
    let e = parse_json(b"  ", "t.json").unwrap_err();
    assert!(matches!(e, Error::EmptyFile { .. }));
    let e = parse_json(br#"{"m":0,"n":1,"x":[],"y":[]}"#, "t.json").unwrap_err();
    assert!(e.to_string().contains("`m`"), "{e}");
}

#[test]
fn load_dataset_picks_format_and_splits() {
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("d.csv");
    let rows: String = (0..20).map(|i| format!("{i},{}\n", 2 * i)).collect();
    std::fs::write(&csv_path, format!("a,t\n{rows}")).unwrap();
    let s = load_dataset(&csv_path, &LoadOptions::default()).unwrap();
    assert_eq!(s.train.rows, 20);
    assert!(s.test.is_none());
    let opts = LoadOptions {
        test_fraction: Some(0.25),
        ..LoadOptions::default()
    };
    let s = load_dataset(&csv_path, &opts).unwrap();
    assert_eq!((s.train.rows, s.test.as_ref().unwrap().rows), (15, 5));

    // JSON by extension, and by content when the extension says nothing.
    let json_path = dir.path().join("x.json");
    std::fs::write(&json_path, XOR).unwrap();
    let s = load_dataset(&json_path, &opts).unwrap();
    assert_eq!(s.test.unwrap().rows, 2, "a file's own test part is kept");
    let data_path = dir.path().join("xor.data");
    std::fs::write(&data_path, XOR).unwrap();
    assert_eq!(
        load_dataset(&data_path, &LoadOptions::default())
            .unwrap()
            .train
            .rows,
        4
    );
    let tsv_path = dir.path().join("t.tsv");
    std::fs::write(&tsv_path, "a\tb\n1\t2\n").unwrap();
    assert_eq!(
        load_dataset(&tsv_path, &LoadOptions::default())
            .unwrap()
            .train
            .y,
        [2.0]
    );
    let bin_path = dir.path().join("blob.bin");
    std::fs::write(&bin_path, [0xff, 0xfe, 0x00, 0x01]).unwrap();
    let e = load_dataset(&bin_path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, Error::UnknownFormat { .. }), "{e:?}");
}

fn numbered(rows: usize) -> Dataset {
    let x: Vec<f32> = (0..rows * 2).map(|v| v as f32).collect();
    let y: Vec<f32> = (0..rows).map(|v| v as f32 * 10.0).collect();
    Dataset::new(x, y, rows, vec![], vec![]).unwrap()
}

fn row_ids(d: &Dataset) -> Vec<usize> {
    (0..d.rows)
        .map(|r| (d.row_y(r)[0] / 10.0) as usize)
        .collect()
}

#[test]
fn split_is_seeded_disjoint_and_complete() {
    let data = numbered(100);
    let a: DataSplit = train_test_split(&data, 0.2, 7).unwrap();
    let b = train_test_split(&data, 0.2, 7).unwrap();
    let c = train_test_split(&data, 0.2, 8).unwrap();
    assert_eq!(a, b, "same seed, same split");
    assert_ne!(a.test, c.test, "another seed, another split");
    let train = row_ids(&a.train);
    let test = row_ids(a.test.as_ref().unwrap());
    assert_eq!((train.len(), test.len()), (80, 20));
    assert!(train.iter().all(|r| !test.contains(r)), "disjoint");
    let mut all: Vec<usize> = train.iter().chain(&test).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..100).collect::<Vec<_>>(), "every row once");
    // Rows keep their features.
    for (r, &id) in train.iter().enumerate() {
        let id = id as f32;
        assert_eq!(a.train.row_x(r), [2.0 * id, 2.0 * id + 1.0]);
    }
    assert!(train_test_split(&data, 0.0, 1).is_err());
    assert!(train_test_split(&data, 1.0, 1).is_err());
    assert!(train_test_split(&numbered(1), 0.5, 1).is_err());
}

#[test]
fn standardizer_fits_train_only_and_inverts() {
    let data = numbered(50);
    let split = train_test_split(&data, 0.3, 3).unwrap();
    let s = Standardizer::fit(&split.train.x, 2).unwrap();
    // The statistics are those of the training rows, not of all rows.
    let ids: Vec<f64> = row_ids(&split.train).iter().map(|&i| i as f64).collect();
    let mean0 = ids.iter().map(|i| 2.0 * i).sum::<f64>() / ids.len() as f64;
    let var0 = ids.iter().map(|i| (2.0 * i - mean0).powi(2)).sum::<f64>() / ids.len() as f64;
    assert!((f64::from(s.mean[0]) - mean0).abs() < 1e-4);
    assert!((f64::from(s.std[0]) - var0.sqrt()).abs() < 1e-4);
    assert!((s.mean[1] - s.mean[0] - 1.0).abs() < 1e-4);
    let all = Standardizer::fit(&data.x, 2).unwrap();
    assert_ne!(all.mean, s.mean);

    let z = s.transform(&split.train.x).unwrap();
    let col0: Vec<f32> = z.iter().step_by(2).copied().collect();
    let m: f32 = col0.iter().sum::<f32>() / col0.len() as f32;
    let v: f32 = col0.iter().map(|a| (a - m) * (a - m)).sum::<f32>() / col0.len() as f32;
    assert!(
        m.abs() < 1e-5 && (v - 1.0).abs() < 1e-4,
        "mean {m}, var {v}"
    );
    let back = s.inverse_transform(&z).unwrap();
    for (a, b) in back.iter().zip(&split.train.x) {
        assert!((a - b).abs() < 1e-3, "{a} vs {b}");
    }
    assert!(s.transform(&[1.0, 2.0, 3.0]).is_err());
}

#[test]
fn standardizer_constant_column_and_serde() {
    let s = Standardizer::fit(&[5.0, 1.0, 5.0, 3.0], 2).unwrap();
    assert_eq!(s.mean, [5.0, 2.0]);
    assert_eq!(s.std, [1.0, 1.0]);
    assert_eq!(s.transform(&[5.0, 4.0]).unwrap(), [0.0, 2.0]);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json, r#"{"mean":[5.0,2.0],"std":[1.0,1.0]}"#);
    let back: Standardizer = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    assert!(Standardizer::fit(&[], 2).is_err());
    assert!(Standardizer::fit(&[1.0, 2.0, 3.0], 2).is_err());
}

#[test]
fn split_standardize_uses_train_statistics_everywhere() {
    let mut split = parse_json(
        br#"{"m":4,"n":2,"m_test":1,"x":[1,10, 3,10, 5,10, 7,10],"y":[2,4,6,8],
             "x_test":[9,11],"y_test":[10]}"#,
        "s.json",
    )
    .unwrap();
    let stats = split.standardize(true).unwrap();
    assert_eq!(stats.features.mean, [4.0, 10.0]);
    assert_eq!(stats.features.std, [5f32.sqrt(), 1.0]);
    let t = stats.targets.as_ref().unwrap();
    assert_eq!(t.mean, [5.0]);
    let test = split.test.as_ref().unwrap();
    assert!((test.x[0] - 5.0 / 5f32.sqrt()).abs() < 1e-6);
    assert_eq!(test.x[1], 1.0);
    assert!((test.y[0] - 5.0 / 5f32.sqrt()).abs() < 1e-6);
    assert!((t.inverse_transform(&test.y).unwrap()[0] - 10.0).abs() < 1e-5);
    let json = serde_json::to_value(&stats).unwrap();
    assert_eq!(json["features"]["mean"], serde_json::json!([4.0, 10.0]));
}
