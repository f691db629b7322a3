//! The command line's side of a training run: the training flags converted into the
//! library's choices, and the line a run stopped by a signal ends with. The run itself
//! (resume, checkpoints, early stopping, divergence, record, loss chart) is the `train`
//! crate's.

use crate::cli::{BatchArg, ScheduleArg, TrainArgs};
use nn::TrainLength;
use train::defaults::Defaults;

/// The library's schedule for the command line's.
pub fn schedule(arg: ScheduleArg) -> train::Schedule {
    match arg {
        ScheduleArg::Constant => train::Schedule::Constant,
        ScheduleArg::Step => train::Schedule::Step,
        ScheduleArg::Cosine => train::Schedule::Cosine,
    }
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
        batch: t.batch.map(|b| match b {
            BatchArg::Full => train::BatchChoice::Full,
            BatchArg::Size(n) => train::BatchChoice::Rows(n),
        }),
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

/// For a run stopped by a signal: records the step it stopped at (for `metrics.json`),
/// says how to continue it, and returns true.
pub fn note_if_stopped(reason: nn::StopReason, steps: u64, dir: &std::path::Path) -> bool {
    let stopped = reason == nn::StopReason::Interrupted;
    if stopped {
        crate::signals::note_stopped_at(steps);
        eprintln!(
            "stopped at step {steps}; continue with --resume --out {}",
            dir.display()
        );
    }
    stopped
}
