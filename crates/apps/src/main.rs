//! `iron-learn`: train neural networks on the CPU or an NVIDIA GPU from the command line.

mod checkpoint;
mod cli;
mod defaults;
mod device;
mod expr;
mod hidden;
mod jobs;
mod monitor;
mod outcome;
mod progress;
mod report;
mod session;

use clap::{CommandFactory, FromArgMatches};
use cli::{BenchCommand, Cli, Command, ImageCommand};
use jobs::tabular::{Model, Tabular};
use std::process::ExitCode;

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Xor(a) => {
            let (d, t) = (a.train.device, a.train.tf32);
            device::dispatch(d, t, jobs::xor::Xor(a))
        }
        Command::Linreg(a) => {
            let (d, t) = (a.train.device, a.train.tf32);
            device::dispatch(
                d,
                t,
                Tabular {
                    data: a,
                    model: Model::Linear,
                },
            )
        }
        Command::Logreg(a) => {
            let (d, t) = (a.train.device, a.train.tf32);
            device::dispatch(
                d,
                t,
                Tabular {
                    data: a,
                    model: Model::Logistic,
                },
            )
        }
        Command::Mlp(a) => {
            let (d, t) = (a.data.train.device, a.data.train.tf32);
            device::dispatch(d, t, Tabular::mlp(a))
        }
        Command::Approx(a) => {
            let (d, t) = (a.train.device, a.train.tf32);
            device::dispatch(d, t, jobs::approx::Approx(a))
        }
        Command::Image(ImageCommand::Fit(a)) => {
            let (d, t) = (a.train.device, a.train.tf32);
            device::dispatch(d, t, jobs::image_fit::ImageFit(a))
        }
        Command::Image(ImageCommand::Render(a)) => {
            device::dispatch(a.device, false, jobs::image_render::ImageRender(a))
        }
        Command::Predict(a) => device::dispatch(a.device, false, jobs::predict::Predict(a)),
        Command::Export(a) => jobs::export::export(&a),
        Command::Image(ImageCommand::Encode(a)) => jobs::image_codec::encode(&a),
        Command::Image(ImageCommand::Decode(a)) => jobs::image_codec::decode(&a),
        Command::Bench(BenchCommand::Train(a)) => {
            let (d, t) = (a.device, a.tf32);
            device::dispatch(d, t, jobs::bench::BenchTrain(a))
        }
    }
}

/// Restores the default SIGPIPE action, so that `iron-learn ... | head` ends quietly
/// instead of failing on a closed pipe.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to its default at start-up, before any thread
    // is spawned, has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let matches = defaults::describe(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the error and its causes, never a backtrace.
            let mut line = format!("error: {e}");
            for cause in e.chain().skip(1) {
                let text = cause.to_string();
                if !line.contains(&text) {
                    line.push_str(": ");
                    line.push_str(&text);
                }
            }
            eprintln!("{}", line.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
