//! `iron-learn`: train neural networks on the CPU or an NVIDIA GPU from the command line.

mod advice;
#[allow(rustdoc::invalid_html_tags)] // its doc comments are the `--help` text (`<job>`)
mod cli;
mod cli_model;
mod cli_parse;
mod cli_values;
mod commands;
mod defaults;
mod device;
mod ranks;
mod report;
mod session;
mod signals;
mod stdout_errors;

use cli::{BenchCommand, Cli, Command, ImageCommand, RegressionArgs};
use commands::tabular::{Tabular, network};
use jobs::tabular::job::TableModel;
use std::io::Write;
use std::process::ExitCode;

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Xor(a) => device::dispatch(a.train.device, a.train.tf32, commands::xor::Xor(a)),
        Command::Linreg(a) => table(a, TableModel::Linear),
        Command::Logreg(a) => table(a, TableModel::Logistic),
        Command::Mlp(a) => {
            let model = network(&a)?;
            table(a.data, model)
        }
        Command::Approx(a) => {
            device::dispatch(a.train.device, a.train.tf32, commands::approx::Approx(a))
        }
        Command::Image(ImageCommand::Fit(a)) => device::dispatch(
            a.train.device,
            a.train.tf32,
            commands::image_fit::ImageFit(a),
        ),
        Command::Image(ImageCommand::Render(a)) => {
            device::dispatch(a.device, false, commands::image_render::ImageRender(a))
        }
        Command::Predict(a) => device::dispatch(a.device, false, commands::predict::Predict(a)),
        Command::Export(a) => commands::export::export(&a),
        Command::Image(ImageCommand::Encode(a)) => commands::image_codec::encode(&a),
        Command::Image(ImageCommand::Decode(a)) => commands::image_codec::decode(&a),
        Command::Bench(BenchCommand::Train(a)) => {
            device::dispatch(a.device, a.tf32, commands::bench::BenchTrain(a))
        }
    }
}

/// A table job of `model` on the data the flags name.
fn table(data: RegressionArgs, model: TableModel) -> anyhow::Result<()> {
    device::dispatch(data.train.device, data.train.tf32, Tabular { data, model })
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
    stdout_errors::install_hook();
    let cli = match cli_parse::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let Ok(world) = ranks::join() else {
        return ExitCode::FAILURE;
    };
    signals::set_role(world);
    // The command runs on a worker of rayon's pool (tensor_cpu::on_pool_worker), unless
    // the processes' library may be called from the first thread only.
    let on_worker = train::ranks::world().calls_from_any_thread();
    let work = || match on_worker {
        true => tensor_cpu::on_pool_worker(|| run(cli)),
        false => run(cli),
    };
    let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => match stdout_errors::failure(&*payload) {
            Some((stream, reason)) => Err(anyhow::anyhow!("cannot write to {stream}: {reason}")),
            None => std::panic::resume_unwind(payload),
        },
    };
    report::run_dir::release_all(result.is_ok());
    let succeeded = result.is_ok();
    let code = match result {
        // A run stopped by Ctrl-C or SIGTERM saved its work; its status says it was stopped.
        Ok(()) => match signals::received() {
            Some(i) => ExitCode::from(i.exit_code()),
            None => ExitCode::SUCCESS,
        },
        Err(e) => {
            // One line: the error and its causes, never a backtrace.
            let mut line = format!("error: {}", device::one_line(e.as_ref()));
            if let Some(advice) = advice::flag_advice(&e) {
                line.push_str(&advice);
            }
            ranks::before_error();
            // Not eprintln!: when stderr itself cannot be written, exit quietly.
            let line = ranks::prefixed(cli_parse::shorten_quoted(&line.replace('\n', " ")));
            let _ = writeln!(std::io::stderr(), "{line}");
            ExitCode::FAILURE
        }
    };
    // After the error line: a failure here stops the other processes too.
    ranks::end(succeeded);
    code
}
