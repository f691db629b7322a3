//! Tables as people have them, end to end: text categories, yes/no columns, missing cells,
//! identifiers and class labels written as words; the schema printed and recorded; `predict`
//! on raw rows; and every bad table one clear line with nothing written.

use crate::common::*;
use std::path::Path;

/// A table of `rows` penguins: an identifier, a species (the target, as words) that the
/// island and the bill length decide, a yes/no column, and missing cells.
fn penguins(rows: usize) -> String {
    let mut text = String::from("id,island,bill_length,tagged,note,species\n");
    for r in 0..rows {
        let (island, species, bill) = match r % 3 {
            0 => ("Torgersen", "Adelie", 38.0 + (r % 5) as f32 * 0.3),
            1 => ("Biscoe", "Gentoo", 47.0 + (r % 7) as f32 * 0.3),
            _ => ("Dream", "Chinstrap", 49.0 + (r % 4) as f32 * 0.3),
        };
        let bill = if r % 17 == 5 {
            "NA".to_string()
        } else {
            format!("{bill:.1}")
        };
        let tagged = if r % 2 == 0 { "yes" } else { "no" };
        let target = if r % 23 == 7 { "" } else { species };
        text += &format!("P{r:04},{island},{bill},{tagged},same,{target}\n");
    }
    text
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn words_as_classes_from_the_raw_file() {
    let dir = tmp();
    let csv = write(dir.path(), "penguins.csv", &penguins(300));
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--data",
            &csv,
            "--target",
            "species",
            "--epochs",
            "30",
        ],
        &run_dir,
    );
    assert_success(&o);
    let out = stdout(&o);
    // The schema, the dropped rows, the per-class figures with the words.
    for needle in [
        "identifier",
        "category",
        "yes/no",
        "constant",
        "one-hot 3",
        "dropped 13 rows",
        "Adelie",
        "Chinstrap",
        "Gentoo",
    ] {
        assert!(out.contains(needle), "{needle}: {}", describe(&o));
    }
    let m = metrics(&run_dir);
    assert!(num(&m, "test_accuracy") > 0.95, "{m}");
    assert_eq!(
        m["classes"],
        serde_json::json!(["Adelie", "Chinstrap", "Gentoo"])
    );
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("schema.json")).unwrap()).unwrap();
    assert_eq!(schema["target"], "species");
    assert_eq!(schema["columns"][0]["type"], "identifier");
    assert_eq!(
        schema["columns"][2]["missing"].as_u64().map(|m| m > 0),
        Some(true)
    );

    // predict on raw rows, columns in another order, an unknown island, a missing bill:
    // words out, the id kept beside them.
    let new = write(
        dir.path(),
        "new.csv",
        "species,bill_length,island,tagged,id\nx,38.3,Torgersen,no,A\nx,,Mars,yes,B\nx,49.6,Dream,no,C\n",
    );
    let o = run([
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        &new,
        "--keep",
        "id",
    ]);
    assert_success(&o);
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("id,prediction,probability_Adelie,probability_Chinstrap,probability_Gentoo")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].starts_with("A,Adelie,"), "{text}");
    assert!(rows[2].starts_with("C,Chinstrap,"), "{text}");
    assert!(
        stderr(&o).contains("ignored 1 column the model does not use: species\n"),
        "the extra column is noted, not the kept one: {}",
        describe(&o)
    );
    let o = run([
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        &new,
        "--keep",
        "nope",
    ]);
    assert_one_line_error(&o, &["--keep", "nope"]);
    // Predictions are CSV: a file named for another format is refused, and not written.
    let json = dir.path().join("answers.json");
    let o = run([
        "predict",
        run_dir.to_str().unwrap(),
        "--data",
        &new,
        "--output",
        json.to_str().unwrap(),
    ]);
    assert_one_line_error(&o, &["written as CSV", "answers.json", ".csv"]);
    assert!(!json.exists());
    let lacking = write(dir.path(), "lacking.csv", "island,tagged\nDream,no\n");
    let o = run(["predict", run_dir.to_str().unwrap(), "--data", &lacking]);
    assert_one_line_error(&o, &["no column `bill_length`"]);
}

