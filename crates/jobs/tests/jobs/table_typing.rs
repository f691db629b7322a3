//! Column types decided on the whole table before the split: a row counter is an identifier
//! whatever the split, numbers written with separators are numbers, stray target words are
//! dropped rows, and a separate test file says what it holds that cannot be read.

use jobs::table::{TableOptions, prepare};

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// 200 rows sorted by label: `id` counts them, `amount` carries the label written with
/// thousands separators and a currency sign, `noise` carries nothing.
fn sorted_table() -> String {
    let mut text = String::from("id,amount,noise,label\n");
    for r in 0..200 {
        let label = if r < 100 { "low" } else { "high" };
        let amount = if r < 100 {
            1_000 + r * 3
        } else {
            5_000 + r * 7
        };
        let amount = format!("\"${},{:03}.{}\"", amount / 1000, amount % 1000, r % 10);
        text += &format!("{},{amount},{},{label}\n", r + 1, (r * 37) % 11);
    }
    text
}

#[test]
fn a_row_counter_is_an_identifier_before_the_split() {
    let dir = tempfile::tempdir().unwrap();
    let options = TableOptions {
        target: Some("label".into()),
        ..TableOptions::split(write(dir.path(), "t.csv", &sorted_table()), 0.25, 0.0)
    };
    let p = prepare(&options, None).unwrap();
    let kind = |n: &str| {
        let c = p.schema.columns.iter().find(|c| c.name == n).unwrap();
        (c.kind.clone(), c.encoding.clone())
    };
    assert_eq!(kind("id").0, "identifier");
    assert_eq!(kind("amount").0, "number");
    assert!(
        kind("amount").1.contains("written $1,234.56"),
        "{:?}",
        kind("amount")
    );
    assert_eq!(p.encoding.input_columns(), ["amount", "noise"]);
    // Types are counted on the whole file, the encoding fitted on the training rows.
    assert_eq!(p.schema.columns[0].rows, 200);
    assert_eq!(p.train.rows, 150);
    // The amounts are read as written: the training median lies between the two groups' values.
    let amount = &p.encoding.columns[0];
    let io::table::ColumnEncoder::Number { scaling, .. } = amount else {
        panic!("{amount:?}")
    };
    assert!(
        scaling.fill > 1_000.0 && scaling.fill < 6_400.0,
        "{scaling:?}"
    );
}

#[test]
fn a_stray_word_in_a_numeric_target_drops_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("x,price\n");
    (0..300).for_each(|r| text += &format!("{},{}.99\n", (r * 13) % 50, 100 + r % 37));
    text += "7,unknown\n";
    let p = prepare(
        &TableOptions::split(write(dir.path(), "t.csv", &text), 0.2, 0.0),
        None,
    )
    .unwrap();
    assert!(!p.classify);
    assert_eq!(p.train.rows + p.test.as_ref().unwrap().rows, 300);
    let note = p.notes.join("\n");
    assert!(
        note.contains("dropped 1 row of") && note.contains("is not a number (`unknown`)"),
        "{note}"
    );
}

#[test]
fn whole_number_codes_are_classes_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("x,grade\n");
    (0..60).for_each(|r| text += &format!("{}.5,{}\n", (r * 13) % 50, r % 3));
    let p = prepare(
        &TableOptions::split(write(dir.path(), "t.csv", &text), 0.2, 0.0),
        None,
    )
    .unwrap();
    assert!(p.classify);
    assert_eq!(
        p.labels.as_deref(),
        Some(&["0".into(), "1".into(), "2".into()][..])
    );
    let note = p.task_note.unwrap();
    assert_eq!(note.other_task, "regression");
    assert!(note.text.contains("whole-number codes"), "{}", note.text);
}

#[test]
fn a_test_file_says_which_cells_it_could_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut train = String::from("age,y\n");
    (0..40).for_each(|r| train += &format!("{},{}\n", 20 + (r * 7) % 40, r % 2));
    let mut test = String::from("age,y\n");
    (0..10).for_each(|r| {
        test += &format!(
            "{},{}\n",
            if r < 3 { "old".into() } else { r.to_string() },
            r % 2
        )
    });
    let options = TableOptions {
        test_data: Some(write(dir.path(), "test.csv", &test)),
        ..TableOptions::split(write(dir.path(), "train.csv", &train), 0.2, 0.0)
    };
    let p = prepare(&options, None).unwrap();
    let note = p.notes.join("\n");
    assert!(
        note.contains("age: 3 of 10 cells are not numbers (`old`), read as missing"),
        "{note}"
    );
    let mut bad = String::from("age,y\n");
    (0..10).for_each(|r| bad += &format!("{},1\n", ["old", "young"][r % 2]));
    let options = TableOptions {
        test_data: Some(write(dir.path(), "test.csv", &bad)),
        ..options
    };
    let e = prepare(&options, None).err().unwrap().to_string();
    assert!(
        e.contains("column `age`: 10 of 10 cells are not numbers"),
        "{e}"
    );
    assert!(!e.contains("--"), "{e}");
}
