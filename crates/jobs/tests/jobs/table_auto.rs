//! The default table model's rules: the second and third networks it trains, early
//! stopping, too few validation rows, and on one split of three linear classes the
//! multinomial linear model kept against briefly trained networks.

use jobs::table::{Prepared, TableOptions, prepare};
use jobs::tabular::Kept;
use jobs::tabular::auto::{self, MIN_VAL_ROWS, NumericEncoding};
use jobs::tabular::job::{NetworkOptions, Quiet, Selection, TableJob, TableJobOptions, TableModel};
use jobs::tabular::report::TestFigures;
use nn::TrainLength;
use tensor_cpu::CpuBackend;

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

#[test]
fn auto_trains_a_second_network_and_stops_early_on_a_table_of_enough_rows() {
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
}

#[test]
fn too_few_validation_rows_train_no_second_network() {
    let dir = tempfile::tempdir().unwrap();
    // 100 rows: 75 for training, 15 of them for validation (fewer than MIN_VAL_ROWS).
    let p = prepared(dir.path(), 100);
    assert!(p.val.as_ref().unwrap().rows < MIN_VAL_ROWS);
    assert_eq!(auto::second_network(None, None, &p), None);
}

/// Three classes told apart by lines: on one split, the multinomial linear model is kept
/// against briefly trained networks, refitted on every training row, with an output per
/// class.
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
    let mut o = TableJobOptions::new(
        &path,
        TableModel::Network(NetworkOptions {
            hidden: nn::HiddenLayers(vec![8]),
            ..NetworkOptions::default()
        }),
    );
    o.data.test_fraction = 0.25;
    o.training.length = Some(TrainLength::Steps(2));
    let mut quiet = Quiet(train::Silent);
    let job = TableJob::prepare(&o, &mut quiet).unwrap();
    let out = job
        .train(&cpu, &dir.path().join("run"), &mut quiet)
        .unwrap();
    let Selection::Chosen(choice) = &out.selection else {
        panic!("one split of 270 training rows compares")
    };
    assert_eq!(choice.kept, Kept::Linear, "{}", choice.reason);
    assert!(choice.linear_score.unwrap() > 0.95, "{choice:?}");
    assert!(
        choice
            .reason
            .starts_with("the linear model, refitted on every training row"),
        "{}",
        choice.reason
    );
    assert_eq!(out.model.network().output_dim(), 3);
    let Some(TestFigures::Classes(c)) = &out.metrics.test else {
        panic!("test rows of three classes")
    };
    assert!(c.accuracy >= 0.95, "{}", c.accuracy);
}
