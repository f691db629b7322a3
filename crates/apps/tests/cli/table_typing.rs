//! Tables read right from the command line: a row counter and money written with separators
//! in a file sorted by label, new rows without the ignored columns and with cells that cannot
//! be read, and a target of whole-number codes.

use crate::common::*;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `rows` rows sorted by label: `id` counts them; `amount` (written `$1,234.5`) carries the
/// label; `age` is noise.
fn sorted(rows: usize) -> String {
    let mut text = String::from("id,amount,age,label\n");
    for r in 0..rows {
        let high = r >= rows / 2;
        let cents = if high { 500_000 } else { 100_000 } + (r * 7919) % 90_000;
        let amount = format!(
            "\"${},{:03}.{:02}\"",
            cents / 100_000,
            (cents / 100) % 1000,
            cents % 100
        );
        let label = if high { "high" } else { "low" };
        text += &format!("{},{amount},{},{label}\n", r + 1, 20 + (r * 13) % 50);
    }
    text
}

#[test]
fn separators_are_numbers_and_the_row_counter_is_not_needed_to_predict() {
    let dir = tmp();
    let data = write(dir.path(), "sorted.csv", &sorted(400));
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--data",
            &data,
            "--target",
            "label",
        ],
        &run_dir,
    );
    assert_success(&o);
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("schema.json")).unwrap()).unwrap();
    let column = |n: &str| {
        schema["columns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(column("id")["type"], "identifier", "{schema}");
    assert_eq!(column("amount")["type"], "number", "{schema}");
    let shown = column("amount")["encoding"].as_str().unwrap().to_string();
    assert!(shown.contains("written $1,234.56"), "{shown}");
    assert!(stdout(&o).contains("written $1,234.56"), "{}", describe(&o));
    assert!(num(&metrics(&run_dir), "test_accuracy") > 0.95);

    // New rows without `id`, with words in `age` (read as missing, noted).
    let new = write(
        dir.path(),
        "new.csv",
        "amount,age\n\"$1,050.00\",30\n\"$5,600.25\",unknown\n\"$5,100\",old\n",
    );
    let o = run(["predict", run_dir.to_str().unwrap(), "--data", &new]);
    assert_success(&o);
    let text = stdout(&o);
    let labels: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(labels, ["low", "high", "high"], "{}", describe(&o));
    assert!(
        stderr(&o).contains(
            "note: age: 2 of 3 cells are not numbers (`old`, `unknown`), read as missing"
        ),
        "{}",
        describe(&o)
    );
    // A column none of whose cells reads as a number is refused in one line.
    let bad = write(
        dir.path(),
        "bad.csv",
        "amount,age\n\"$1,050.00\",young\n\"$5,600\",old\n",
    );
    let o = run(["predict", run_dir.to_str().unwrap(), "--data", &bad]);
    assert_one_line_error(&o, &["column `age`", "2 of 2 cells are not numbers"]);
}

#[test]
fn whole_number_codes_are_classes_and_the_task_option_is_named() {
    let dir = tmp();
    let mut text = String::from("x,grade\n");
    (0..90).for_each(|r| text += &format!("{}.5,{}\n", (r * 13) % 50 + r % 3 * 60, r % 3));
    let data = write(dir.path(), "codes.csv", &text);
    let o = train(
        &["mlp", "--data", &data, "--epochs", "5"],
        &dir.path().join("run"),
    );
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("3 whole-number codes (0, 1, 2)") && out.contains("--task regression"),
        "{}",
        describe(&o)
    );
    assert!(out.contains("target `grade`, classes"), "{}", describe(&o));
}
