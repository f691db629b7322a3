//! Very long column names: held shortened (a prefix, the length and a hash) in the model
//! file, the checkpoint and `schema.json`, so that a name of hundreds of kilobytes repeated
//! in every piecewise-linear bin's feature name neither bloats nor breaks them, while
//! `predict` on rows whose header carries the full name still reads that column. Class
//! labels keep their text where an `f32` cannot hold them.

use crate::common::*;

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_very_long_column_name_is_stored_short_and_still_matched_by_predict() {
    let dir = tmp();
    let long = format!("reading_{}", "x".repeat(300_000));
    let mut text = format!("{long},b,y\n");
    for r in 0..200 {
        let a = (r * 37 % 101) as f64 / 10.0;
        let b = (r * 53 % 97) as f64 / 10.0;
        text += &format!("{a},{b},{:.4}\n", (a - 5.0).abs() + b / 2.0);
    }
    let csv = dir.path().join("long.csv");
    std::fs::write(&csv, text).unwrap();
    let out_dir = dir.path().join("run");
    let args = [
        "mlp",
        "--data",
        csv.to_str().unwrap(),
        "--target",
        "y",
        "--epochs",
        "5",
        "--model",
        "mlp",
        "--numeric-encoding",
        "piecewise",
        "--bins",
        "64",
    ];
    assert_success(&train(&args, &out_dir));
    // Unshortened, the 64 bins' names alone were 19 MB in each file.
    let size = |name: &str| std::fs::metadata(out_dir.join(name)).unwrap().len();
    assert!(
        size("model.safetensors") < 2_000_000,
        "{}",
        size("model.safetensors")
    );
    assert!(size("schema.json") < 200_000, "{}", size("schema.json"));
    let schema = json(&out_dir.join("schema.json"));
    let name = schema["columns"][0]["name"].as_str().unwrap();
    assert!(
        name.len() <= 256 && name.starts_with("reading_xxx"),
        "{name}"
    );
    let bins = schema["columns"][0]["outputs"].as_array().unwrap();
    assert!(bins.len() > 1, "{schema}");
    assert!(
        bins.iter().all(|b| b.as_str().unwrap().len() < 300),
        "{bins:?}"
    );

    // New rows with the full name, in another order: the column is found and read.
    let rows = dir.path().join("new.csv");
    std::fs::write(&rows, format!("b,{long}\n3,0\n3,5\n3,10\n")).unwrap();
    let r = out_dir.to_str().unwrap();
    let o = run(["predict", r, "--data", rows.to_str().unwrap()]);
    assert_success(&o);
    let values: Vec<f64> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(values.len(), 3, "{values:?}");
    assert!(
        values[0] != values[1] && values[1] != values[2],
        "{values:?}"
    );

    // Another name of the same length and beginning is another column.
    let other = format!("{}y", &long[..long.len() - 1]);
    std::fs::write(&rows, format!("b,{other}\n3,0\n")).unwrap();
    let o = run(["predict", r, "--data", rows.to_str().unwrap()]);
    assert_one_line_error(&o, &["reading_xxx"]);
}

#[test]
fn class_labels_an_f32_cannot_hold_keep_their_text() {
    let dir = tmp();
    // 2^24 + 1 reads as 2^24 in an f32: the two labels must not merge.
    let mut text = String::from("a,b,label\n");
    for r in 0..120 {
        let (a, b) = ((r * 37 % 101) as f64 / 100.0, (r * 53 % 97) as f64 / 100.0);
        let label = if a > b { 16_777_217 } else { 16_777_216 };
        text += &format!("{a},{b},{label}\n");
    }
    let csv = dir.path().join("ids.csv");
    std::fs::write(&csv, text).unwrap();
    let out_dir = dir.path().join("run");
    let args = ["logreg", "--data", csv.to_str().unwrap(), "--steps", "300"];
    assert_success(&train(&args, &out_dir));
    let predictions = std::fs::read_to_string(out_dir.join("test_predictions.csv")).unwrap();
    let header = predictions.lines().next().unwrap();
    assert!(
        header.ends_with("probability_16777216,probability_16777217"),
        "{header}"
    );
    let rows = dir.path().join("new.csv");
    std::fs::write(&rows, "a,b\n0.9,0.1\n0.1,0.9\n").unwrap();
    let o = run([
        "predict",
        out_dir.to_str().unwrap(),
        "--data",
        rows.to_str().unwrap(),
    ]);
    assert_success(&o);
    let labels: Vec<String> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert_eq!(labels, ["16777217", "16777216"], "{}", stdout(&o));
}
