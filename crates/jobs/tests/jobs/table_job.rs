//! A table job as a library call: the table read and reported, `auto`'s choice made and
//! said, the files written, and refusals typed in the library's own terms.

use jobs::Error;
use jobs::metrics::{Reference, RegressionMetrics};
use jobs::tabular::Kept;
use jobs::tabular::job::{
    ModelChoice, NetworkOptions, OptionNames, Selection, TableJob, TableJobOptions,
    TableJobOutcome, TableModel, TableNote, TableRefusal, TableReporter, TableTask, TestedModel,
};
use jobs::tabular::report::TestFigures;
use nn::TrainLength;
use std::path::{Path, PathBuf};
use tensor_cpu::CpuBackend;
use train::{Reporter, Silent};

/// `rows` rows of y = 3 a - 2 b + 1 beside a column `side` of three classes.
fn table(dir: &Path, rows: usize) -> PathBuf {
    let mut text = String::from("a,b,side,y\n");
    for i in 0..rows {
        let a = ((i * 37) % 101) as f32 / 50.0 - 1.0;
        let b = ((i * 59) % 103) as f32 / 51.0 - 1.0;
        let side = ["low", "mid", "high"][i % 3];
        text += &format!("{a},{b},{side},{}\n", 3.0 * a - 2.0 * b + 1.0);
    }
    let path = dir.join("table.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// The notes a job gives, by kind, and their lines in the library's words.
#[derive(Default)]
struct Notes {
    kinds: Vec<&'static str>,
    lines: Vec<String>,
    silent: Silent,
}

impl TableReporter for Notes {
    fn runs(&mut self) -> &mut dyn Reporter {
        &mut self.silent
    }

    fn note(&mut self, note: TableNote<'_>) {
        self.lines.extend(note.lines(OptionNames::default()));
        self.kinds.push(match note {
            TableNote::Read { .. } => "read",
            TableNote::Balanced { .. } => "balanced",
            TableNote::PiecewiseSkipped { .. } => "piecewise skipped",
            TableNote::SideBySide { .. } => "side by side",
            TableNote::Diverged { .. } => "diverged",
            TableNote::Stopped { .. } => "stopped",
            TableNote::OneSplit { .. } => "one split",
        });
    }
}

/// `model` on the table in `data`, briefly trained.
fn options(data: &Path, model: TableModel) -> TableJobOptions {
    let mut o = TableJobOptions::new(data, model);
    o.data.target = Some("y".into());
    o.training.length = Some(TrainLength::Epochs(5));
    o
}

fn network(choice: ModelChoice) -> TableModel {
    TableModel::Network(NetworkOptions {
        choice,
        hidden: nn::HiddenLayers(vec![8]),
        ..NetworkOptions::default()
    })
}

#[test]
fn auto_keeps_the_linear_model_of_a_linear_table_and_writes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let o = options(&table(dir.path(), 400), network(ModelChoice::Auto));
    let mut notes = Notes::default();
    let job = TableJob::prepare(&o, &mut notes).unwrap();
    assert_eq!((job.job(), notes.kinds.as_slice()), ("mlp", &["read"][..]));
    let run = dir.path().join("run");
    let out = job.train(&CpuBackend::new(), &run, &mut notes).unwrap();
    let Selection::Chosen(choice) = &out.selection else {
        panic!("auto compares on 64 validation rows")
    };
    assert_eq!(choice.kept, Kept::Linear, "{}", choice.reason);
    // 400 rows: 80 test, 320 training of which a fifth held out.
    let m = &out.metrics;
    assert_eq!(
        (m.train_rows, m.validation_rows, m.test_rows),
        (256, 64, 80)
    );
    assert!(out.metrics.coefficients.is_some());
    for name in ["schema.json", "test_predictions.csv", "metrics.json"] {
        assert!(out.files.contains(&run.join(name)), "{name}");
        assert!(run.join(name).is_file(), "{name}");
    }
    assert!(run.join("periodic").join("model.safetensors").is_file());
    // The piecewise network learns a factor per input, the periodic one not.
    assert!(saves_input_factors(&run.join("piecewise")));
    assert!(!saves_input_factors(&run.join("periodic")));
    let record = std::fs::read_to_string(run.join("config.json")).unwrap();
    assert!(
        record.contains("\"val_fraction\": null"),
        "as asked: {record}"
    );
}

#[test]
fn too_few_rows_keep_the_network_and_balanced_classes_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(dir.path(), 60);
    let cpu = CpuBackend::new();
    let mut notes = Notes::default();
    let o = options(&data, network(ModelChoice::Auto));
    let job = TableJob::prepare(&o, &mut notes).unwrap();
    let out = job
        .train(&cpu, &dir.path().join("small"), &mut notes)
        .unwrap();
    assert!(matches!(out.selection, Selection::TooFewRows));
    let mut o = options(&data, network(ModelChoice::Network));
    o.data.target = Some("side".into());
    o.data.balanced = true;
    let mut notes = Notes::default();
    let job = TableJob::prepare(&o, &mut notes).unwrap();
    assert_eq!(notes.kinds, ["read", "balanced"]);
    let out = job
        .train(&cpu, &dir.path().join("side"), &mut notes)
        .unwrap();
    assert!(matches!(out.selection, Selection::Alone));
    assert_eq!(out.labels.as_ref().map(Vec::len), Some(3));
    // The network alone is the plain network of before: no learned factors.
    assert!(saves_input_factors(&dir.path().join("small")));
    assert!(!saves_input_factors(&dir.path().join("side")));
}

