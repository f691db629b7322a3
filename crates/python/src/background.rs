//! A library job run on a worker thread while the calling Python thread waits with the GIL
//! released: other Python threads run meanwhile, Ctrl-C stops the job within a step (it
//! raises the job's stop flag, waits for the job to stop and checkpoint, then raises
//! `KeyboardInterrupt`), and the job's progress lines are written to Python's `sys.stderr`
//! (so that a notebook shows them).

use crate::failure::{Failure, Result};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use train::progress::LineSink;

/// How often the waiting thread looks for Ctrl-C and for lines to print.
const POLL: Duration = Duration::from_millis(50);

/// What a job is given: where its lines go, and the flag that stops it.
pub struct JobContext {
    /// Its progress and notes (nothing is printed unless the caller asked for it).
    pub sink: LineSink,
    /// Raised by Ctrl-C: the job stops at its next step.
    pub stop: Arc<AtomicBool>,
    /// Whether the caller asked for progress.
    pub verbose: bool,
}

/// What the worker sends to the waiting thread.
enum Message<T> {
    Line(String),
    Done(Result<T>),
}

/// How the caller wants a job run: progress shown or not, and the threads of its matrix
/// work (`None`: every core).
#[derive(Debug, Clone, Default)]
pub struct Running {
    /// Print progress lines.
    pub verbose: bool,
    /// Threads for the CPU's work.
    pub threads: Option<usize>,
    /// Texts replaced in the lines printed, each by its second: the temporary files a job
    /// runs in say nothing to the user.
    pub rename: Vec<(String, String)>,
}

/// Runs `job` on a worker thread (in a pool of `running.threads` threads) with the GIL
/// released; returns its result, or raises `KeyboardInterrupt` once an interrupted job
/// has stopped.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    running: Running,
    job: impl FnOnce(JobContext) -> Result<T> + Send,
) -> PyResult<T> {
    let pool = thread_pool(running.threads).map_err(Failure::into_py)?;
    let renames = running.rename.clone();
    let (tx, rx) = channel::<Message<T>>();
    let stop = Arc::new(AtomicBool::new(false));
    let context = JobContext {
        sink: sink(tx.clone(), running.verbose, running.rename),
        stop: stop.clone(),
        verbose: running.verbose,
    };
    let rx = Mutex::new(rx);
    std::thread::scope(|s| {
        s.spawn(move || {
            let work = || match &pool {
                Some(pool) => pool.install(|| job(context)),
                None => tensor_cpu::on_pool_worker(|| job(context)),
            };
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .unwrap_or_else(|panic| Err(Failure::runtime(panic_text(&panic))));
            let _ = tx.send(Message::Done(out));
        });
        wait(py, &rx, &stop, &renames)
    })
}

/// Waits for the worker's result, printing its lines and watching for Ctrl-C; a failure's
/// message has the texts of `renames` replaced, as the lines have.
fn wait<T: Send + 'static>(
    py: Python<'_>,
    rx: &Mutex<Receiver<Message<T>>>,
    stop: &AtomicBool,
    renames: &[(String, String)],
) -> PyResult<T> {
    let mut interrupt: Option<PyErr> = None;
    loop {
        let message = py.detach(|| match rx.lock() {
            Ok(rx) => rx.recv_timeout(POLL),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        });
        match message {
            Ok(Message::Line(line)) => print(py, &line),
            Ok(Message::Done(out)) => {
                return match interrupt {
                    Some(e) => Err(e),
                    None => out.map_err(|f| f.renamed(renames).into_py()),
                };
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Failure::runtime("the job ended without a result").into_py());
            }
        }
        if interrupt.is_none()
            && let Err(e) = py.check_signals()
        {
            stop.store(true, Ordering::SeqCst);
            interrupt = Some(e);
        }
    }
}

/// Writes a line to Python's `sys.stderr` (errors in writing are dropped: progress is
/// never worth failing a fit for).
fn print(py: Python<'_>, line: &str) {
    let write = || -> PyResult<()> {
        let stderr = py.import("sys")?.getattr("stderr")?;
        stderr.call_method1("write", (format!("{line}\n"),))?;
        stderr.call_method0("flush")?;
        Ok(())
    };
    let _ = write();
}

/// Where the job's lines go: to the waiting thread when `verbose` (with the texts of
/// `rename` replaced), else nowhere.
fn sink<T: Send + 'static>(
    tx: Sender<Message<T>>,
    verbose: bool,
    rename: Vec<(String, String)>,
) -> LineSink {
    let tx = Mutex::new(tx);
    LineSink::To(Arc::new(move |line: &str| {
        if verbose && let Ok(tx) = tx.lock() {
            let line = rename
                .iter()
                .fold(line.to_string(), |l, (from, to)| l.replace(from, to));
            let _ = tx.send(Message::Line(line));
        }
    }))
}

/// A pool of `threads` threads (`None`: no pool of its own; a pool of rayon's default
/// thread count, as many as cores, [`tensor_cpu::on_pool_worker`]).
fn thread_pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>> {
    let Some(n) = threads else {
        return Ok(None);
    };
    if n == 0 {
        return Err(Failure::value(
            "n_jobs must be a positive number of threads or -1",
        ));
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build();
    pool.map(Some)
        .map_err(|e| Failure::runtime(format!("cannot start {n} threads: {e}")))
}

/// The message of a panic, for the `RuntimeError` it becomes.
fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    format!("internal error: {what}")
}
