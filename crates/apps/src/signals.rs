//! Ctrl-C (SIGINT) and SIGTERM: the first one makes a run stop after its current step, save
//! its checkpoint and outputs, and exit with 128 + the signal number (130, 143); a second one
//! exits at once.
//!
//! The handler only stores into atomics and writes a fixed message with `write(2)`, both
//! async-signal-safe; the trainer polls the stop flag after every step. A job that only
//! writes a file (`image render`) calls [`remove_unfinished_on_signal`] instead: a thread
//! waits for the flag, removes the temporary file it was writing, and exits.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU64, Ordering};

/// The first signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The flag handed to the trainer.
static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// Whether the job stops by removing its unfinished output (not by saving a checkpoint).
static WRITING: AtomicBool = AtomicBool::new(false);
/// What this process says of a stop: 0 alone, 1 rank 0 of several, 2 any other rank
/// (which says nothing: rank 0 speaks for the run).
static ROLE: AtomicU8 = AtomicU8::new(0);
/// The step at which an interrupted run stopped (`u64::MAX`: not recorded).
static STOPPED_AT: AtomicU64 = AtomicU64::new(u64::MAX);

const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// A signal that interrupted the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interruption {
    /// The signal number (2 for SIGINT, 15 for SIGTERM).
    pub signal: i32,
    /// The step at which training stopped, when it was training.
    pub step: Option<u64>,
}

impl Interruption {
    /// `SIGINT` or `SIGTERM`.
    pub fn name(&self) -> &'static str {
        match self.signal {
            SIGINT => "SIGINT",
            SIGTERM => "SIGTERM",
            _ => "signal",
        }
    }

    /// The conventional exit status of a process stopped by this signal: 128 + its number.
    pub fn exit_code(&self) -> u8 {
        (128 + self.signal).clamp(0, 255) as u8
    }
}

/// Installs the handlers (once) and returns the stop flag they raise.
pub fn watch() -> Arc<AtomicBool> {
    let flag = STOP.get_or_init(|| Arc::new(AtomicBool::new(false)));
    sys::install();
    Arc::clone(flag)
}

/// Makes SIGINT and SIGTERM end a job that writes `output` (a render, not a training run):
/// a thread waits for the signal, removes the temporary files this process has beside
/// `output` (`.NAME.tmp-PID-N`, which the write renames over `output` when it is done), says
/// so, and exits with 128 + the signal number. `output` itself, old or absent, is left as
/// it was.
pub fn remove_unfinished_on_signal(output: &Path) {
    WRITING.store(true, Ordering::SeqCst);
    let flag = watch();
    let output = output.to_path_buf();
    std::thread::spawn(move || {
        while !flag.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let removed = remove_temporaries(&output);
        let i = received().unwrap_or(Interruption {
            signal: SIGTERM,
            step: None,
        });
        let what = if removed > 0 {
            "removed the unfinished file"
        } else {
            "nothing was written to"
        };
        let _ = writeln!(
            std::io::stderr(),
            "stopped by {}: {what} {}",
            i.name(),
            output.display()
        );
        std::process::exit(i32::from(i.exit_code()));
    });
}

/// Removes this process's temporary files for `output` (`.NAME.tmp-PID-N` in its folder);
/// returns how many there were.
fn remove_temporaries(output: &Path) -> usize {
    let (Some(name), dir) = (output.file_name(), output.parent()) else {
        return 0;
    };
    let dir = match dir {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(".{}.tmp-{}-", name.to_string_lossy(), std::process::id());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Tells the handler which process of a run this is: a process of several that is not
/// rank 0 stops without a word, and rank 0 of several promises a checkpoint only once
/// every process has finished its step (one that died never does).
pub fn set_role(world: &train::ranks::World) {
    let role = match (world.size(), world.is_writer()) {
        (1, _) => 0,
        (_, true) => 1,
        (_, false) => 2,
    };
    ROLE.store(role, Ordering::SeqCst);
}

/// The signal received so far, if any.
pub fn received() -> Option<Interruption> {
    let signal = SIGNAL.load(Ordering::SeqCst);
    let step = STOPPED_AT.load(Ordering::SeqCst);
    (signal != 0).then_some(Interruption {
        signal,
        step: (step != u64::MAX).then_some(step),
    })
}

/// Records the step at which an interrupted run stopped (for `metrics.json`).
pub fn note_stopped_at(step: u64) {
    STOPPED_AT.store(step, Ordering::SeqCst);
}

/// What the handler does; `signal` is the signal number.
fn on_signal(signal: i32) -> Reaction {
    let first = SIGNAL
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if !first {
        return Reaction::ExitNow(128 + signal);
    }
    if let Some(flag) = STOP.get() {
        flag.store(true, Ordering::SeqCst);
    }
    let role = ROLE.load(Ordering::SeqCst);
    if WRITING.load(Ordering::SeqCst) || role == 2 {
        return Reaction::Announce(b"");
    }
    Reaction::Announce(match (signal, role) {
        (SIGTERM, 0) => b"\nterminated (SIGTERM): saving a checkpoint, then stopping\n",
        (SIGTERM, _) => {
            b"\nterminated (SIGTERM): stopping; a checkpoint is saved once every process has \
              finished its step\n"
        }
        (_, 0) => b"\ninterrupted: saving a checkpoint, then stopping (Ctrl-C again to quit now)\n",
        _ => {
            b"\ninterrupted: stopping; a checkpoint is saved once every process has finished \
              its step (Ctrl-C again to quit now)\n"
        }
    })
}

enum Reaction {
    Announce(&'static [u8]),
    ExitNow(i32),
}

#[cfg(unix)]
mod sys {
    use super::{Reaction, on_signal};
    use std::sync::Once;

    extern "C" fn handler(signal: libc::c_int) {
        match on_signal(signal) {
            // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is static.
            Reaction::Announce(msg) => unsafe {
                libc::write(2, msg.as_ptr().cast(), msg.len());
            },
            // SAFETY: _exit(2) is async-signal-safe and ends the process at once.
            Reaction::ExitNow(code) => unsafe { libc::_exit(code) },
        }
    }

    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM] {
                // SAFETY: a zeroed sigaction with a handler that only touches atomics and
                // calls async-signal-safe functions; SA_RESTART keeps interrupted reads and
                // writes going.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = handler as extern "C" fn(libc::c_int) as usize;
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(signal, &action, std::ptr::null_mut());
                }
            }
        });
    }
}

#[cfg(not(unix))]
mod sys {
    use super::{Reaction, SIGINT, on_signal};
    use std::sync::Once;

    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let _ = ctrlc::set_handler(|| match on_signal(SIGINT) {
                Reaction::Announce(msg) => eprint!("{}", String::from_utf8_lossy(msg)),
                Reaction::ExitNow(code) => std::process::exit(code),
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        let int = Interruption {
            signal: SIGINT,
            step: Some(3),
        };
        let term = Interruption {
            signal: SIGTERM,
            step: None,
        };
        assert_eq!((int.exit_code(), int.name()), (130, "SIGINT"));
        assert_eq!((term.exit_code(), term.name()), (143, "SIGTERM"));
    }
}
