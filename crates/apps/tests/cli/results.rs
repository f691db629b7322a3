//! Nothing silently wrong: functions parse as in mathematics, overflow is named, a test set is
//! never the training set, resumed runs keep their data, binary means binary, divergence
//! stops the run, constant targets are named, and wide tables get a solver that fits them.

use crate::common::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Writes `text` to `dir/name`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A CSV of `rows` rows: features `x0..x{cols}` from a fixed formula, and `y` from
/// `target(row, features)`.
fn table(rows: usize, cols: usize, target: impl Fn(usize, &[f64]) -> f64) -> String {
    let mut text = String::new();
    let header: Vec<String> = (0..cols).map(|c| format!("x{c}")).collect();
    writeln!(text, "{},y", header.join(",")).unwrap();
    for r in 0..rows {
        let xs: Vec<f64> = (0..cols)
            .map(|c| (((r * 31 + c * 17) % 97) as f64 / 9.7).sin())
            .collect();
        let cells: Vec<String> = xs.iter().map(|v| format!("{v:.5}")).collect();
        writeln!(text, "{},{}", cells.join(","), target(r, &xs)).unwrap();
    }
    text
}

/// Unary minus binds looser than `^`: `exp(-x^2)` is a bump of height 1, so a fit of it has a
/// small error in absolute terms (the old reading, `exp((-x)^2)`, reaches 8103 at x = 3).
/// Scientific notation parses; an unknown function is one line naming its position.
#[test]
fn functions_parse_as_in_mathematics() {
    let dir = tmp();
    let o = train(
        &["approx", "--fn", "sin(5*x)*exp(-x^2)", "--steps", "300"],
        &dir.path().join("a"),
    );
    assert_success(&o);
    let m = metrics(&dir.path().join("a"));
    assert!(num(&m, "max_error") < 1.0, "{m}");
    let o = train(
        &["approx", "--fn", "1e-1*x", "--steps", "3"],
        &dir.path().join("b"),
    );
    assert_success(&o);
    let o = train(
        &["approx", "--fn", "sin(x) + foo(x)"],
        &dir.path().join("c"),
    );
    assert_one_line_error(&o, &["position 10", "unknown function \"foo\""]);
    let o = train(&["approx", "--fn", "2x"], &dir.path().join("c"));
    assert_one_line_error(&o, &["position 2", "2*x"]);
}

/// A function beyond the 32-bit float range is refused as overflow (not dropped, not blamed
/// on the learning rate).
#[test]
fn overflow_is_named() {
    let dir = tmp();
    let o = train(&["approx", "--fn", "exp(1000*x)"], dir.path());
    let line = assert_one_line_error(&o, &["overflows 32-bit floats", "narrow the range"]);
    assert!(!line.contains("learning rate"), "{line}");
    let o = train(&["approx", "--fn", "3"], dir.path());
    assert_one_line_error(&o, &["constant"]);
}

/// `--test-fraction 0` on a file without a test part trains on every row: the report says
/// no rows scored the model, `metrics.json` counts every row as training and none as test,
/// and no test predictions are written.
#[test]
fn a_test_fraction_of_zero_trains_on_every_row() {
    let dir = tmp();
    let regression = data("regression.csv");
    let args = ["linreg", "--data", regression.to_str().unwrap()];
    let o = train(&[&args[..], &["--test-fraction", "0"]].concat(), dir.path());
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("no test rows: all 500 rows trained or validated the model"),
        "{out}"
    );
    let m = metrics(dir.path());
    assert_eq!((num(&m, "train_rows"), num(&m, "test_rows")), (500.0, 0.0));
    assert!(m.get("test_rmse").is_none(), "{m}");
    assert!(!dir.path().join("test_predictions.csv").exists());
    assert!(dir.path().join("model.safetensors").exists());
}

