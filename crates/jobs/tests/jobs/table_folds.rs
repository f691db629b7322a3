//! k-fold cross-validation: folds that partition the rows (by class for a classifier); a
//! network asked for scored on each fold by its own model, then trained on every row; the
//! default model bagged: each fold's candidates trained on the other folds, an ensemble of
//! them kept, scored on the rows it did not train on.

use io::FittedModel;
use io::table::load_table_file;
use jobs::table::{Fold, split_fold};
use jobs::tabular::auto::FEW_LEVELS_DIR;
use jobs::tabular::job::{
    FOLDS_DIR, ModelChoice, NetworkOptions, Portfolio, Quiet, Selection, TableJobOptions,
    TableModel, TableRefusal, cross_validate,
};
use nn::TrainLength;
use std::path::{Path, PathBuf};
use tensor_cpu::CpuBackend;
use train::Silent;

/// `rows` rows of `x, label, y`: y = 3 x + 1 plus a little noise, label one of three
/// classes of unequal counts (a, a, a, b, b, c).
fn table(dir: &Path, rows: usize) -> PathBuf {
    let mut text = String::from("x,label,y\n");
    for i in 0..rows {
        let x = ((i * 37) % 101) as f64 / 50.0 - 1.0;
        let noise = (((i * 7919) % 13) as f64 - 6.0) / 60.0;
        let label = ["a", "a", "a", "b", "b", "c"][i % 6];
        text += &format!("{x},{label},{}\n", 3.0 * x + 1.0 + noise);
    }
    let path = dir.join("t.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// The `x` column of each fold's held rows, for `of` folds.
fn held_rows(path: &Path, of: usize, target: Option<&str>, seed: u64) -> Vec<Vec<String>> {
    let t = load_table_file(path).unwrap().rows;
    (0..of)
        .map(|index| {
            let (kept, held) = split_fold(&t, Fold { index, of }, target, seed).unwrap();
            assert_eq!(kept.rows() + held.rows(), t.rows());
            let c = held.require("x").unwrap();
            let mut buf = String::new();
            (0..held.rows())
                .map(|r| held.column(c).cell(r).text(&mut buf).to_string())
                .collect()
        })
        .collect()
}

#[test]
fn folds_partition_the_rows_evenly_and_by_class() {
    let dir = tempfile::tempdir().unwrap();
    let path = table(dir.path(), 103);
    let folds = held_rows(&path, 5, Some("label"), 7);
    let sizes: Vec<usize> = folds.iter().map(Vec::len).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 103);
    assert!(
        sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
        "{sizes:?}"
    );
    // Every row is held by exactly one fold (x values repeat, so count them).
    let mut all: Vec<String> = folds.concat();
    let mut rows = held_rows(&path, 1, None, 0).concat();
    all.sort();
    rows.sort();
    assert_eq!(all, rows);
    // Each class in proportion: class `c` (17 or 18 of 103 rows) gives each fold 3 or 4.
    let t = load_table_file(&path).unwrap().rows;
    for index in 0..5 {
        let (_, held) = split_fold(&t, Fold { index, of: 5 }, Some("label"), 7).unwrap();
        let c = held.require("label").unwrap();
        let mut buf = String::new();
        let count = (0..held.rows())
            .filter(|&r| held.column(c).cell(r).text(&mut buf) == "c")
            .count();
        assert!((3..=4).contains(&count), "fold {index}: {count} rows of c");
    }
    // The seed draws the folds; the same seed the same folds.
    assert_eq!(held_rows(&path, 5, None, 3), held_rows(&path, 5, None, 3));
    assert_ne!(held_rows(&path, 5, None, 3), held_rows(&path, 5, None, 4));
    let e = split_fold(&t, Fold { index: 0, of: 200 }, None, 1).unwrap_err();
    assert!(
        e.to_string().contains("103 rows: too few for 200 folds"),
        "{e}"
    );
}

/// The options of a job on `data`'s `y` over `folds` folds, of the network alone.
fn options(data: &Path, folds: usize) -> TableJobOptions {
    let network = NetworkOptions {
        choice: ModelChoice::Network,
        ..NetworkOptions::default()
    };
    let mut o = TableJobOptions::new(data, TableModel::Network(network));
    o.data.target = Some("y".into());
    o.data.folds = Some(folds);
    o.training.length = Some(TrainLength::Epochs(30));
    o
}

#[test]
fn a_network_asked_for_is_scored_by_each_fold_and_trained_on_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(dir.path(), 240);
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let out = cross_validate(
        &options(&data, 3),
        &CpuBackend::new(),
        &run,
        &mut Quiet(Silent),
    );
    let out = out.unwrap();
    let cv = out.metrics.cross_validation.clone().unwrap();
    assert_eq!((cv.folds, cv.measure, cv.scores.len()), (3, "r2", 3));
    let mean = cv.scores.iter().sum::<f64>() / 3.0;
    assert!((cv.mean - mean).abs() < 1e-12);
    // Fold 2's score: its saved model on its held rows, R² computed here in f64.
    let t = load_table_file(&data).unwrap().rows;
    let (_, held) = split_fold(&t, Fold { index: 1, of: 3 }, None, 42).unwrap();
    let model = FittedModel::load(run.join(FOLDS_DIR).join("2"), &CpuBackend::new()).unwrap();
    let predicted = model.predict_table(&held).unwrap().values;
    let c = held.require("y").unwrap();
    let truth: Vec<f64> = (0..held.rows())
        .map(|r| held.column(c).cell(r).number_f32().unwrap() as f64)
        .collect();
    let m = truth.iter().sum::<f64>() / truth.len() as f64;
    let total: f64 = truth.iter().map(|v| (v - m).powi(2)).sum();
    let residual: f64 = truth
        .iter()
        .zip(&predicted)
        .map(|(t, p)| (t - *p as f64).powi(2))
        .sum();
    assert!(
        (cv.scores[1] - (1.0 - residual / total)).abs() < 1e-6,
        "{cv:?}"
    );
    assert!(cv.mean > 0.9, "{cv:?}");
    // The kept model: every row trained or validated it, none held out for testing.
    let m = &out.metrics;
    assert_eq!((m.train_rows + m.validation_rows, m.test_rows), (240, 0));
    assert!(
        out.lines()
            .iter()
            .any(|l| l.starts_with("cross-validated over 3 folds: R² "))
    );
    let written = std::fs::read_to_string(run.join("metrics.json")).unwrap();
    assert!(written.contains("\"cross_validation\""), "{written}");
}

