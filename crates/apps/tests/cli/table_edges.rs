//! Tables at the edges of what the table jobs read: numbers written two ways in one
//! column, columns that empty a table, long names, wide tables, JSON rows in the dataset
//! form.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// The parsed `config.json` of a run folder.
fn config(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("config.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A regression target written with thousands separators in its largest values only
/// (`1,250,000` among `950000`) is read as numbers: no row is dropped, no class is made.
#[test]
fn a_target_with_some_thousands_separators_is_read_as_numbers() {
    let dir = tmp();
    let csv = dir.path().join("prices.csv");
    let mut text = String::from("size,price\n");
    for i in 0..100u32 {
        let price = 500_000 + i * 6_000;
        let cell = match price {
            p if p >= 1_000_000 => format!(
                "\"{},{:03},{:03}\"",
                p / 1_000_000,
                p / 1000 % 1000,
                p % 1000
            ),
            p => p.to_string(),
        };
        text += &format!("{},{cell}\n", f64::from(i) / 100.0);
    }
    std::fs::write(&csv, text).unwrap();
    let out = dir.path().join("run");
    let args = ["mlp", "--model", "mlp", "--data", csv.to_str().unwrap()];
    let o = train(
        &[&args[..], &["--target", "price", "--epochs", "2"]].concat(),
        &out,
    );
    assert_success(&o);
    assert!(!stderr(&o).contains("not a number"), "{}", describe(&o));
    let c = config(&out);
    assert_eq!(c["options"]["task"], "regression", "{c}");
    let rows = &c["data"]["rows"];
    let total: u64 = ["train", "validation", "test"]
        .iter()
        .filter_map(|k| rows[k].as_u64())
        .sum();
    assert_eq!(total, 100, "{rows}");
}

/// A trained model of `data/regression.csv` in a fresh folder (the network, 2 epochs).
fn regression_model(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("model-run");
    let csv = data("regression.csv");
    let args = ["mlp", "--model", "mlp", "--data", csv.to_str().unwrap()];
    let o = train(
        &[&args[..], &["--target", "y", "--epochs", "2"]].concat(),
        &out,
    );
    assert_success(&o);
    out
}

/// An output `predict` cannot write (a folder, a file in a missing folder) is refused
/// before the rows are read and predicted: one line, no notes on the rows before it, and
/// nothing left behind.
#[test]
fn predict_refuses_an_output_it_cannot_write_in_one_line() {
    let dir = tmp();
    let model = regression_model(dir.path());
    let rows = data("regression.csv");
    let missing = dir.path().join("no-such-folder").join("answers.csv");
    for output in [missing.as_path(), dir.path()] {
        let args = [
            "predict",
            model.to_str().unwrap(),
            "--data",
            rows.to_str().unwrap(),
        ];
        let o = run(args
            .into_iter()
            .chain(["--output", output.to_str().unwrap()]));
        assert_one_line_error(&o, &["cannot write"]);
    }
    assert!(!dir.path().join("no-such-folder").exists());
}

/// Rows in the dataset form without its `m` (`{"n": 4, "x": [...]}`, as `predict --help`
/// shows) are predicted, and the form's own refusals are kept: a wrong `n`, an `x` that is
/// not a whole number of rows.
#[test]
fn predict_reads_the_dataset_form_without_m() {
    let dir = tmp();
    let model = regression_model(dir.path());
    let json = dir.path().join("rows.json");
    let predict = |text: &str| {
        std::fs::write(&json, text).unwrap();
        let args = [
            "predict",
            model.to_str().unwrap(),
            "--data",
            json.to_str().unwrap(),
        ];
        run(args)
    };
    let o = predict(r#"{"n": 4, "x": [1, 2, 3, 4, 5, 6, 7, 8]}"#);
    assert_success(&o);
    assert_eq!(stdout(&o).lines().count(), 3, "{}", describe(&o));
    let o = predict(r#"{"n": 3, "x": [1, 2, 3]}"#);
    assert_one_line_error(&o, &["`n` is 3", "takes 4 features"]);
    let x: Vec<String> = (1..=19).map(|i| i.to_string()).collect();
    let o = predict(&format!(r#"{{"n": 4, "x": [{}]}}"#, x.join(", ")));
    assert_one_line_error(&o, &["has 19 values, not a whole number of rows"]);
}

/// Dropping the rows with a missing cell from a table with empty columns names the columns
/// that leave no row whole.
#[test]
fn dropping_incomplete_rows_names_the_empty_columns() {
    let dir = tmp();
    let csv = dir.path().join("holes.csv");
    let mut text = String::from("a,gone,b,also gone,y\n");
    for i in 0..30 {
        text += &format!("{},,{},,{}\n", i % 7, i * 3 % 11, i % 5);
    }
    std::fs::write(&csv, text).unwrap();
    let args = ["mlp", "--data", csv.to_str().unwrap(), "--target", "y"];
    let o = train(
        &[&args[..], &["--drop-missing"]].concat(),
        &dir.path().join("run"),
    );
    assert_one_line_error(
        &o,
        &["no rows without a missing cell", "`gone`", "`also gone`"],
    );
}

/// Resuming the default model's job in a folder that holds no run of it is refused, as
/// resuming a network is: nothing is trained from the start unasked.
#[test]
fn resuming_the_default_job_where_no_run_is_is_refused() {
    let dir = tmp();
    let csv = data("regression.csv");
    let out = dir.path().join("never-trained");
    let args = [
        "mlp",
        "--data",
        csv.to_str().unwrap(),
        "--target",
        "y",
        "--resume",
    ];
    let o = train(&[&args[..], &["--epochs", "2"]].concat(), &out);
    assert_one_line_error(&o, &["nothing to resume", "never-trained"]);
    assert!(!out.join("model.safetensors").exists());
    // The network alone says the same kind of thing.
    let o = train(&[&args[..], &["--model", "mlp"]].concat(), &out);
    assert_one_line_error(&o, &["resume"]);
    // A job bagged over folds that ended before its model (killed in its second fold:
    // its fold runs are there, no record of the job) is said to be one that does not
    // resume.
    let killed = dir.path().join("killed");
    std::fs::create_dir_all(killed.join("folds").join("1")).unwrap();
    let o = train(&[&args[..], &["--epochs", "2"]].concat(), &killed);
    assert_one_line_error(&o, &["bagged over folds, which does not resume", "--force"]);
}

/// One network of the default model diverging (a learning rate too high for it) drops out
/// with a note, and the job compares the others and keeps a model.
#[test]
fn a_diverging_network_of_the_default_model_drops_out() {
    let dir = tmp();
    let csv = data("regression.csv");
    let out = dir.path().join("run");
    let args = [
        "mlp",
        "--data",
        csv.to_str().unwrap(),
        "--target",
        "y",
        "--lr",
        "0.05",
    ];
    let o = run(args
        .into_iter()
        .chain(["--device", "cpu", "-o", out.to_str().unwrap()]));
    assert_success(&o);
    let said = stdout(&o) + &stderr(&o);
    assert!(
        said.contains("diverged") && said.contains("drops out"),
        "{said}"
    );
    assert!(
        metrics(&out).get("model_kept").is_some(),
        "{}",
        describe(&o)
    );
}

/// Which networks train at the same time is progress: said without `--quiet`, not with it.
#[test]
fn quiet_hides_which_networks_train_at_once() {
    let dir = tmp();
    let csv = data("circles.csv");
    let args = [
        "mlp",
        "--data",
        csv.to_str().unwrap(),
        "--target",
        "label",
        "--epochs",
        "2",
        "--device",
        "cpu",
        "--out",
    ];
    let shown = |quiet: bool, out: &str| {
        let mut cmd = command(args);
        cmd.arg(dir.path().join(out)).env("RAYON_NUM_THREADS", "2");
        if quiet {
            cmd.arg("--quiet");
        }
        let o = cmd.output().unwrap();
        assert_success(&o);
        stdout(&o).contains("at the same time, progress not shown")
    };
    assert!(
        shown(false, "loud"),
        "two threads train the networks side by side"
    );
    assert!(!shown(true, "quiet"));
}

/// A table too small for the default folds says that it is trained once, on one split.
#[test]
fn a_table_too_small_for_folds_says_it_trains_on_one_split() {
    let dir = tmp();
    let csv = dir.path().join("eight.csv");
    let rows: String = (0..8).map(|i| format!("{i},{}\n", 2 * i + 1)).collect();
    std::fs::write(&csv, format!("x,y\n{rows}")).unwrap();
    let o = train(
        &["mlp", "--data", csv.to_str().unwrap(), "--epochs", "2"],
        &dir.path().join("run"),
    );
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("note: 8 training rows are too few for 5 folds of at least 2 rows: trained once, on one split"),
        "{out}"
    );
}

/// Classes that differ only by case are said to be learned as two.
#[test]
fn classes_differing_only_by_case_are_noted() {
    let dir = tmp();
    let csv = dir.path().join("cased.csv");
    let rows: String = (0..60)
        .map(|i| {
            let label = match (i % 2, i % 7) {
                (0, 0) => "Yes",
                (0, _) => "yes",
                _ => "no",
            };
            format!("{},{label}\n", i % 10)
        })
        .collect();
    std::fs::write(&csv, format!("x,label\n{rows}")).unwrap();
    let csv = csv.to_str().unwrap();
    let args = ["mlp", "--data", csv, "--model", "mlp", "--epochs", "2"];
    let o = train(&args, &dir.path().join("run"));
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("the classes `Yes` and `yes` of `label` differ only by case"),
        "{out}"
    );
}
