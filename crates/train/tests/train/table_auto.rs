//! The default table model's choice: on a table that is linear, a briefly trained network
//! loses to the linear model, which is refitted on the training and validation rows and
//! predicts the test rows as the closed form does; too few validation rows make no choice.

use nn::{Activation, Loss, Mlp, TrainLength};
use tensor_core::Tensor;
use tensor_cpu::CpuBackend;
use train::table::{Prepared, TableOptions, prepare};
use train::tabular::Kept;
use train::tabular::auto::{self, MIN_VAL_ROWS};
use train::{Run, Settings};

/// `rows` rows of y = 3 a - 2 b + 1 (a, b spread over [-1, 1] without counting the rows).
fn linear_table(dir: &std::path::Path, rows: usize) -> std::path::PathBuf {
    let mut text = String::from("a,b,y\n");
    for i in 0..rows {
        let a = ((i * 37) % 101) as f32 / 50.0 - 1.0;
        let b = ((i * 59) % 103) as f32 / 51.0 - 1.0;
        text += &format!("{a},{b},{}\n", 3.0 * a - 2.0 * b + 1.0);
    }
    let path = dir.join("linear.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn prepared(dir: &std::path::Path, rows: usize) -> Prepared {
    let options = TableOptions {
        data: linear_table(dir, rows),
        test_fraction: 0.25,
        val_fraction: auto::validation_fraction(None),
        ..TableOptions::default()
    };
    prepare(&options, Some(false)).unwrap()
}

/// A network trained for a few steps only (`outputs` wide, with `loss`): far from the
/// table's line or classes.
fn brief_network(
    cpu: &CpuBackend,
    p: &Prepared,
    dir: &std::path::Path,
    (outputs, loss): (usize, Loss),
) -> train::Outcome<Mlp<CpuBackend>> {
    let t = p.tensors(cpu).unwrap();
    let config = Mlp::<CpuBackend>::builder()
        .input(p.train.n_features)
        .hidden(&[8], Activation::Relu)
        .output(outputs, Activation::Identity)
        .config(3)
        .unwrap();
    let settings = Settings {
        lr: 1e-4,
        length: TrainLength::Steps(2),
        checkpoint_every: 0,
        ..Settings::default()
    };
    Run::new("fit", dir, config, loss, settings)
        .train_mlp(cpu, t.train_data(), t.val_data())
        .unwrap()
}

#[test]
fn a_linear_table_keeps_the_linear_model_refitted_on_every_training_row() {
    let cpu = CpuBackend::new();
    let dir = tempfile::tempdir().unwrap();
    let p = prepared(dir.path(), 400);
    assert!(p.val.as_ref().unwrap().rows >= MIN_VAL_ROWS);
    assert!(auto::second_network(None, &p));
    assert!(!auto::second_network(Some(2), &p));
    assert!(auto::early_stopping(true, None, &p).is_some());
    assert!(auto::early_stopping(false, None, &p).is_none());

    let mut out = brief_network(&cpu, &p, &dir.path().join("run"), (1, Loss::Mse));
    let targets = io::Standardizer::fit(&p.train.y, 1).unwrap();
    let selected = auto::select(&cpu, &p, &p.train.x, &mut out, Some(&targets), None)
        .unwrap()
        .expect("enough validation rows to compare");
    assert_eq!(
        selected.choice.kept,
        Kept::Linear,
        "{}",
        selected.choice.reason
    );
    assert!(selected.resave);
    assert!(
        selected.choice.linear_score.unwrap() > 0.999,
        "{:?}",
        selected.choice
    );
    assert!(selected.choice.network_score < selected.choice.linear_score.unwrap());

    // The kept model predicts the test rows as the line does, in target units (ridge's
    // small penalty shrinks it slightly).
    let x = Tensor::from_slice(&cpu, &p.test.x, [p.test.rows, p.test.n_features]).unwrap();
    let raw = out.model.predict(&x).unwrap().to_vec().unwrap();
    let predicted = targets.inverse_transform(&raw).unwrap();
    let mean = p.test.y.iter().sum::<f32>() / p.test.rows as f32;
    let (mut residual, mut total) = (0.0f64, 0.0f64);
    for (got, want) in predicted.iter().zip(&p.test.y) {
        residual += f64::from(got - want).powi(2);
        total += f64::from(want - mean).powi(2);
    }
    assert!(1.0 - residual / total > 0.999, "{residual} of {total}");
}

#[test]
fn too_few_validation_rows_make_no_choice() {
    let cpu = CpuBackend::new();
    let dir = tempfile::tempdir().unwrap();
    // 100 rows: 75 for training, 15 of them for validation (fewer than MIN_VAL_ROWS).
    let p = prepared(dir.path(), 100);
    assert!(p.val.as_ref().unwrap().rows < MIN_VAL_ROWS);
    assert!(!auto::second_network(None, &p));
    let mut out = brief_network(&cpu, &p, &dir.path().join("run"), (1, Loss::Mse));
    let selected = auto::select(&cpu, &p, &p.train.x, &mut out, None, None).unwrap();
    assert!(selected.is_none());
}

/// Three classes told apart by lines: the multinomial linear model is the candidate, kept
/// against a briefly trained network, with an output per class.
#[test]
fn three_linear_classes_keep_a_multinomial_model() {
    let cpu = CpuBackend::new();
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("a,b,label\n");
    for i in 0..450 {
        let a = ((i * 37) % 101) as f32 / 50.0 - 1.0;
        let b = ((i * 59) % 103) as f32 / 51.0 - 1.0;
        let label = if a > 0.3 {
            "high"
        } else if b > 0.0 {
            "left"
        } else {
            "low"
        };
        text += &format!("{a},{b},{label}\n");
    }
    let path = dir.path().join("classes.csv");
    std::fs::write(&path, text).unwrap();
    let options = TableOptions {
        data: path,
        test_fraction: 0.25,
        val_fraction: auto::validation_fraction(None),
        ..TableOptions::default()
    };
    let p = prepare(&options, Some(true)).unwrap();
    assert_eq!(p.classes(), 3);
    let run = dir.path().join("run");
    let mut out = brief_network(&cpu, &p, &run, (3, Loss::SoftmaxCrossEntropy));
    let selected = auto::select(&cpu, &p, &p.train.x, &mut out, None, None)
        .unwrap()
        .unwrap();
    assert_eq!(
        selected.choice.kept,
        Kept::Linear,
        "{}",
        selected.choice.reason
    );
    assert!(
        selected.choice.linear_score.unwrap() > 0.95,
        "{:?}",
        selected.choice
    );
    let x = Tensor::from_slice(&cpu, &p.test.x, [p.test.rows, p.test.n_features]).unwrap();
    let scores = out.model.predict(&x).unwrap().to_vec().unwrap();
    assert_eq!(scores.len(), 3 * p.test.rows);
    let right = scores
        .chunks(3)
        .zip(&p.test.y)
        .filter(|(s, y)| (0..3).max_by(|&a, &b| s[a].total_cmp(&s[b])) == Some(**y as usize))
        .count();
    assert!(
        right as f64 >= 0.95 * p.test.rows as f64,
        "{right} of {}",
        p.test.rows
    );
}
