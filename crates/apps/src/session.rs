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
    let args: Vec<String> = std::env::args().collect();
    eprintln!(
        "stopped at step {step}; continue with: {}",
        resume_command(&args, dir)
    );
}

/// The command that continues a run: `args` (this process's, the program's name first)
/// without `--force`, `--resume` and the output folder, then `--resume --out DIR`, each
/// word quoted for a POSIX shell where it needs it.
fn resume_command(args: &[String], dir: &Path) -> String {
    let program = args
        .first()
        .and_then(|p| Path::new(p).file_name())
        .map_or("iron-learn".into(), |n| n.to_string_lossy().into_owned());
    let mut words = vec![program];
    let mut rest = args.iter().skip(1);
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--force" | "--resume" => {}
            "-o" | "--out" => {
                rest.next();
            }
            _ if a.starts_with("--out=") || (a.starts_with("-o") && !a.starts_with("--")) => {}
            _ => words.push(a.clone()),
        }
    }
    words.extend(["--resume".into(), "--out".into()]);
    words.push(dir.display().to_string());
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `word` as a POSIX shell reads it back: as it is when it holds only safe characters,
/// else in single quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn the_resume_command_keeps_every_option_but_the_folder_and_force() {
        let dir = Path::new("runs/a b");
        let args =
            words("/usr/bin/iron-learn image fit photo.png --params-per-pixel 1 -o x --force");
        assert_eq!(
            resume_command(&args, dir),
            "iron-learn image fit photo.png --params-per-pixel 1 --resume --out 'runs/a b'"
        );
        let args = words("iron-learn mlp --data t.csv --out=old -oold2 --resume --steps 5");
        assert_eq!(
            resume_command(&args, Path::new("r")),
            "iron-learn mlp --data t.csv --steps 5 --resume --out r"
        );
        let args = vec!["iron-learn".into(), "approx".into(), "sin(x) + x's".into()];
        assert_eq!(
            resume_command(&args, Path::new("r")),
            "iron-learn approx 'sin(x) + x'\\''s' --resume --out r"
        );
    }
}