/// Whether the checkpoint in `run` holds learned input factors.
fn saves_input_factors(run: &std::path::Path) -> bool {
    let bytes = std::fs::read(run.join("model.safetensors")).unwrap();
    let name = nn::model::mlp::INPUT_SCALE.as_bytes();
    bytes.windows(name.len()).any(|w| w == name)
}

/// The refusal of `o`, which must be a table job's.
fn refusal(o: &TableJobOptions) -> TableRefusal {
    match TableJob::prepare(o, &mut Notes::default()) {
        Err(Error::Table(r)) => {
            assert!(!r.to_string().contains("--"), "no flag named: {r}");
            r
        }
        Err(e) => panic!("not a table refusal: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn refusals_are_typed_and_name_no_flag() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(dir.path(), 60);
    let mut o = options(&data, TableModel::Linear);
    o.data.test_fraction = 1.0;
    assert_eq!(refusal(&o), TableRefusal::TestFraction(1.0));
    let mut o = options(&data, TableModel::Logistic);
    o.data.target = Some("side".into());
    assert!(matches!(
        refusal(&o),
        TableRefusal::NotBinary { classes: 3, .. }
    ));
    let mut o = options(&data, network(ModelChoice::Network));
    o.data.balanced = true;
    assert!(matches!(
        refusal(&o),
        TableRefusal::ClassWeightOfRegression { .. }
    ));
}

#[test]
fn resuming_for_another_task_than_the_recorded_one_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(
        &dir.path().join("absent.csv"),
        network(ModelChoice::Network),
    );
    let TableModel::Network(n) = &mut o.model else {
        unreachable!()
    };
    n.task = Some(TableTask::Classification);
    o.training.resume = true;
    assert_eq!(o.check_resumed_task(dir.path()), Ok(()), "no record");
    let record = r#"{"options": {"task": "regression"}}"#;
    std::fs::write(dir.path().join(train::record::FILE_NAME), record).unwrap();
    let e = o.check_resumed_task(dir.path()).unwrap_err();
    assert!(matches!(
        &e,
        TableRefusal::ResumedForOtherTask { trained, asked: "classification", .. }
            if trained == "regression"
    ));
    let text = e.to_string();
    assert!(
        text.contains("now classification") && !text.contains("--"),
        "{text}"
    );
    o.training.resume = false;
    assert_eq!(o.check_resumed_task(dir.path()), Ok(()), "a fresh start");
}

/// The report of `model` on `rows` rows of the linear table, trained briefly, with the
/// lines of the notes; `side`: the column of classes is read too.
fn reported(
    rows: usize,
    model: TableModel,
    side: bool,
) -> (TableJobOutcome<CpuBackend>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(&table(dir.path(), rows), model);
    if !side {
        o.data.overrides.ignore = vec!["side".into()];
    }
    let mut notes = Notes::default();
    let job = TableJob::prepare(&o, &mut notes).unwrap();
    let run = dir.path().join("run");
    let out = job.train(&CpuBackend::new(), &run, &mut notes).unwrap();
    (out, notes.lines)
}

/// The figures of the test table's row labelled `label`, checked against `figures` to the
/// four decimals printed.
fn assert_row(lines: &[String], label: &str, figures: &RegressionMetrics) {
    let prefix = format!("  {label:<22} ");
    let rows: Vec<&String> = lines.iter().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(rows.len(), 1, "one row labelled {label}: {lines:#?}");
    let printed: Vec<f64> = rows[0][prefix.len()..]
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    let expected = [figures.mse, figures.rmse, figures.mae, figures.r2];
    assert_eq!(printed.len(), 4, "{}", rows[0]);
    for (p, e) in printed.iter().zip(expected) {
        assert!((p - e).abs() <= 5e-5, "{label}: printed {p}, figure {e}");
    }
}

/// The regression figures of `out`.
fn regression_errors(out: &TableJobOutcome<CpuBackend>) -> &RegressionMetrics {
    match &out.metrics.test {
        Some(TestFigures::Regression(r)) => &r.errors,
        _ => panic!("a regression with test rows"),
    }
}

#[test]
fn the_report_names_the_linear_model_auto_kept_and_prints_its_figures() {
    let (out, notes) = reported(400, network(ModelChoice::Auto), true);
    assert_eq!(out.tested(), TestedModel::LinearModel);
    assert!(
        notes.iter().any(|l| l.starts_with("columns of ")),
        "{notes:#?}"
    );
    assert!(notes.iter().all(|l| !l.contains("--")), "{notes:#?}");
    let lines = out.lines();
    assert!(
        lines[0].starts_with("model kept: the linear model, refitted on every training row ("),
        "{lines:#?}"
    );
    assert_row(&lines, "linear model", regression_errors(&out));
    assert!(
        !lines.iter().any(|l| l.starts_with("  network ")),
        "{lines:#?}"
    );
    let c = out.metrics.coefficients.as_ref().unwrap();
    let intercept = format!("  {:<32} {:>12.6}", "(intercept)", c.intercept);
    assert!(lines.contains(&intercept), "{lines:#?}");
    let last = format!(
        "the network on plain inputs: {}; results in {}",
        out.summary,
        out.dir.display()
    );
    assert_eq!(lines.last(), Some(&last));
}

#[test]
fn the_report_names_a_kept_network_and_gradient_descent_as_such() {
    let (out, _) = reported(60, network(ModelChoice::Auto), false);
    assert!(matches!(out.selection, Selection::TooFewRows));
    assert_eq!(out.tested(), TestedModel::Network);
    let lines = out.lines();
    assert!(lines[0].contains("the network is kept"), "{lines:#?}");
    assert_row(&lines, "network", regression_errors(&out));
    assert!(out.metrics.coefficients.is_none());
    // The closed form is there to compare with: only gradient descent is.
    let Some(TestFigures::Regression(r)) = &out.metrics.test else {
        unreachable!()
    };
    assert!(matches!(r.reference, Reference::Fitted { .. }));
    let compared = |lines: &[String]| {
        let said =
            |l: &String| l.contains("closed-form test MSE") || l.contains("closed form fits");
        lines.iter().any(said)
    };
    assert!(!compared(&lines), "{lines:#?}");
    let (out, _) = reported(60, TableModel::Linear, false);
    assert_eq!(out.tested(), TestedModel::GradientDescent);
    let lines = out.lines();
    assert_row(&lines, "gradient descent", regression_errors(&out));
    assert!(compared(&lines), "{lines:#?}");
}

/// `rows` rows of y = sin(3 a) + b², which no linear model fits.
pub(crate) fn curved_table(dir: &Path, rows: usize) -> PathBuf {
    let mut text = String::from("a,b,y\n");
    for i in 0..rows {
        let a = ((i * 37) % 101) as f32 / 50.0 - 1.0;
        let b = ((i * 59) % 103) as f32 / 51.0 - 1.0;
        text += &format!("{a},{b},{}\n", (3.0 * a).sin() + b * b);
    }
    let path = dir.join("curved.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// `auto` on the curved table in a pool of `threads` threads: the notes' kinds, the test
/// predictions written and the reason of the choice.
fn auto_in_pool(data: &Path, run: &Path, threads: usize) -> (Vec<&'static str>, String, String) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let o = options(data, network(ModelChoice::Auto));
        let mut notes = Notes::default();
        let job = TableJob::prepare(&o, &mut notes).unwrap();
        let out = job.train(&CpuBackend::new(), run, &mut notes).unwrap();
        let Selection::Chosen(choice) = &out.selection else {
            panic!("auto compares on 80 validation rows")
        };
        let predictions = std::fs::read_to_string(run.join("test_predictions.csv")).unwrap();
        (notes.kinds, predictions, choice.reason.clone())
    })
}

#[test]
fn auto_trains_the_same_networks_side_by_side_as_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let data = curved_table(dir.path(), 500);
    let (in_turn, beside) = (dir.path().join("in_turn"), dir.path().join("beside"));
    let (kinds_in_turn, predicted_in_turn, reason_in_turn) = auto_in_pool(&data, &in_turn, 1);
    let (kinds_beside, predicted_beside, reason_beside) = auto_in_pool(&data, &beside, 2);
    assert_eq!(kinds_in_turn, ["read"]);
    assert_eq!(kinds_beside, ["read", "side by side"]);
    // The validation scores of every network, the means and the linear model, and each
    // test prediction, are the same to the last digit written.
    assert!(
        reason_in_turn.contains(", periodic ") && reason_in_turn.contains(", piecewise "),
        "{reason_in_turn}"
    );
    assert_eq!(reason_in_turn, reason_beside);
    assert_eq!(predicted_in_turn, predicted_beside);
    for run in [&in_turn, &beside] {
        for network in ["periodic", "piecewise"] {
            assert!(
                run.join(network).join("model.safetensors").is_file(),
                "{network}"
            );
        }
    }
}

/// `model` on the curved table, stopped by its stop flag before the first step: the notes'
/// kinds and lines.
fn stopped_at_once(model: TableModel) -> (Vec<&'static str>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(&curved_table(dir.path(), 500), model);
    o.training.stop = Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
        true,
    )));
    let mut notes = Notes::default();
    let job = TableJob::prepare(&o, &mut notes).unwrap();
    job.train(&CpuBackend::new(), &dir.path().join("run"), &mut notes)
        .unwrap();
    (notes.kinds, notes.lines)
}

#[test]
fn a_stopped_job_says_once_that_its_folder_can_be_resumed() {
    let (kinds, lines) = stopped_at_once(network(ModelChoice::Auto));
    assert_eq!(
        kinds.iter().filter(|k| **k == "stopped").count(),
        1,
        "{kinds:?}"
    );
    let said = lines.last().unwrap();
    assert!(
        said.ends_with("/run can be resumed"),
        "the job's folder, not a side network's: {said}"
    );
    let (kinds, lines) = stopped_at_once(network(ModelChoice::Network));
    assert_eq!(kinds, ["read", "stopped"]);
    assert!(
        lines.last().unwrap().contains("can be resumed"),
        "{lines:?}"
    );
}