#[test]
fn folds_out_of_range_or_beside_a_test_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(dir.path(), 40);
    for (folds, test) in [(1, None), (21, None), (5, Some(data.clone()))] {
        let mut o = options(&data, folds);
        o.data.test_data = test;
        let e = o.check().unwrap_err();
        assert!(
            matches!(e, TableRefusal::Folds(_) | TableRefusal::FoldsWithTestRows),
            "{e}"
        );
    }
}

/// The default model over 3 folds: an ensemble of each fold's networks (and maybe the
/// linear model), saved as one model file that predicts as the outcome's model does; each
/// fold's runs trained on the other folds' 160 rows and validated on its own 80.
#[test]
fn the_default_model_is_bagged_over_the_folds() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(dir.path(), 240);
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let mut o = options(&data, 3);
    o.model = TableModel::Network(NetworkOptions::default());
    let cpu = CpuBackend::new();
    let out = cross_validate(&o, &cpu, &run, &mut Quiet(Silent)).unwrap();
    let Selection::Bagged(choice) = &out.selection else {
        panic!("not bagged: {:?}", out.selection);
    };
    assert!(
        choice.reason.contains("out-of-fold R²"),
        "{}",
        choice.reason
    );
    let ensemble = out
        .model
        .network()
        .downcast_ref::<nn::MlpEnsemble<CpuBackend>>();
    let ensemble = ensemble.expect("an ensemble");
    assert_eq!(ensemble.members().len() % 3, 0, "whole bags of 3 folds");
    let total: f32 = ensemble.weights().iter().sum();
    assert!((total - 1.0).abs() < 1e-5, "{total}");
    let cv = out.metrics.cross_validation.clone().unwrap();
    assert_eq!((cv.folds, cv.scores.len()), (3, 3));
    assert!(cv.mean > 0.9, "{cv:?}");
    let m = &out.metrics;
    assert_eq!((m.train_rows, m.validation_rows, m.test_rows), (240, 0, 0));
    // The saved model predicts the table as the outcome's model does.
    let saved = FittedModel::load(&run, &cpu).unwrap();
    assert_eq!(saved.network().kind(), "mlp_ensemble");
    let t = load_table_file(&data).unwrap().rows;
    let (a, b) = (saved.predict_table(&t), out.model.predict_table(&t));
    assert_eq!(a.unwrap().values, b.unwrap().values);
    for fold in 1..=3 {
        let config = run
            .join(FOLDS_DIR)
            .join(fold.to_string())
            .join("config.json");
        let config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(config).unwrap()).unwrap();
        let rows = &config["data"]["rows"];
        assert_eq!(
            (rows["train"].as_u64(), rows["validation"].as_u64()),
            (Some(160), Some(80)),
            "{config}"
        );
    }
    let lines = out.lines();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("model kept: the mean over 3 folds of ")),
        "{lines:?}"
    );
    // A category of three levels: no network leaves it out.
    assert!(!choice.reason.contains("many-level"), "{}", choice.reason);
    assert!(!run.join(FOLDS_DIR).join("1").join(FEW_LEVELS_DIR).exists());
}