/// The test rows' predictions carry every column as read: an identifier the model does not
/// read tells the rows apart, and the target stands beside its prediction.
#[test]
fn test_predictions_keep_the_identifier_and_the_target() {
    let dir = tmp();
    let mut text = String::from("name,x,y\n");
    for r in 0..200 {
        let x = (r % 17) as f64 / 4.0;
        writeln!(text, "item {r},{x},{}", 2.0 * x + 1.0).unwrap();
    }
    let predictions = test_predictions(dir.path(), "named", &text);
    let mut lines = predictions.lines();
    assert_eq!(lines.next(), Some("name,x,y,prediction"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 50);
    for row in rows {
        let cells: Vec<&str> = row.split(',').collect();
        let r: usize = cells[0].strip_prefix("item ").unwrap().parse().unwrap();
        let x = (r % 17) as f64 / 4.0;
        assert_eq!(cells[1].parse::<f64>().unwrap(), x, "{row}");
        let predicted: f64 = cells[3].parse().unwrap();
        assert!((predicted - (2.0 * x + 1.0)).abs() < 0.05, "{row}");
    }
    // An input column named as an output is left out, not written twice.
    let mut text = String::from("x,prediction,y\n");
    (0..40).for_each(|r| writeln!(text, "{r},{},{}", r % 3, 2 * r).unwrap());
    let predictions = test_predictions(dir.path(), "clash", &text);
    assert_eq!(predictions.lines().next(), Some("x,y,prediction"));
}

/// `linreg` on the table `text` (written to `dir/name.csv`) with a quarter of its rows held
/// out: its `test_predictions.csv`.
fn test_predictions(dir: &Path, name: &str, text: &str) -> String {
    let data = write(dir, &format!("{name}.csv"), text);
    let run = dir.join(name);
    let data = data.to_str().unwrap();
    let args = ["linreg", "--data", data, "--test-fraction", "0.25"];
    assert_success(&train(&args, &run));
    std::fs::read_to_string(run.join("test_predictions.csv")).unwrap()
}

/// The least-squares reference of a network on piecewise-linear inputs is fitted on the
/// table's own columns: on 90 training rows, 3 numbers in 32 bins each (96 columns) would
/// fit noise, where 3 columns fit the linear target.
#[test]
fn the_linear_reference_reads_the_plain_columns() {
    let dir = tmp();
    let text = table(120, 3, |r, x| {
        2.0 * x[0] - x[1] + 0.5 * x[2] + 0.01 * ((r * 7) % 5) as f64
    });
    let data = write(dir.path(), "linear.csv", &text);
    let run = dir.path().join("run");
    let args = [
        "mlp",
        "--data",
        data.to_str().unwrap(),
        "--model",
        "mlp",
        "--numeric-encoding",
        "piecewise",
        "--test-fraction",
        "0.25",
        "--epochs",
        "5",
    ];
    let o = train(&args, &run);
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("least squares (exact)"), "{out}");
    let m = metrics(&run);
    let reference = num(&m, "closed_form_test_mse");
    let baseline = num(&m, "baseline_test_mse");
    assert!(reference < 1e-3 * baseline, "{m}");
}

/// `--resume` with other data (other columns, other values, another image) is refused unless
/// forced; the checkpoint records what it was trained on.
#[test]
fn resume_refuses_other_data() {
    let dir = tmp();
    let a = write(dir.path(), "a.csv", &table(60, 2, |_, x| x[0] + 2.0 * x[1]));
    let b = write(dir.path(), "b.csv", &table(60, 2, |_, x| x[0] - x[1]));
    let renamed = write(
        dir.path(),
        "c.csv",
        &table(60, 2, |_, x| x[0] + 2.0 * x[1]).replacen("x0,", "size,", 1),
    );
    let run = dir.path().join("run");
    let job = |file: &Path, steps: &str, extra: &[&str]| {
        let mut args = vec!["linreg", "--data", file.to_str().unwrap(), "--steps", steps];
        args.extend_from_slice(extra);
        train(&args, &run)
    };
    assert_success(&job(&a, "20", &[]));
    let ck = io::Checkpoint::load(run.join("model.safetensors")).unwrap();
    let fp = ck
        .data_fingerprint()
        .unwrap()
        .expect("a fingerprint is stored");
    assert_eq!(fp.names, ["x0", "x1", "y"]);
    // The training rows: 60 less the test and validation rows.
    assert_eq!(fp.shape.len(), 3);
    assert!((30..60).contains(&fp.shape[0]), "{:?}", fp.shape);
    assert_eq!(fp.shape[1..], [2, 1]);

    let o = job(&b, "40", &["--resume"]);
    assert_one_line_error(&o, &["other data", "other values", "--force"]);
    let o = job(&renamed, "40", &["--resume"]);
    assert_one_line_error(&o, &["other data", "size, x1, y", "x0, x1, y"]);
    assert_success(&job(&a, "40", &["--resume"]));
    let o = job(&b, "60", &["--resume", "--force"]);
    assert_success(&o);
    assert!(stderr(&o).contains("other data"), "{}", describe(&o));

    // Another image for the same network (a SIREN's does not depend on the image's size).
    let img = dir.path().join("img");
    let fit = |size: &str, resume: bool| {
        let mut args = vec![
            "image", "fit", "--size", size, "--steps", "3", "--hidden", "8x1", "--arch", "siren",
        ];
        if resume {
            args.push("--resume");
        }
        train(&args, &img)
    };
    assert_success(&fit("16", false));
    let o = fit("17", true);
    assert_last_line_error(&o, &["other data", "289x2x1", "256x2x1"]);
}

