//! The command line's side of a training run: the training flags converted into the
//! library's choices, and the line a run stopped by a signal ends with. The run itself
//! (resume, checkpoints, early stopping, divergence, record, loss chart) is the `train`
//! crate's.

use crate::cli::{ScheduleArg, TrainArgs};
use nn::TrainLength;
use std::path::Path;
use train::Defaults;

/// The library's schedule for the command line's.
pub fn schedule(arg: ScheduleArg) -> train::Schedule {
    match arg {
        ScheduleArg::Constant => train::Schedule::Constant,
        ScheduleArg::Step => train::Schedule::Step,
        ScheduleArg::Cosine => train::Schedule::Cosine,
    }
}

/// Progress on stderr as the flags ask: none, a bar, or a line every `--log-every` steps.
pub fn reporter(t: &TrainArgs) -> train::progress::StderrReporter {
    train::progress::StderrReporter::new(t.quiet, t.log_every)
}

/// The library's training choices for the common training flags.
pub fn choices(t: &TrainArgs) -> train::TrainChoices {
    train::TrainChoices {
        lr: t.lr,
        length: match (t.epochs, t.steps) {
            (Some(e), _) => Some(TrainLength::Epochs(e as u64)),
            (_, Some(s)) => Some(TrainLength::Steps(s as u64)),
            _ => None,
        },
        batch: t.batch,
        schedule: t.schedule.map(schedule),
        seed: t.seed,
        checkpoint_every: t.checkpoint_every as u64,
        log_every: t.log_every,
        resume: t.resume,
        force: t.force,
        stop: None,
    }
}

/// The run's settings: the options given, the job's defaults for the others.
pub fn settings(args: &TrainArgs, defaults: &Defaults) -> train::Settings {
    choices(args).settings(defaults)
}

/// For a run stopped by a signal: records the step it stopped at, says how to continue it,
/// and writes its `metrics.json` again with the signal's name and step.
pub fn record_if_stopped(
    reason: nn::StopReason,
    steps: u64,
    dir: &Path,
    metrics: &impl serde::Serialize,
) -> anyhow::Result<()> {
    if reason != nn::StopReason::Interrupted {
        return Ok(());
    }
    note_stopped(steps, dir);
    crate::report::run_dir::write_if_stopped(dir, metrics)
}

/// Records the step a signal stopped a run at (for `metrics.json`) and says how to
/// continue it.
pub fn note_stopped(step: u64, dir: &Path) {
    crate::signals::note_stopped_at(step);
    if !train::ranks::world().is_writer() {
        // Another process's folder is its scratch copy: rank 0 says where the run is.
        return;
    }
    eprintln!(
        "stopped at step {step}; continue with --resume --out {}",
        dir.display()
    );
}
