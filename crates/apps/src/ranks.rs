//! The command line's part in a run of several processes ([`train::ranks`]): it joins the
//! world before any work, lets rank 0 alone print, names the rank in an error, and stops the
//! other processes when one fails.

use std::io::Write;

/// Joins the world this process was started in; on a process but rank 0, stdout is closed
/// to everything but errors (which go to stderr). An error is one line, printed here.
pub fn join() -> Result<&'static train::ranks::World, ()> {
    let joined = train::ranks::join().map_err(|e| e.to_string());
    match joined.and_then(|world| same_command(world).map(|()| world)) {
        Ok(world) => {
            if !world.is_writer() {
                silence_stdout();
            }
            Ok(world)
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{}", prefixed(format!("error: {e}")));
            if train::ranks::world().size() > 1 {
                end(false);
            }
            Err(())
        }
    }
}

/// Refuses a process started with other arguments than rank 0's: every process must run
/// the same command (one with other steps or another file would wait forever for sums
/// that never come, or train something else).
fn same_command(world: &train::ranks::World) -> Result<(), String> {
    if world.size() == 1 {
        return Ok(());
    }
    let mine: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut theirs = mine.join("\0").into_bytes();
    world.broadcast(0, &mut theirs).map_err(|e| e.to_string())?;
    if theirs == mine.join("\0").into_bytes() {
        return Ok(());
    }
    let theirs = String::from_utf8_lossy(&theirs).replace('\0', " ");
    Err(format!(
        "this process was started with other arguments than rank 0 ({theirs}): start every \
         process with the same command"
    ))
}

/// `line` as this process prints it: prefixed by its rank where there are several.
pub fn prefixed(line: String) -> String {
    let world = train::ranks::world();
    match world.size() {
        1 => line,
        n => format!("rank {} of {n}: {line}", world.rank()),
    }
}

/// How long a process other than rank 0 waits before saying its error: an error every
/// process meets (a missing file, a refused option) is said once, by rank 0, whose failure
/// stops the others first; an error of this process alone is said after the wait.
const ERROR_DELAY: std::time::Duration = std::time::Duration::from_secs(2);

/// Waits, on a process other than rank 0 of several, before it says its error
/// ([`ERROR_DELAY`]).
pub fn before_error() {
    let world = train::ranks::world();
    if world.size() > 1 && !world.is_writer() {
        std::thread::sleep(ERROR_DELAY);
    }
}

/// Ends the process's part in the world: finalised after success; after a failure, every
/// other process is stopped too (they would wait for this one's sums forever).
pub fn end(succeeded: bool) {
    if succeeded {
        train::ranks::finish();
    } else {
        train::ranks::abort(1);
    }
}

/// Sends what this process writes to stdout nowhere.
fn silence_stdout() {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
            // SAFETY: dup2 onto the standard output descriptor with a descriptor this
            // function owns and keeps open for the call; no Rust object owns fd 1.
            unsafe {
                libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO);
            }
        }
    }
}
