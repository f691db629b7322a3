//! Progress of a training run on stderr: a bar on a terminal; elsewhere (CI, nohup, a
//! notebook) a plain line every few seconds, or every `--log-every` steps.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

/// Seconds between plain progress lines when no `--log-every` is given.
pub const LINE_SECONDS: f64 = 5.0;

pub use crate::Reading;

/// Where plain lines of progress and notes go: stderr, or a function of the caller's (a
/// channel to another thread, a notebook's output).
#[derive(Clone, Default)]
pub enum LineSink {
    /// Standard error, where a bar is drawn on a terminal.
    #[default]
    Stderr,
    /// The caller's function, given each line without its newline; never a bar.
    To(Arc<dyn Fn(&str) + Send + Sync>),
}

impl LineSink {
    /// Writes one line.
    pub fn write(&self, line: &str) {
        match self {
            LineSink::Stderr => eprintln!("{line}"),
            LineSink::To(f) => f(line),
        }
    }

    /// Whether a bar can be drawn: stderr on a terminal.
    fn bar(&self) -> bool {
        matches!(self, LineSink::Stderr) && std::io::stderr().is_terminal()
    }
}

/// A run's progress and notes on stderr (or another [`LineSink`]), the
/// [`Reporter`](crate::Reporter) of the command line: `quiet` hides the progress and the
/// opening line, not the notes; `log_every` asks for a plain line every that many steps
/// where there is no terminal. On a process but rank 0 of a run over several
/// ([`crate::ranks`]) it prints nothing: errors alone, which are not its to print.
pub struct StderrReporter {
    quiet: bool,
    /// A process but rank 0: nothing printed.
    silent: bool,
    log_every: Option<u64>,
    sink: LineSink,
    progress: Option<Progress>,
}

impl StderrReporter {
    /// Progress on stderr as `--quiet` and `--log-every` ask.
    pub fn new(quiet: bool, log_every: Option<u64>) -> Self {
        Self::with_sink(quiet, log_every, LineSink::Stderr)
    }

    /// Progress as plain lines into `sink` (a bar where it is stderr on a terminal).
    pub fn with_sink(quiet: bool, log_every: Option<u64>, sink: LineSink) -> Self {
        StderrReporter {
            quiet,
            silent: !crate::ranks::world().is_writer(),
            log_every,
            sink,
            progress: None,
        }
    }
}

impl crate::Reporter for StderrReporter {
    fn start(&mut self, line: &str, total_steps: u64, first_step: u64) {
        if !self.quiet && !self.silent && first_step < total_steps {
            self.sink.write(line);
        }
        let (quiet, every) = (self.quiet, self.log_every);
        let progress = Progress::to_sink(quiet, every, (total_steps, first_step), &self.sink);
        self.progress = Some(progress);
    }

    fn note(&mut self, line: &str) {
        if !self.silent {
            self.sink.write(line);
        }
    }

    fn status(&mut self, line: &str) {
        if !self.quiet && !self.silent {
            self.sink.write(line);
        }
    }

    fn progress(&mut self, reading: &Reading) {
        if let Some(p) = &mut self.progress {
            p.update(reading);
        }
    }

    fn finish(&mut self, last: Option<&Reading>) {
        if let Some(p) = &mut self.progress {
            p.finish(last);
        }
    }
}

enum Mode {
    Off,
    Bar(ProgressBar),
    Lines(LineSink),
}

/// Where progress goes and when.
pub struct Progress {
    mode: Mode,
    total: u64,
    first: u64,
    started: Instant,
    every_steps: Option<u64>,
    last_line: Instant,
    last_printed: Option<u64>,
}

impl Progress {
    /// Progress from step `first` to `total`: nothing with `quiet` or on a process but rank 0
    /// ([`crate::ranks`]), plain lines when
    /// `log_every` is given or stderr is not a terminal, a bar otherwise. A run already at or
    /// past `total` (a finished run resumed) has nothing to show: no "1000/400 (250%)".
    pub fn new(quiet: bool, log_every: Option<u64>, total: u64, first: u64) -> Self {
        Self::to_sink(quiet, log_every, (total, first), &LineSink::Stderr)
    }

