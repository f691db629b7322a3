//! The default table model's choice: on a table that is linear, a briefly trained network
//! loses to the linear model, which is refitted on the training and validation rows and
//! predicts the test rows as the closed form does; too few validation rows make no choice; a
//! second network on piecewise-linear rows is scored, and blended, on its own rows.

use jobs::table::{Prepared, TableOptions, prepare};
use jobs::tabular::Kept;
use jobs::tabular::auto::{self, MIN_VAL_ROWS, NumericEncoding, SecondNetwork};
use nn::{Activation, Loss, Mlp, TrainLength};
use tensor_core::Tensor;
use tensor_cpu::CpuBackend;
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
    shape: (usize, Loss),
) -> train::Outcome<Mlp<CpuBackend>> {
    network(cpu, p, dir, shape, (2, 1e-4))
}

/// A network of 8 hidden units (`outputs` wide, with `loss`) trained `steps` steps at
/// learning rate `lr`.
fn network(
    cpu: &CpuBackend,
    p: &Prepared,
    dir: &std::path::Path,
    (outputs, loss): (usize, Loss),
    (steps, lr): (u64, f32),
) -> train::Outcome<Mlp<CpuBackend>> {
    let t = p.tensors(cpu).unwrap();
    let config = Mlp::<CpuBackend>::builder()
        .input(p.train.n_features)
        .hidden(&[8], Activation::Relu)
        .output(outputs, Activation::Identity)
        .config(3)
        .unwrap();
    let settings = Settings {
        lr,
        length: TrainLength::Steps(steps),
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
    assert_eq!(
        auto::second_network(None, None, &p),
        Some(auto::AUTO_SECOND)
    );
    let piecewise = Some(NumericEncoding::Piecewise(8));
    assert_eq!(auto::second_network(None, piecewise, &p), piecewise);
    let plain = Some(NumericEncoding::Plain);
    assert_eq!(auto::second_network(None, plain, &p), None);
    let periodic = Some(NumericEncoding::Periodic(2));
    assert_eq!(auto::second_network(periodic, None, &p), None);
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
    let test = p.test.as_ref().unwrap();
    let x = Tensor::from_slice(&cpu, &test.x, [test.rows, test.n_features]).unwrap();
    let raw = out.model.predict(&x).unwrap().to_vec().unwrap();
    let predicted = targets.inverse_transform(&raw).unwrap();
    let mean = test.y.iter().sum::<f32>() / test.rows as f32;
    let (mut residual, mut total) = (0.0f64, 0.0f64);
    for (got, want) in predicted.iter().zip(&test.y) {
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
    assert_eq!(auto::second_network(None, None, &p), None);
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
    let test = p.test.as_ref().unwrap();
    let x = Tensor::from_slice(&cpu, &test.x, [test.rows, test.n_features]).unwrap();
    let scores = out.model.predict(&x).unwrap().to_vec().unwrap();
    assert_eq!(scores.len(), 3 * test.rows);
    let right = scores
        .chunks(3)
        .zip(&test.y)
        .filter(|(s, y)| (0..3).max_by(|&a, &b| s[a].total_cmp(&s[b])) == Some(**y as usize))
        .count();
    assert!(
        right as f64 >= 0.95 * test.rows as f64,
        "{right} of {}",
        test.rows
    );
}

/// The second network reads the piecewise rows: its score, and the kept network's (the
/// mean of both, when kept, reads those rows too), are those of its outputs on them.
#[test]
fn a_piecewise_second_network_is_scored_on_its_own_rows() {
    let cpu = CpuBackend::new();
    let dir = tempfile::tempdir().unwrap();
    let mut p = prepared(dir.path(), 400);
    let plain = brief_network(&cpu, &p, &dir.path().join("plain"), (1, Loss::Mse));
    // 400 rows of 2 numbers in at most 4 bins each, and a target: 4 bytes a value.
    assert_eq!(p.piecewise_bytes(4), 4 * 400 * (2 * 4 + 1));
    assert!(p.piecewise_fits(4, None) && p.piecewise_fits(4, Some(1e9)));
    assert!(
        !p.piecewise_fits(4, Some(1e6)),
        "the program alone takes more"
    );
    let mut parts = p.piecewise(&p.train.x, 4).unwrap();
    assert_eq!(
        parts.train.feature_names,
        [
            "a_bin1", "a_bin2", "a_bin3", "a_bin4", "b_bin1", "b_bin2", "b_bin3", "b_bin4"
        ]
    );
    p.swap_encoded(&mut parts);
    let second = brief_network(&cpu, &p, &dir.path().join("piecewise"), (1, Loss::Mse));
    p.swap_encoded(&mut parts);
    let columns = parts.encoding.plain_columns();
    let val = parts.val.as_ref().unwrap();
    let second = SecondNetwork {
        outcome: second,
        inputs: NumericEncoding::Piecewise(4),
        rows: Some((val, columns.as_slice())),
    };
    let targets = io::Standardizer::fit(&p.train.y, 1).unwrap();
    let (kept, note) = auto::best_network(&cpu, &p, plain, vec![second], Some(&targets)).unwrap();
    assert!(note.line.contains("with piecewise inputs"), "{}", note.line);
    let rows = if note.second_rows {
        val
    } else {
        p.val.as_ref().unwrap()
    };
    let x = Tensor::from_slice(&cpu, &rows.x, [rows.rows, rows.n_features]).unwrap();
    let outputs = kept.model.predict(&x).unwrap().to_vec().unwrap();
    let truth = targets.transform(&rows.y).unwrap();
    let score = jobs::tabular::score(&outputs, 1, &truth, 0);
    assert!(
        (score - note.score).abs() < 1e-4,
        "{score} against {}: {}",
        note.score,
        note.line
    );
}

/// The validation scores a choice line lists, in order.
fn listed_scores(line: &str) -> Vec<f64> {
    line.split([' ', ',', ';', ':'])
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

/// Among the plain network, two piecewise ones and each one's mean with the plain, the
/// kept network is the best listed, and its outputs on its own rows score what the line
/// says (with these seeds, the mean of the plain and the longer-trained piecewise
/// network); the rule trains a third network only beside a periodic second one chosen by
/// `auto` itself.
#[test]
fn the_best_of_every_network_and_mean_is_kept() {
    use NumericEncoding::{Periodic, Piecewise};
    assert_eq!(
        auto::third_network(Periodic(3), None),
        auto::AUTO_THIRD_BINS.map(Piecewise)
    );
    assert_eq!(auto::third_network(Periodic(3), Some(Periodic(3))), None);
    assert_eq!(auto::third_network(Piecewise(8), None), None);
    let cpu = CpuBackend::new();
    let dir = tempfile::tempdir().unwrap();
    let mut p = prepared(dir.path(), 400);
    let mut parts = p.piecewise(&p.train.x, 4).unwrap();
    let columns = parts.encoding.plain_columns();
    let targets = io::Standardizer::fit(&p.train.y, 1).unwrap();
    let shape = (1, Loss::Mse);
    let plain = network(&cpu, &p, &dir.path().join("plain"), shape, (300, 1e-2));
    p.swap_encoded(&mut parts);
    let weak = brief_network(&cpu, &p, &dir.path().join("weak"), shape);
    let strong = network(&cpu, &p, &dir.path().join("strong"), shape, (300, 1e-2));
    p.swap_encoded(&mut parts);
    let val = parts.val.as_ref().unwrap();
    let other = |outcome| SecondNetwork {
        outcome,
        inputs: Piecewise(4),
        rows: Some((val, columns.as_slice())),
    };
    let others = vec![other(weak), other(strong)];
    let (kept, note) = auto::best_network(&cpu, &p, plain, others, Some(&targets)).unwrap();
    let scores = listed_scores(&note.line);
    assert_eq!(scores.len(), 5, "{}", note.line);
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!((note.score - best).abs() < 5e-5, "{}", note.line);
    assert!(
        scores[3] > scores[1],
        "more training scores better: {}",
        note.line
    );
    let rows = if note.second_rows {
        val
    } else {
        p.val.as_ref().unwrap()
    };
    assert_eq!(note.replaced, best != scores[0], "{}", note.line);
    let x = Tensor::from_slice(&cpu, &rows.x, [rows.rows, rows.n_features]).unwrap();
    let outputs = kept.model.predict(&x).unwrap().to_vec().unwrap();
    let truth = targets.transform(&rows.y).unwrap();
    let score = jobs::tabular::score(&outputs, 1, &truth, 0);
    assert!((score - best).abs() < 1e-4, "{score}: {}", note.line);
    assert!(
        note.line.ends_with("the mean of plain and piecewise kept"),
        "{}",
        note.line
    );
}