/// `--test-data` scores a separate file; logreg keeps every training row and prints its
/// coefficients by name; `--class-weight balanced` raises the recall of a rare class.
#[test]
fn test_files_coefficients_and_balanced_classes() {
    let dir = tmp();
    let mut text = String::from("x,colour,rare\n");
    for r in 0..400 {
        let x = (r % 37) as f32 / 37.0;
        let rare = if x > 0.85 { "yes" } else { "no" };
        text += &format!("{x},{},{rare}\n", ["red", "blue"][r % 2]);
    }
    let train_csv = write(dir.path(), "train.csv", &text);
    let half: Vec<&str> = text.lines().take(201).collect();
    let test_csv = write(dir.path(), "test.csv", &(half.join("\n") + "\n"));
    let test_rows = 200;
    let run_dir = dir.path().join("plain");
    let o = train(
        &["logreg", "--data", &train_csv, "--test-data", &test_csv],
        &run_dir,
    );
    assert_success(&o);
    let m = metrics(&run_dir);
    assert_eq!(num(&m, "test_rows") as usize, test_rows, "{m}");
    assert_eq!(
        num(&m, "train_rows"),
        400.0,
        "every training row, no validation: {m}"
    );
    assert_eq!(num(&m, "validation_rows"), 0.0, "{m}");
    assert!(m["coefficients"]["x"].as_f64().unwrap() > 0.0, "{m}");
    assert!(m["coefficients"].get("colour=red").is_some(), "{m}");
    assert!(stdout(&o).contains("(intercept)"), "{}", describe(&o));
    let balanced = dir.path().join("balanced");
    let o = train(
        &[
            "logreg",
            "--data",
            &train_csv,
            "--test-data",
            &test_csv,
            "--class-weight",
            "balanced",
        ],
        &balanced,
    );
    assert_success(&o);
    let b = metrics(&balanced);
    assert!(
        num(&b, "test_recall") >= num(&m, "test_recall"),
        "{b} vs {m}"
    );
    assert!(num(&b, "test_recall") > 0.9, "{b}");
}

#[test]
fn bad_tables_are_one_line_and_write_nothing() {
    let dir = tmp();
    let good = write(dir.path(), "good.csv", &penguins(60));
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (
            vec![
                "--data".into(),
                write(dir.path(), "dup.csv", "a,b,a\n1,2,3\n"),
            ],
            vec!["dup.csv", "`a` twice"],
        ),
        (
            vec![
                "--data".into(),
                good.clone(),
                "--target".into(),
                "weight".into(),
            ],
            vec!["no column `weight`"],
        ),
        (
            vec![
                "--data".into(),
                good.clone(),
                "--categorical".into(),
                "colour".into(),
            ],
            vec!["--categorical", "colour"],
        ),
        (
            vec![
                "--data".into(),
                good.clone(),
                "--ignore".into(),
                "beak".into(),
            ],
            vec!["--ignore", "beak"],
        ),
        (
            vec![
                "--data".into(),
                good.clone(),
                "--ignore".into(),
                "island,bill_length,tagged".into(),
            ],
            vec!["every feature column is ignored"],
        ),
        (
            vec!["--data".into(), write(dir.path(), "header.csv", "a,b,y\n")],
            vec!["header.csv", "no data rows"],
        ),
        (
            vec![
                "--data".into(),
                write(dir.path(), "endings.csv", "a,y\n1,2\r\n3,4\n5,6\n"),
            ],
            vec!["endings.csv", "line 2", "CRLF"],
        ),
        (
            vec![
                "--data".into(),
                write(dir.path(), "ragged.csv", "a,b,y\n1,2,3\n4,5\n"),
            ],
            vec!["ragged.csv", "line 3", "2 fields"],
        ),
        (
            vec![
                "--data".into(),
                good.clone(),
                "--target".into(),
                "island".into(),
                "--task".into(),
                "regression".into(),
            ],
            vec!["regression target `island` holds text"],
        ),
        (
            vec![
                "--data".into(),
                write(
                    dir.path(),
                    "one.csv",
                    "a,y\n1,yes\n2,yes\n3,yes\n4,yes\n5,yes\n",
                ),
                "--task".into(),
                "classification".into(),
            ],
            vec!["single class"],
        ),
    ];
    for (i, (args, needles)) in cases.into_iter().enumerate() {
        let out = dir.path().join(format!("run{i}"));
        let mut all = vec!["mlp".to_string()];
        all.extend(args);
        let o = train(&all, &out);
        assert_one_line_error(&o, &needles);
        assert!(!out.exists(), "case {i} wrote {}", out.display());
    }
}

