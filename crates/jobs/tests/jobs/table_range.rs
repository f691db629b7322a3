//! A network regression keeps its predictions within its training targets' range: rows far
//! outside the training inputs are not extrapolated beyond anything seen. `linreg` is a
//! plain linear regression and is not bounded.

use io::FittedModel;
use io::table::load_table_file;
use jobs::tabular::job::{NetworkOptions, Quiet, TableJob, TableJobOptions, TableModel};
use nn::TrainLength;
use std::path::Path;
use tensor_cpu::CpuBackend;
use train::Silent;

/// Training rows of y = 2 x on x in [0, 1]; test rows far out, at x = 50.
fn files(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut train = String::from("x,y\n");
    for i in 0..200 {
        let x = i as f32 / 199.0;
        train += &format!("{x},{}\n", 2.0 * x);
    }
    let test = "x,y\n50,100\n-50,-100\n0.5,1\n";
    let (a, b) = (dir.join("train.csv"), dir.join("test.csv"));
    std::fs::write(&a, train).unwrap();
    std::fs::write(&b, test).unwrap();
    (a, b)
}

/// The kept model's predictions for the test rows, trained by `model`.
fn predictions(dir: &Path, model: TableModel) -> (Vec<f32>, FittedModel<CpuBackend>) {
    let (train, test) = files(dir);
    let mut o = TableJobOptions::new(&train, model);
    o.data.test_data = Some(test.clone());
    if matches!(o.model, TableModel::Network(_)) {
        o.training.length = Some(TrainLength::Epochs(20));
    }
    let mut quiet = Quiet(Silent);
    let job = TableJob::prepare(&o, &mut quiet).unwrap();
    let out = job
        .train(&CpuBackend::new(), &dir.join("run"), &mut quiet)
        .unwrap();
    let rows = load_table_file(&test).unwrap().rows;
    let values = out.model.predict_table(&rows).unwrap().values;
    (values, out.model)
}

#[test]
fn a_network_regression_stays_within_its_training_targets() {
    let dir = tempfile::tempdir().unwrap();
    let network = TableModel::Network(NetworkOptions::default());
    let (values, model) = predictions(dir.path(), network);
    let range = model.info().target_range.clone().unwrap();
    assert_eq!((range.low, range.high), (vec![0.0], vec![2.0]));
    // Far out the answers are the range's ends; inside, the fit itself.
    assert_eq!(&values[..2], [2.0, 0.0]);
    assert!((values[2] - 1.0).abs() < 0.1, "{values:?}");
}

#[test]
fn a_linear_regression_is_not_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (values, model) = predictions(dir.path(), TableModel::Linear);
    assert!(model.info().target_range.is_none());
    // y = 2 x, carried far beyond the training targets.
    assert!((values[0] - 100.0).abs() < 1.0, "{values:?}");
    assert!((values[1] + 100.0).abs() < 1.0, "{values:?}");
}