    /// [`new`](Self::new) with its lines written into `sink` (`(total, first)`: the steps).
    pub fn to_sink(
        quiet: bool,
        log_every: Option<u64>,
        steps: (u64, u64),
        sink: &LineSink,
    ) -> Self {
        let (total, first) = steps;
        let mode = if quiet || first >= total || !crate::ranks::world().is_writer() {
            Mode::Off
        } else if log_every.is_some() || !sink.bar() {
            Mode::Lines(sink.clone())
        } else {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{bar:25.cyan/blue} {pos}/{len} steps [{elapsed} < {eta}] {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_position(first);
            bar.reset_eta();
            Mode::Bar(bar)
        };
        let now = Instant::now();
        Progress {
            mode,
            total,
            first,
            started: now,
            every_steps: log_every.filter(|&n| n > 0),
            last_line: now,
            last_printed: None,
        }
    }

    /// Steps per second of this invocation so far.
    fn rate(&self, step: u64) -> f64 {
        let secs = self.started.elapsed().as_secs_f64();
        if secs > 0.0 {
            step.saturating_sub(self.first) as f64 / secs
        } else {
            0.0
        }
    }

    /// Shows a new reading (a bar update, or a line when one is due).
    pub fn update(&mut self, r: &Reading) {
        match &self.mode {
            Mode::Off => {}
            Mode::Bar(bar) => {
                bar.set_position(r.step);
                bar.set_message(figures(r, self.rate(r.step)));
            }
            Mode::Lines(_) => {
                let due = match self.every_steps {
                    Some(n) => r.step.is_multiple_of(n),
                    None => self.last_line.elapsed().as_secs_f64() >= LINE_SECONDS,
                };
                if due {
                    self.print_line(r, true);
                }
            }
        }
    }

    fn print_line(&mut self, r: &Reading, eta: bool) {
        if self.last_printed == Some(r.step) {
            return;
        }
        let rate = self.rate(r.step);
        let width = self.total.to_string().len();
        let mut line = format!(
            "step {:>width$}/{} ({:>3.0}%)  {}",
            r.step,
            self.total,
            100.0 * r.step as f64 / self.total.max(1) as f64,
            figures(r, rate)
        );
        if eta && r.step < self.total && rate > 0.0 {
            line.push_str(&format!(
                "  ETA {}",
                duration((self.total - r.step) as f64 / rate)
            ));
        }
        if let Mode::Lines(sink) = &self.mode {
            sink.write(&line);
        }
        self.last_line = Instant::now();
        self.last_printed = Some(r.step);
    }

    /// Ends the display: the bar stays on screen followed by a newline; plain output ends
    /// with a line for the last step.
    pub fn finish(&mut self, last: Option<&Reading>) {
        match &self.mode {
            Mode::Off => {}
            Mode::Bar(bar) => {
                if let Some(r) = last {
                    bar.set_position(r.step);
                    bar.set_message(figures(r, self.rate(r.step)));
                }
                bar.abandon();
                // The bar leaves the cursor at the end of its line: end that line, so that
                // the summary starts on its own.
                eprintln!();
                self.mode = Mode::Off;
            }
            Mode::Lines(_) => {
                if let Some(r) = last {
                    self.print_line(r, false);
                }
            }
        }
    }
}

/// `loss 1.234e-2  val 1.500e-2  lr 1.00e-3  85.2 steps/s`.
fn figures(r: &Reading, rate: f64) -> String {
    let mut s = String::new();
    if let Some(l) = r.loss {
        s.push_str(&format!("loss {l:.3e}  "));
    }
    if let Some(v) = r.val {
        s.push_str(&format!("val {v:.3e}  "));
    }
    s.push_str(&format!("lr {:.2e}  {} steps/s", r.lr, rate_text(rate)));
    s
}

fn rate_text(rate: f64) -> String {
    if rate >= 100.0 {
        format!("{rate:.0}")
    } else if rate >= 10.0 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.2}")
    }
}

/// `42s`, `3m05s`, `1h02m`.
pub fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(0.4), "0s");
        assert_eq!(duration(42.0), "42s");
        assert_eq!(duration(185.0), "3m05s");
        assert_eq!(duration(3720.0), "1h02m");
    }

    #[test]
    fn figures_name_each_value() {
        let r = Reading {
            step: 3,
            loss: Some(0.5),
            val: None,
            lr: 1e-3,
        };
        assert_eq!(
            figures(&r, 12.34),
            "loss 5.000e-1  lr 1.00e-3  12.3 steps/s"
        );
    }
}