/// The seed data's linear regression equals its closed form again: every training row is
/// trained on (no validation split unless --patience asks for one).
#[test]
fn linreg_uses_every_training_row() {
    let dir = tmp();
    let o = train(
        &["linreg", "--data", data("regression.csv").to_str().unwrap()],
        dir.path(),
    );
    assert_success(&o);
    let m = metrics(dir.path());
    assert_eq!(num(&m, "validation_rows"), 0.0, "{m}");
    assert_eq!(num(&m, "train_rows"), 400.0, "{m}");
    let (ours, exact) = (num(&m, "test_mse"), num(&m, "closed_form_test_mse"));
    assert!((ours - exact).abs() <= 1e-3 * exact, "{ours} vs {exact}");
    assert!(num(&m, "baseline_test_mse") > 10.0 * ours, "{m}");
}

/// A text table whose reading would not fit in the memory budget is refused before it is
/// read, in one line saying how many rows would fit, and nothing is written.
#[test]
fn a_table_beyond_the_memory_budget_is_refused_before_reading() {
    let dir = tmp();
    let mut text = String::from("x,colour,y\n");
    for r in 0..20_000 {
        text += &format!("{r},c{},{}\n", r % 7, r % 3);
    }
    let csv = write(dir.path(), "big.csv", &text);
    let run_dir = dir.path().join("run");
    let o = command(["mlp", "--data", &csv, "-o", run_dir.to_str().unwrap()])
        // 200 KB beside the 48 MB every plan counts for the program itself.
        .env("IRON_LEARN_MEMORY_LIMIT", "49352K")
        .output()
        .unwrap();
    assert_one_line_error(&o, &["big.csv", "memory budget", "rows of it would fit"]);
    assert!(!run_dir.exists(), "nothing is written");
}

/// A table that reads within the memory budget but whose encoded rows would not fit is
/// refused after typing and before encoding, in one line saying how many rows would fit,
/// and nothing is written; under a larger budget the same job runs.
#[test]
fn an_encoding_beyond_the_memory_budget_is_refused_before_it_is_made() {
    let dir = tmp();
    let mut text = String::from("x,colour,y\n");
    for r in 0..20_000 {
        text += &format!("{},c{},{}\n", r * 7919 % 10_007, r % 64, r % 5);
    }
    let csv = write(dir.path(), "wide.csv", &text);
    let run_dir = dir.path().join("run");
    let run = |limit: &str| {
        command([
            "mlp",
            "--model",
            "mlp",
            "--data",
            &csv,
            "--epochs",
            "1",
            "-o",
            run_dir.to_str().unwrap(),
        ])
        .env("IRON_LEARN_MEMORY_LIMIT", limit)
        .output()
        .unwrap()
    };
    // Reading takes about 1 MB; the 20,000 rows encoded into 65 columns about 6 MB; every
    // plan counts 48 MB for the program itself.
    let o = run("51M");
    assert_one_line_error(
        &o,
        &["wide.csv", "65 columns", "memory budget", "rows would fit"],
    );
    assert!(!run_dir.exists(), "nothing is written");
    let message = String::from_utf8_lossy(&o.stderr).to_string();
    let fit: u64 = message
        .split("about ")
        .last()
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no row count in {message}"));
    assert!((5_000..20_000).contains(&fit), "{message}");
    assert_success(&run("64M"));
    assert!(run_dir.join("metrics.json").exists());
}