/// A checkpoint whose weights are not finite is refused on load (resume, render and export),
/// saying so, and nothing is written.
#[test]
fn non_finite_checkpoints_are_refused() {
    let dir = tmp();
    let fit = dir.path().join("fit");
    assert_success(&train(
        &[
            "image", "fit", "--size", "16", "--steps", "3", "--hidden", "8x1",
        ],
        &fit,
    ));
    let path = fit.join("model.safetensors");
    let mut ck = io::Checkpoint::load(&path).unwrap();
    let (name, t) = ck
        .tensors
        .iter_mut()
        .find(|(n, _)| n.starts_with("model."))
        .unwrap();
    let name = name.clone();
    t.data[1] = f32::NAN;
    ck.save(&path).unwrap();
    let png = dir.path().join("r.png");
    let o = run([
        "image".as_ref(),
        "render".as_ref(),
        fit.as_os_str(),
        "--size".as_ref(),
        "8".as_ref(),
        "--device".as_ref(),
        "cpu".as_ref(),
        "-o".as_ref(),
        png.as_os_str(),
    ]);
    assert_one_line_error(
        &o,
        &["non-finite", &format!("{}[1]", &name["model.".len()..])],
    );
    assert!(!png.exists());
    for format in ["onnx", "safetensors"] {
        let out = dir.path().join(format!("m.{format}"));
        let o = run([
            "export".as_ref(),
            fit.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_one_line_error(
            &o,
            &["non-finite", &format!("{}[1]", &name["model.".len()..])],
        );
        assert!(!out.exists(), "export --format {format} wrote a file");
    }
    let o = train(
        &[
            "image", "fit", "--size", "16", "--steps", "6", "--hidden", "8x1", "--resume",
        ],
        &fit,
    );
    assert_last_line_error(&o, &["non-finite", "diverged"]);
}

/// `logreg` takes two classes only; more point to `mlp --task classification`.
#[test]
fn logreg_refuses_non_binary_labels() {
    let dir = tmp();
    for (name, labels) in [
        ("half.csv", [0.0, 0.5, 1.0]),
        ("three.csv", [0.0, 1.0, 2.0]),
    ] {
        let csv = write(
            dir.path(),
            name,
            &table(30, 2, |r, _| labels[r % labels.len()]),
        );
        let o = train(&["logreg", "--data", csv.to_str().unwrap()], dir.path());
        assert_one_line_error(
            &o,
            &["binary", "3 distinct values", "mlp --task classification"],
        );
    }
}

/// A run whose loss explodes stops with the step named, and saves nothing it learned.
#[test]
fn divergence_stops_the_run() {
    let dir = tmp();
    let o = train(&["xor", "--lr", "1e10"], dir.path());
    let line = assert_one_line_error(&o, &["diverged at step", "--lr"]);
    let step: u64 = line
        .split("step ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no step in {line}"));
    assert!((1..1000).contains(&step), "{line}");
    assert!(!dir.path().join("model.safetensors").exists());
    assert!(!dir.path().join("metrics.json").exists());
}

/// A constant regression target is named instead of reporting R^2 = 0 and a huge relative
/// error.
#[test]
fn constant_targets_are_named() {
    let dir = tmp();
    let csv = write(dir.path(), "flat.csv", &table(40, 2, |_, _| 3.5));
    for job in ["linreg", "mlp"] {
        let o = train(&[job, "--data", csv.to_str().unwrap()], dir.path());
        assert_one_line_error(&o, &["`y` is constant", "3.5"]);
    }
}

/// More columns than rows: the closed-form reference is the minimum-norm solution (no hang,
/// no 3 GB matrix), and the output says the problem is underdetermined. The time limit only
/// guards against a hang.
#[test]
fn wide_tables_are_solved_by_their_shape() {
    let dir = tmp();
    let csv = write(
        dir.path(),
        "wide.csv",
        &table(30, 20_000, |r, x| x[0] + r as f64 * 0.01),
    );
    let mut cmd = command([
        "linreg",
        "--data",
        csv.to_str().unwrap(),
        "--steps",
        "20",
        // 20 000 standardised columns: gradient descent is stable only below about 2/20 000
        // (the default 0.05 diverges, and says so).
        "--lr",
        "1e-5",
        "--device",
        "cpu",
        "--quiet",
        "--out",
    ]);
    cmd.arg(dir.path().join("run"));
    let out_log = dir.path().join("out.txt");
    cmd.stdout(std::fs::File::create(&out_log).unwrap());
    let mut child = Guard(cmd.spawn().unwrap());
    let status = wait_with_limit(&mut child.0, Duration::from_secs(300));
    let out = std::fs::read_to_string(&out_log).unwrap();
    assert!(status.success(), "{out}");
    assert!(out.contains("underdetermined"), "{out}");
    assert!(out.contains("least squares (min-norm)"), "{out}");
    let m = metrics(&dir.path().join("run"));
    assert!(num(&m, "closed_form_test_mse").is_finite(), "{m}");
}

/// `--folds N` cross-validates, then trains on every row: the report gives the folds'
/// scores, `metrics.json` holds them, and no row is held out of the kept model.
#[test]
fn folds_cross_validate_then_train_on_every_row() {
    let dir = tmp();
    let regression = data("regression.csv");
    let args = [
        "mlp",
        "--data",
        regression.to_str().unwrap(),
        "--epochs",
        "5",
    ];
    let o = train(&[&args[..], &["--folds", "3"]].concat(), dir.path());
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("cross-validated over 3 folds: R² "), "{out}");
    let m = metrics(dir.path());
    let cv = &m["cross_validation"];
    assert_eq!(cv["scores"].as_array().map(Vec::len), Some(3), "{m}");
    assert_eq!(num(&m, "test_rows"), 0.0);
    assert_eq!(num(&m, "train_rows") + num(&m, "validation_rows"), 500.0);
    for fold in 1..=3 {
        assert!(
            dir.path()
                .join(format!("folds/{fold}/model.safetensors"))
                .exists()
        );
    }
    let o = train(&[&args[..], &["--folds", "1"]].concat(), tmp().path());
    assert_one_line_error(
        &o,
        &["a cross-validation takes 2 to 20 folds, got 1", "--folds"],
    );
}

