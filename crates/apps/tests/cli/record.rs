//! Every run folder is a record: `config.json` (resolved settings, data size and SHA-256,
//! command line, version, device), `history.csv` (every logged step), losses in the target's
//! units, validation kept apart from the test rows, and summaries that count the whole run.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn config(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("config.json")).expect("no config.json");
    serde_json::from_str(&text).expect("config.json is not JSON")
}

/// One row of `history.csv`.
struct Row {
    step: u64,
    train: Option<f64>,
    val: Option<f64>,
    lr: f64,
    elapsed: f64,
}

fn history(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("history.csv")).expect("no history.csv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("step,epoch,train_loss,val_loss,lr,elapsed_s")
    );
    let opt = |s: &str| (!s.is_empty()).then(|| s.parse::<f64>().expect("a number"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 6, "{l}");
            Row {
                step: f[0].parse().expect("a step"),
                train: opt(f[2]),
                val: opt(f[3]),
                lr: f[4].parse().expect("a rate"),
                elapsed: f[5].parse().expect("seconds"),
            }
        })
        .collect()
}

/// A CSV `x,y` with `y = 1000 x + noise` (noise of standard deviation about 50 from a fixed
/// sequence): targets in the thousands, so standardised and raw losses differ by 10^5.
fn wide_target_csv(dir: &Path) -> String {
    let mut text = String::from("x,y\n");
    let mut s = 12345u32;
    for i in 0..400 {
        let x = i as f64 / 100.0;
        let mut noise = 0.0;
        for _ in 0..12 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            noise += f64::from(s >> 8) / f64::from(1u32 << 24);
        }
        // A sum of 12 uniforms minus 6 has variance 1.
        let y = 1000.0 * x + 50.0 * (noise - 6.0);
        text.push_str(&format!("{x},{y}\n"));
    }
    let path = dir.join("wide.csv");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `config.json` holds every resolved default, the data file's size and hash, the command
