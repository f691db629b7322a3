//! A model trained on a raw table (word labels, categories, yes/no, dates, missing cells),
//! exported to ONNX and run by onnxruntime through `examples/python/onnx_predict.py` on raw
//! rows (columns in another order, unknown levels, missing cells), against `iron-learn
//! predict` on the same rows: the same labels and probabilities within 1e-5. Skipped, with
//! a note, without python3, numpy and onnxruntime.

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// `rows` loans: a grade (category) and an income (number with gaps) decide the status
/// (words); a yes/no column and a date.
fn loans(rows: usize) -> String {
    let mut text = String::from("grade,income,owner,opened,status\n");
    for r in 0..rows {
        let grade = ["A", "B", "C", "D"][r % 4];
        let income = if r % 13 == 4 {
            "NA".to_string()
        } else {
            format!("{}", 20 + (r * 37) % 90)
        };
        let owner = ["yes", "no", "Y", ""][r % 4];
        let opened = format!("20{:02}-{:02}-{:02}", 10 + r % 12, 1 + r % 12, 1 + r % 27);
        let status = if (r % 4) + (r * 37) % 90 / 30 > 2 {
            "late"
        } else {
            "paid"
        };
        text += &format!("{grade},{income},{owner},{opened},{status}\n");
    }
    text
}

const NEW_ROWS: &str = "\
opened,status,income,grade,owner
2019-06-30,x,45,B,yes
,x,,Z,maybe
2011-01-01,x,1e9,NA,N
2024-02-29,x,abc,d,TRUE
";

fn onnx_predict(model: &Path, data: &Path) -> Option<String> {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python/onnx_predict.py");
    let ready = Command::new("python3")
        .args(["-c", "import numpy, onnxruntime"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        eprintln!("note: skipped: python3 with numpy and onnxruntime is not available");
        return None;
    }
    let o = Command::new("python3")
        .arg(script)
        .arg(model)
        .arg(data)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "onnx_predict.py failed: {}",
        describe(&o)
    );
    Some(String::from_utf8(o.stdout).unwrap())
}

#[test]
fn onnxruntime_on_raw_rows_agrees_with_predict() {
    let dir = tmp();
    let data = dir.path().join("loans.csv");
    std::fs::write(&data, loans(200)).unwrap();
    let run_dir = dir.path().join("run");
    let data_arg = data.to_str().unwrap();
    let o = train(
        &[
            "mlp", "--data", data_arg, "--target", "status", "--epochs", "20",
        ],
        &run_dir,
    );
    assert_success(&o);
    // The default model: bagged over 5 folds, an ensemble of the folds' networks.
    let record = std::fs::read_to_string(run_dir.join("config.json")).unwrap();
    assert!(record.contains("\"members\""), "{record}");
    let model = dir.path().join("loans.onnx");
    let o = run([
        "export".as_ref(),
        run_dir.as_os_str(),
        "--format".as_ref(),
        "onnx".as_ref(),
        "-o".as_ref(),
        model.as_os_str(),
    ]);
    assert_success(&o);
    assert!(
        stdout(&o).contains("inputs: grade, income, owner, opened"),
        "{}",
        describe(&o)
    );

    let new = dir.path().join("new.csv");
    std::fs::write(&new, NEW_ROWS).unwrap();
    let ours = dir.path().join("ours.csv");
    let o = run([
        "predict".as_ref(),
        run_dir.as_os_str(),
        "--data".as_ref(),
        new.as_os_str(),
        "-o".as_ref(),
        ours.as_os_str(),
    ]);
    assert_success(&o);
    let want = std::fs::read_to_string(&ours).unwrap();
    let Some(got) = onnx_predict(&model, &new) else {
        return;
    };
    let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    assert_eq!(got.len(), 5, "{got:?}");
    assert_eq!(got[0], want[0]);
    for (g, w) in got.iter().zip(&want).skip(1) {
        let (g, w): (Vec<&str>, Vec<&str>) = (g.split(',').collect(), w.split(',').collect());
        assert_eq!(g[0], w[0], "labels");
        assert!(["late", "paid"].contains(&g[0]), "{g:?}");
        for (a, b) in g[1..].iter().zip(&w[1..]) {
            let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
            assert!(
                (a - b).abs() <= 1e-5,
                "onnxruntime {g:?} against predict {w:?}"
            );
        }
    }
}
