//! What a run tells its user while it trains: one trait, [`Reporter`], that a program
//! implements to show progress its own way (a terminal bar, log lines, a notebook widget).
//! The library prints nothing itself.

/// The latest figures of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Updates applied so far.
    pub step: u64,
    /// Latest training loss (in the units the run reports).
    pub loss: Option<f64>,
    /// Latest validation loss.
    pub val: Option<f64>,
    /// Learning rate of the last update.
    pub lr: f64,
}

/// Receives what a run has to say. Every method does nothing by default.
pub trait Reporter {
    /// A run starts (or resumes at `first_step`) towards `total_steps`; `line` describes it
    /// (`training xor: 1000 steps (full batch), lr 0.05 ...`).
    fn start(&mut self, line: &str, total_steps: u64, first_step: u64) {
        let _ = (line, total_steps, first_step);
    }

    /// A note the user should see: where a run resumes, a setting it changes, a file it
    /// ignores.
    fn note(&mut self, line: &str) {
        let _ = line;
    }

    /// New figures, at every logged step and evaluation.
    fn progress(&mut self, reading: &Reading) {
        let _ = reading;
    }

    /// The run ended; `last` is its last reading.
    fn finish(&mut self, last: Option<&Reading>) {
        let _ = last;
    }

    /// A line of progress outside the training steps (what a job is about to fit, how far a
    /// drawing is): shown where progress is, hidden where it is not (unlike a note).
    fn status(&mut self, line: &str) {
        let _ = line;
    }
}

/// A reporter lent for a while (to a [`Run`](crate::Run) that its caller outlives).
impl<R: Reporter + ?Sized> Reporter for &mut R {
    fn start(&mut self, line: &str, total_steps: u64, first_step: u64) {
        (**self).start(line, total_steps, first_step);
    }

    fn note(&mut self, line: &str) {
        (**self).note(line);
    }

    fn progress(&mut self, reading: &Reading) {
        (**self).progress(reading);
    }

    fn finish(&mut self, last: Option<&Reading>) {
        (**self).finish(last);
    }

    fn status(&mut self, line: &str) {
        (**self).status(line);
    }
}

/// A reporter that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Reporter for Silent {}

/// A reporter that prints notes and a line per reading to stderr (progress every
/// `every` steps); nothing on a process but rank 0 of a run over several
/// ([`crate::ranks`]).
#[derive(Debug, Clone, Copy)]
pub struct Lines {
    /// Steps between progress lines (0: none).
    pub every: u64,
}

/// Prints `line` on stderr from rank 0 alone.
fn line_from_writer(line: &str) {
    if crate::ranks::world().is_writer() {
        eprintln!("{line}");
    }
}

impl Reporter for Lines {
    fn start(&mut self, line: &str, _total_steps: u64, _first_step: u64) {
        line_from_writer(line);
    }

    fn note(&mut self, line: &str) {
        line_from_writer(line);
    }

    fn status(&mut self, line: &str) {
        line_from_writer(line);
    }

    fn progress(&mut self, r: &Reading) {
        if self.every > 0 && r.step.is_multiple_of(self.every) && crate::ranks::world().is_writer()
        {
            let loss = r.loss.map_or("-".into(), |l| format!("{l:.4e}"));
            let val = r.val.map_or(String::new(), |v| format!("  val {v:.4e}"));
            eprintln!("step {}  loss {loss}{val}  lr {:.2e}", r.step, r.lr);
        }
    }
}

/// A reporter that raises a stop flag at the first reading from a step on, and passes every
/// call on to `inner` ([`Run::stop_at_step`](crate::Run::stop_at_step)).
pub(crate) struct StopAt<'a> {
    pub inner: Box<dyn Reporter + 'a>,
    pub step: u64,
    pub flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Reporter for StopAt<'_> {
    fn start(&mut self, line: &str, total_steps: u64, first_step: u64) {
        self.inner.start(line, total_steps, first_step);
    }

    fn note(&mut self, line: &str) {
        self.inner.note(line);
    }

    fn progress(&mut self, reading: &Reading) {
        if reading.step >= self.step {
            self.flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        self.inner.progress(reading);
    }

    fn finish(&mut self, last: Option<&Reading>) {
        self.inner.finish(last);
    }

    fn status(&mut self, line: &str) {
        self.inner.status(line);
    }
}
