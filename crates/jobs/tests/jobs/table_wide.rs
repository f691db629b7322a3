//! `auto` on tables too wide for a periodic network: a network on piecewise-linear inputs
//! stands in for it when those inputs are narrow enough.

use jobs::table::{TableOptions, prepare};
use jobs::tabular::auto::{self, MAX_PERIODIC_INPUTS, MAX_PIECEWISE_INPUTS, NumericEncoding};
use jobs::tabular::job::{
    ModelChoice, NetworkOptions, Quiet, Selection, TableJob, TableJobOptions, TableModel,
};
use nn::TrainLength;
use std::path::{Path, PathBuf};
use tensor_cpu::CpuBackend;
use train::Silent;

/// Number columns beyond what a periodic network takes.
const COLUMNS: usize = MAX_PERIODIC_INPUTS + 10;

/// `rows` rows of [`COLUMNS`] number columns of `levels` values each, and y = c0 + c1 - c2.
fn wide_table(dir: &Path, rows: usize, levels: usize) -> PathBuf {
    let names: Vec<String> = (0..COLUMNS).map(|c| format!("c{c}")).collect();
    let mut text = names.join(",") + ",y\n";
    for i in 0..rows {
        let cells: Vec<usize> = (0..COLUMNS).map(|c| (i * (2 * c + 7)) % levels).collect();
        let y = cells[0] as f32 + cells[1] as f32 - cells[2] as f32;
        for v in &cells {
            text += &format!("{v},");
        }
        text += &format!("{y}\n");
    }
    let path = dir.join(format!("wide_{levels}.csv"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_wide_table_trains_a_piecewise_network_instead_of_a_periodic_one() {
    let dir = tempfile::tempdir().unwrap();
    let options = TableOptions {
        data: wide_table(dir.path(), 300, 2),
        test_fraction: 0.25,
        val_fraction: auto::validation_fraction(None),
        ..TableOptions::default()
    };
    let p = prepare(&options, Some(false)).unwrap();
    assert!(p.train.n_features > MAX_PERIODIC_INPUTS);
    let piecewise = NumericEncoding::Piecewise(auto::AUTO_PIECEWISE_BINS);
    assert_eq!(auto::second_network(None, None, &p), Some(piecewise));
    assert_eq!(auto::third_network(piecewise, None), None);
    assert_eq!(auto::piecewise_cap(None, &p), Some(MAX_PIECEWISE_INPUTS));
    assert_eq!(auto::piecewise_cap(Some(piecewise), &p), None, "asked");
    let periodic = Some(NumericEncoding::Periodic(3));
    assert_eq!(auto::second_network(None, periodic, &p), None, "too wide");
}

/// `auto` on a wide table of `levels` values a column: whether it trained a piecewise
/// network, and the choice's reason.
fn auto_on_wide_table(levels: usize) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut o = TableJobOptions::new(
        wide_table(dir.path(), 300, levels),
        TableModel::Network(NetworkOptions {
            choice: ModelChoice::Auto,
            hidden: nn::HiddenLayers(vec![8]),
            ..NetworkOptions::default()
        }),
    );
    o.data.target = Some("y".into());
    o.training.length = Some(TrainLength::Epochs(3));
    let mut quiet = Quiet(Silent);
    let job = TableJob::prepare(&o, &mut quiet).unwrap();
    let run = dir.path().join("run");
    let out = job.train(&CpuBackend::new(), &run, &mut quiet).unwrap();
    let Selection::Chosen(choice) = &out.selection else {
        panic!("auto compares on 45 validation rows")
    };
    assert!(!run.join("periodic").exists());
    (run.join("piecewise").exists(), choice.reason.clone())
}

#[test]
fn the_piecewise_network_of_a_wide_table_trains_only_on_narrow_rows() {
    // Two values a column: a bin or two each, the rows about as wide as the table.
    let (trained, reason) = auto_on_wide_table(2);
    assert!(trained, "{reason}");
    assert!(reason.contains(", piecewise "), "{reason}");
    // Many values: 32 bins a column, far more than MAX_PIECEWISE_INPUTS columns.
    let (trained, reason) = auto_on_wide_table(97);
    assert!(!trained, "{reason}");
    assert!(!reason.contains("piecewise"), "{reason}");
}
