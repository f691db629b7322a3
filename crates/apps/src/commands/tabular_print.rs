//! What the tabular jobs print: the library's report text ([`TableNote::lines`],
//! [`TableJobOutcome::lines`]), its notes naming the command line's flags, on stdout, and
//! the runs' progress on stderr.

use crate::cli::TrainArgs;
use jobs::tabular::job::{OptionNames, TableJobOutcome, TableNote, TableReporter};
use tensor_core::Backend;
use train::Reporter;
use train::progress::StderrReporter;

/// The options as the notes name them: by their flags.
const FLAGS: OptionNames = OptionNames {
    task: "--task",
    balanced: "--class-weight balanced",
};

/// The command line's side of a table job: progress on stderr, notes on stdout.
pub struct Printer {
    runs: StderrReporter,
    /// `--quiet`: the notes on how the networks train are not printed.
    quiet: bool,
}

impl Printer {
    /// A printer for a table job, with the progress the flags ask.
    pub fn new(args: &TrainArgs) -> Self {
        Printer {
            runs: crate::session::reporter(args),
            quiet: args.quiet,
        }
    }
}

impl TableReporter for Printer {
    fn runs(&mut self) -> &mut dyn Reporter {
        &mut self.runs
    }

    fn note(&mut self, note: TableNote<'_>) {
        match note {
            TableNote::Stopped { dir, step } => crate::session::note_stopped(step, dir),
            // Which networks train at once is progress, which --quiet hides.
            TableNote::SideBySide { .. } if self.quiet => {}
            note => print_lines(&note.lines(FLAGS)),
        }
    }
}

/// The library's error with the option that changes the task named: the library says
/// "set the task to regression", the command line `--task regression`.
pub fn task_advice(e: jobs::Error) -> anyhow::Error {
    let m = e.to_string();
    match m.contains("set the task to ") {
        true => anyhow::anyhow!("{}", m.replace("set the task to ", "--task ")),
        false => e.into(),
    }
}

/// Prints the report of a finished job ([`TableJobOutcome::lines`]).
pub fn print_outcome<B: Backend>(o: &TableJobOutcome<B>) {
    print_lines(&o.lines());
}

/// Prints `lines` on stdout.
fn print_lines(lines: &[String]) {
    for line in lines {
        println!("{line}");
    }
}