/// The out-of-fold score of the candidate `name` in a bagged choice's reason.
fn candidate_score(reason: &str, name: &str) -> f64 {
    let scores = reason.split("out-of-fold R²: ").nth(1).unwrap();
    let at = scores.find(&format!("{name} ")).unwrap() + name.len() + 1;
    let text: String = scores[at..]
        .chars()
        .take_while(|c| *c == '-' || *c == '.' || c.is_ascii_digit())
        .collect();
    text.parse().unwrap()
}

#[test]
fn a_network_of_the_bagged_model_leaves_out_the_categories_of_many_levels() {
    // y is the level of a 20-level category (its number over 10) plus a little of x.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("x,level,y\n");
    for i in 0..300 {
        let x = ((i * 37) % 101) as f64 / 50.0 - 1.0;
        let level = (i * 7) % 20;
        text += &format!("{x},L{level},{}\n", level as f64 / 10.0 + 0.1 * x);
    }
    let data = dir.path().join("t.csv");
    std::fs::write(&data, text).unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let mut o = options(&data, 3);
    o.model = TableModel::Network(NetworkOptions::default());
    let out = cross_validate(&o, &CpuBackend::new(), &run, &mut Quiet(Silent)).unwrap();
    let Selection::Bagged(choice) = &out.selection else {
        panic!("not bagged: {:?}", out.selection);
    };
    let reason = &choice.reason;
    // The network that leaves the category out trained in every fold, and it cannot tell
    // the levels apart where the plain one can.
    for fold in 1..=3 {
        let folder = run.join(FOLDS_DIR).join(fold.to_string());
        assert!(folder.join(FEW_LEVELS_DIR).is_dir(), "fold {fold}");
    }
    let (plain, few) = (
        candidate_score(reason, "plain"),
        candidate_score(reason, "plain without many-level categories"),
    );
    assert!(plain > 0.9 && few < 0.2, "{reason}");

    // The small portfolio trains no such network (nor the one without weight decay).
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let network = NetworkOptions {
        portfolio: Portfolio::Small,
        ..NetworkOptions::default()
    };
    o.model = TableModel::Network(network.clone());
    let out = cross_validate(&o, &CpuBackend::new(), &small, &mut Quiet(Silent)).unwrap();
    let Selection::Bagged(choice) = &out.selection else {
        panic!("not bagged: {:?}", out.selection);
    };
    assert!(
        !choice.reason.contains("plain without"),
        "{}",
        choice.reason
    );
    assert!(
        !small
            .join(FOLDS_DIR)
            .join("1")
            .join(FEW_LEVELS_DIR)
            .exists()
    );
    // A portfolio asked of a network alone is refused.
    o.model = TableModel::Network(NetworkOptions {
        choice: ModelChoice::Network,
        ..network
    });
    let e = o.check().unwrap_err();
    assert!(matches!(e, TableRefusal::PortfolioOfOneNetwork), "{e}");
}

/// A table of fewer than two rows a fold: folds asked for are refused in one line; folds
/// given by default (a row limit set) give way to one split.
#[test]
fn a_table_too_small_for_its_folds_is_refused_or_trained_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(dir.path(), 9);
    let mut o = options(&data, 5);
    o.model = TableModel::Network(NetworkOptions::default());
    let cpu = CpuBackend::new();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let e = cross_validate(&o, &cpu, &run, &mut Quiet(Silent))
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("9 training rows are too few for 5 folds"),
        "{e}"
    );
    o.data.folds_up_to_rows = Some(20_000);
    let out = cross_validate(&o, &cpu, &run, &mut Quiet(Silent)).unwrap();
    assert!(out.metrics.cross_validation.is_none());
    assert!(!matches!(out.selection, Selection::Bagged(_)));
}
