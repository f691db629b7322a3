//! `auto` stopped and resumed: a stopped job compares nothing and leaves every run's
//! checkpoint; resumed, each run continues from its own and the comparison is made; a
//! finished job is not resumed.

use crate::table_job::curved_table;
use jobs::tabular::job::{
    ModelChoice, NetworkOptions, Quiet, Selection, TableJob, TableJobOptions, TableJobOutcome,
    TableModel, TableRefusal,
};
use nn::TrainLength;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tensor_cpu::CpuBackend;
use train::Silent;

/// `auto` on `data` for 20 epochs into `run`, resumed or not, with the stop flag raised
/// from the start or not.
fn auto_job(data: &Path, run: &Path, resume: bool, stop: bool) -> TableJobOutcome<CpuBackend> {
    let mut o = TableJobOptions::new(
        data,
        TableModel::Network(NetworkOptions {
            choice: ModelChoice::Auto,
            hidden: nn::HiddenLayers(vec![8]),
            ..NetworkOptions::default()
        }),
    );
    o.data.target = Some("y".into());
    o.training.length = Some(TrainLength::Epochs(20));
    o.training.resume = resume;
    let mut quiet = Quiet(Silent);
    let job = TableJob::prepare(&o, &mut quiet).unwrap();
    let job = job.stop_flag(Arc::new(AtomicBool::new(stop)));
    job.train(&CpuBackend::new(), run, &mut quiet).unwrap()
}

/// The training steps each run's record says it has taken, from its `history.csv`.
fn last_step(run: &Path) -> u64 {
    let history = std::fs::read_to_string(run.join("history.csv")).unwrap();
    let last = history.lines().last().unwrap();
    last.split(',').next().unwrap().parse().unwrap()
}

#[test]
fn a_stopped_auto_job_resumes_every_run_then_compares() {
    let dir = tempfile::tempdir().unwrap();
    let data = curved_table(dir.path(), 500);
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    // Stopped at once: each run takes one step and keeps its checkpoint; nothing compared.
    let stopped = auto_job(&data, &run, false, true);
    assert!(matches!(stopped.selection, Selection::Stopped));
    assert_eq!(stopped.stop_reason, nn::StopReason::Interrupted);
    assert!(stopped.lines()[0].contains("stopped before its comparison"));
    for sub in ["periodic", "piecewise"] {
        assert!(run.join(sub).join("model.safetensors").is_file(), "{sub}");
        assert_eq!(last_step(&run.join(sub)), 1, "{sub}");
    }
    let metrics = std::fs::read_to_string(run.join("metrics.json")).unwrap();
    assert!(!metrics.contains("model_kept"), "{metrics}");
    // Resumed: every run trains on from its checkpoint, then the comparison is made.
    let resumed = auto_job(&data, &run, true, false);
    let Selection::Chosen(choice) = &resumed.selection else {
        panic!("the resumed job compares")
    };
    assert!(choice.reason.contains(", piecewise "), "{}", choice.reason);
    assert!(
        resumed.summary.contains("after resuming at step 1"),
        "{}",
        resumed.summary
    );
    for sub in ["periodic", "piecewise"] {
        assert!(last_step(&run.join(sub)) > 1, "{sub}");
        let record = std::fs::read_to_string(run.join(sub).join("config.json")).unwrap();
        let record: serde_json::Value = serde_json::from_str(&record).unwrap();
        assert_eq!(record["resumes"].as_array().map(Vec::len), Some(1), "{sub}");
    }
    // Finished: not resumed again.
    let o = {
        let mut o = TableJobOptions::new(&data, TableModel::Network(NetworkOptions::default()));
        o.training.resume = true;
        o
    };
    assert_eq!(
        o.check_auto_resumable(&run),
        Err(TableRefusal::AutoFinished { dir: run.clone() })
    );
    // A folder without a run of the job: nothing to resume.
    let bare = dir.path().join("bare");
    std::fs::create_dir(&bare).unwrap();
    assert_eq!(
        o.check_auto_resumable(&bare),
        Err(TableRefusal::NothingToResume { dir: bare.clone() })
    );
    std::fs::write(bare.join("config.json"), "{}").unwrap();
    assert_eq!(o.check_auto_resumable(&bare), Ok(()), "no figures yet");
}