/// `--portfolio small` trains fewer networks in each fold; a bad name is refused naming the
/// accepted ones, and a portfolio of one network in one line.
#[test]
fn the_portfolio_of_the_default_model_is_chosen_and_checked() {
    let dir = tmp();
    let circles = data("circles.csv");
    let args = ["mlp", "--data", circles.to_str().unwrap(), "--epochs", "3"];
    let o = train(
        &[&args[..], &["--folds", "2", "--portfolio", "small"]].concat(),
        dir.path(),
    );
    assert_success(&o);
    let fold = dir.path().join("folds/1");
    assert!(fold.join("periodic/config.json").exists());
    assert!(!fold.join("plain-no-decay").exists());
    assert!(
        !stdout(&o).contains("without weight decay"),
        "{}",
        stdout(&o)
    );
    let o = train(
        &[&args[..], &["--portfolio", "huge"]].concat(),
        tmp().path(),
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("small") && err.contains("full"), "{err}");
    let o = train(
        &[&args[..], &["--portfolio", "small", "--model", "mlp"]].concat(),
        tmp().path(),
    );
    assert_one_line_error(
        &o,
        &[
            "a portfolio is the default model's candidates",
            "--portfolio",
        ],
    );
}

/// `mlp` with no test rows asked for cross-validates over 5 folds and trains on every row;
/// a table of more than 20,000 rows holds a fifth out for testing instead, and a test
/// fraction given is kept.
#[test]
fn mlp_cross_validates_small_tables_by_default() {
    let dir = tmp();
    let circles = data("circles.csv");
    let args = ["mlp", "--data", circles.to_str().unwrap(), "--epochs", "3"];
    assert_success(&train(&args, dir.path()));
    let m = metrics(dir.path());
    assert_eq!(m["cross_validation"]["folds"], 5, "{m}");
    assert_eq!(num(&m, "test_rows"), 0.0);

    let big = dir.path().join("big.csv");
    let mut text = String::from("a,b,y\n");
    for i in 0..20_001 {
        let (a, b) = ((i % 97) as f32 / 97.0, (i % 89) as f32 / 89.0);
        text += &format!("{a},{b},{}\n", a - 2.0 * b);
    }
    std::fs::write(&big, text).unwrap();
    let out = dir.path().join("big");
    let args = [
        "mlp",
        "--data",
        big.to_str().unwrap(),
        "--epochs",
        "1",
        "--model",
        "mlp",
    ];
    assert_success(&train(&args, &out));
    let m = metrics(&out);
    assert!(m.get("cross_validation").is_none(), "{m}");
    assert_eq!(num(&m, "test_rows"), 4000.0);

    let given = dir.path().join("given");
    let path = circles.to_str().unwrap();
    let args = [
        "mlp",
        "--data",
        path,
        "--epochs",
        "1",
        "--test-fraction",
        "0.25",
    ];
    assert_success(&train(&args, &given));
    let m = metrics(&given);
    assert!(m.get("cross_validation").is_none(), "{m}");
    assert_eq!(num(&m, "test_rows"), 200.0);
}
