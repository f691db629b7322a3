//! Resume that keeps its word: a resumed run keeps its rows per step (so its epochs and
//! learning-rate schedule add up) or is refused in one line; early stopping without
//! validation rows is refused; a resume on changed inputs names what changed.

use crate::common::*;

fn circles(epochs: &str, batch: &str) -> Vec<String> {
    let data = data("circles.csv").display().to_string();
    [
        "mlp",
        "--model",
        "mlp",
        "--test-fraction",
        "0.2",
        "--data",
        &data,
        "--task",
        "classification",
        "--epochs",
        epochs,
        "--batch",
        batch,
    ]
    .map(String::from)
    .to_vec()
}

/// The epoch column of a run's `history.csv`.
fn epochs(dir: &std::path::Path) -> Vec<f64> {
    let text = std::fs::read_to_string(dir.join("history.csv")).expect("no history.csv");
    text.lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .nth(1)
                .and_then(|e| e.parse().ok())
                .expect("an epoch")
        })
        .collect()
}

/// Another --batch on resume is refused (naming both sizes and the one to use) and leaves
/// the run as it was; the same batch continues, its epochs counting on.
#[test]
fn resume_refuses_another_batch_and_keeps_epochs() {
    let dir = tmp();
    assert_success(&train(&circles("4", "32"), dir.path()));
    let before = std::fs::read(dir.path().join("model.safetensors")).unwrap();
    let mut other = circles("8", "16");
    other.push("--resume".into());
    let o = train(&other, dir.path());
    assert_one_line_error(
        &o,
        &["batches of 32 rows", "batches of 16 rows", "--batch 32"],
    );
    let after = std::fs::read(dir.path().join("model.safetensors")).unwrap();
    assert!(before == after, "a refused resume changed the checkpoint");

    let mut same = circles("8", "32");
    same.push("--resume".into());
    assert_success(&train(&same, dir.path()));
    let epochs = epochs(dir.path());
    assert_eq!(
        epochs.last(),
        Some(&8.0),
        "the epoch column reaches --epochs 8"
    );
    assert!(
        epochs.windows(2).all(|w| w[0] <= w[1]),
        "the epoch column never falls: {epochs:?}"
    );
}

/// --patience with no validation rows is refused before anything is written.
#[test]
fn patience_without_validation_rows_is_refused() {
    let parent = tmp();
    let out = parent.path().join("run");
    let data = data("regression.csv");
    let o = train(
        &[
            "mlp",
            "--model",
            "mlp",
            "--data",
            data.to_str().unwrap(),
            "--patience",
            "5",
            "--val-fraction",
            "0",
        ],
        &out,
    );
    assert_one_line_error(&o, &["--patience", "validation rows", "--val-fraction"]);
    assert!(!out.exists(), "a refused run left {}", out.display());
}

/// A resume of `approx` with another function or range names the option that changed, and
/// does not blame options the job does not have.
#[test]
fn resume_on_changed_inputs_names_them() {
    let dir = tmp();
    let fit = |f: &str, range: &str, resume: bool| {
        let mut args = vec!["approx", "--fn", f, "--range", range, "--epochs", "20"];
        if resume {
            args.push("--resume");
        }
        train(&args, dir.path())
    };
    assert_success(&fit("sin(x)", "-3:3", false));
    let line = assert_one_line_error(&fit("cos(x)", "-3:3", true), &["other data"]);
    assert!(
        line.contains(r#"data.function "sin(x)" -> "cos(x)""#),
        "{line}"
    );
    assert!(!line.contains("--test-fraction"), "{line}");
    let line = assert_one_line_error(&fit("sin(x)", "-2:3", true), &["other data"]);
    assert!(line.contains("data.range"), "{line}");

    // Another job's run: the job is named before anything about the model.
    let o = train(
        &["image", "fit", "--size", "16", "--steps", "2", "--resume"],
        dir.path(),
    );
    assert_last_line_error(&o, &["written by `approx`, not `image-fit`"]);
}