/// line, the version and the device; identical bytes hash alike, one changed byte does not.
#[test]
fn config_records_resolved_settings_and_data() {
    let dir = tmp();
    let data = wide_target_csv(dir.path());
    let run_dir = dir.path().join("run");
    let o = train(&["linreg", "--data", &data, "--steps", "300"], &run_dir);
    assert_success(&o);
    let c = config(&run_dir);
    assert_eq!(c["job"], "linreg");
    assert_eq!(c["seed"], 42);
    assert_eq!(c["tool"]["name"], "iron-learn");
    assert_eq!(c["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(c["device"].as_str().unwrap().starts_with("cpu"), "{c}");
    let command: Vec<&str> = c["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        command.contains(&"linreg") && command.contains(&"--steps"),
        "{command:?}"
    );
    let t = &c["training"];
    // linreg's defaults, resolved: lr 0.05, cosine schedule, full batch.
    assert_eq!(t["lr"], 0.05);
    assert_eq!(t["schedule"]["name"], "cosine");
    assert_eq!(t["batch"], "full");
    assert_eq!(t["total_steps"], 300);
    assert_eq!(t["optimizer"]["kind"], "adam");
    assert_eq!(t["loss_units"], "MSE (target units²)");
    assert_eq!(c["architecture"]["input"], 1);
    let d = &c["data"];
    let bytes = std::fs::metadata(&data).unwrap().len();
    assert_eq!(d["bytes"], bytes);
    assert_eq!(d["path"], data.as_str());
    let sha = d["sha256"].as_str().unwrap().to_string();
    assert!(
        sha.len() == 64
            && sha
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{sha}"
    );
    // The 400 rows: 80 for testing, the other 320 all trained on (linreg holds out
    // validation rows only with --patience).
    assert_eq!(d["rows"]["test"], 80);
    assert_eq!(d["rows"]["validation"], 0);
    assert_eq!(d["rows"]["train"], 320);

    let copy = dir.path().join("copy.csv");
    std::fs::copy(&data, &copy).unwrap();
    let other = dir.path().join("other.csv");
    let text = std::fs::read_to_string(&data).unwrap();
    std::fs::write(&other, text.replacen("0.01,", "0.02,", 1)).unwrap();
    let hash_of = |file: &Path, out: &str| {
        let run = dir.path().join(out);
        let o = train(
            &["linreg", "--data", file.to_str().unwrap(), "--steps", "1"],
            &run,
        );
        assert_success(&o);
        config(&run)["data"]["sha256"].as_str().unwrap().to_string()
    };
    assert_eq!(hash_of(&copy, "a"), sha);
    assert_ne!(hash_of(&other, "b"), sha);
}

/// `history.csv` has a row per logged step: at least 100 for a 300-step run, steps rising to
/// the total, time never going back, the learning rate of the cosine schedule, validation
/// losses, and losses in the target's units (MSE near the noise variance 2500, not ~1e-3).
#[test]
fn history_has_every_logged_step_in_target_units() {
    let dir = tmp();
    let data = wide_target_csv(dir.path());
    let run_dir = dir.path().join("run");
    let o = train(
        &[
            "linreg",
            "--data",
            &data,
            "--steps",
            "300",
            "--val-fraction",
            "0.1",
        ],
        &run_dir,
    );
    assert_success(&o);
    let rows = history(&run_dir);
    assert!(rows.len() >= 100, "{} rows", rows.len());
    assert_eq!(rows.last().unwrap().step, 300);
    for pair in rows.windows(2) {
        assert!(pair[1].step > pair[0].step);
        assert!(pair[1].elapsed >= pair[0].elapsed);
    }
    // Cosine from 0.05 to 0.0005 over 300 steps; a row's rate is that of its last update.
    for r in &rows {
        let t = (r.step - 1) as f64 / 300.0;
        let expected = 0.0005 + (0.05 - 0.0005) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos());
        assert!(
            (r.lr - expected).abs() < 1e-6,
            "step {}: {} vs {expected}",
            r.step,
            r.lr
        );
    }
    assert!(rows.iter().all(|r| r.train.is_some()));
    assert!(rows.iter().filter(|r| r.val.is_some()).count() >= 100);
    let last = rows.last().unwrap();
    let (train_mse, val_mse) = (last.train.unwrap(), last.val.unwrap());
    assert!(
        (1500.0..4000.0).contains(&train_mse),
        "train MSE {train_mse}"
    );
    assert!(
        (1000.0..5000.0).contains(&val_mse),
        "validation MSE {val_mse}"
    );
    let m = metrics(&run_dir);
    assert_eq!(m["loss_units"], "MSE (target units²)");
    assert!((num(&m, "final_train_loss") - train_mse).abs() <= 1e-4 * train_mse);
    // The test MSE is computed apart from the trainer, in the same units.
    let test = num(&m, "test_mse");
    assert!((1000.0..5000.0).contains(&test), "test MSE {test}");
}

/// A resumed run keeps its record (appending the resume), continues its history, and its
/// summary counts the whole run; one step is "1 step".
#[test]
fn resume_extends_the_record_and_counts_the_whole_run() {
    let dir = tmp();
    let o = train(&["xor", "--steps", "1"], dir.path());
    assert_success(&o);
    assert!(stdout(&o).contains("trained 1 step in"), "{}", describe(&o));
    let o = train(&["xor", "--steps", "200"], &dir.path().join("r"));
    assert_success(&o);
    let first = history(&dir.path().join("r"));
    let o = train(
        &["xor", "--steps", "500", "--resume"],
        &dir.path().join("r"),
    );
    assert_success(&o);
    assert!(
        stdout(&o).contains("trained 500 steps in")
            && stdout(&o).contains("(300 after resuming at step 200)"),
        "{}",
        describe(&o)
    );
    let c = config(&dir.path().join("r"));
    assert_eq!(
        c["training"]["total_steps"], 200,
        "the first part's settings stay"
    );
    let resumes = c["resumes"].as_array().expect("a resumes list");
    assert_eq!(resumes.len(), 1);
    assert_eq!(resumes[0]["step"], 200);
    assert_eq!(resumes[0]["training"]["total_steps"], 500);
    let rows = history(&dir.path().join("r"));
    assert_eq!(rows.last().unwrap().step, 500);
    // The first part's rows are kept as they were, then the history goes on.
    for (a, b) in first.iter().zip(&rows) {
        assert_eq!((a.step, a.train, a.elapsed), (b.step, b.train, b.elapsed));
    }
    assert!(rows.len() > first.len() && rows[first.len()].step > 200);
    assert!(rows[first.len()].elapsed >= first.last().unwrap().elapsed);
}

/// Early stopping on the validation split keeps the weights of the best validation loss;
/// the validation rows are not test rows; --weight-decay trains with AdamW.
#[test]
fn early_stopping_keeps_the_best_validation_weights() {
    let dir = tmp();
    let data = data("regression.csv");
    let o = train(
        &[
            "mlp",
            "--test-fraction",
            "0.2",
            "--data",
            data.to_str().unwrap(),
            "--patience",
            "10",
            "--weight-decay",
            "0.01",
            "--epochs",
            "2000",
        ],
        dir.path(),
    );
    assert_success(&o);
    let m = metrics(dir.path());
    let rows = history(dir.path());
    let best = rows
        .iter()
        .filter_map(|r| r.val.map(|v| (r.step, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert!(num(&m, "steps") < 2000.0 * 5.0, "stopped early: {m}");
    assert_eq!(num(&m, "restored_step") as u64, best.0, "{m}");
    assert!(
        (num(&m, "restored_val_loss") - best.1).abs() <= 1e-5 * best.1,
        "{m}"
    );
    assert!(stdout(&o).contains("stopped early"), "{}", describe(&o));
    assert_eq!(
        num(&m, "validation_rows") + num(&m, "train_rows"),
        400.0,
        "validation comes out of the 400 training rows: {m}"
    );
    assert_eq!(num(&m, "test_rows"), 100.0, "{m}");
    let c = config(dir.path());
    assert_eq!(c["training"]["optimizer"]["decoupled"], true);
    assert_eq!(c["training"]["optimizer"]["weight_decay"], 0.01);
}
