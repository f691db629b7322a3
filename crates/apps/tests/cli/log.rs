//! Progress off a terminal: the tests' stderr is a pipe, as under CI, nohup or a notebook,
//! so a run prints plain progress lines (step, loss, steps/s, ETA) instead of a bar.

use crate::common::*;

fn progress_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("step ")).collect()
}

/// `--log-every 50` prints a line at steps 50, 100, 150 and 200, each with the step, the
/// loss, the learning rate, the speed, and (before the end) the time left.
#[test]
fn log_every_prints_plain_lines() {
    let dir = tmp();
    let o = command([
        "xor",
        "--steps",
        "200",
        "--log-every",
        "50",
        "-d",
        "cpu",
        "-o",
    ])
    .arg(dir.path())
    .output()
    .unwrap();
    assert_success(&o);
    let err = stderr(&o);
    let lines = progress_lines(&err);
    assert_eq!(lines.len(), 4, "{err}");
    for (line, step) in lines.iter().zip([50, 100, 150, 200]) {
        assert!(line.starts_with(&format!("step {step:>3}/200")), "{line}");
        for part in ["loss ", "lr ", "steps/s"] {
            assert!(line.contains(part), "{line} lacks {part:?}");
        }
        assert_eq!(line.contains("ETA"), step < 200, "{line}");
    }
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}'),
        "no terminal controls: {err:?}"
    );
    // The header names the settings and where the record is.
    assert!(
        err.contains("200 steps") && err.contains("config.json"),
        "{err}"
    );
}

/// Without --log-every a short run still ends with a line for its last step; --quiet
/// prints none.
#[test]
fn a_run_off_a_terminal_is_never_silent() {
    let dir = tmp();
    let o = command(["xor", "--steps", "30", "-d", "cpu", "-o"])
        .arg(dir.path().join("a"))
        .output()
        .unwrap();
    assert_success(&o);
    let err = stderr(&o);
    let lines = progress_lines(&err);
    assert!(
        lines.last().is_some_and(|l| l.starts_with("step 30/30")),
        "{err}"
    );

    let o = command(["xor", "--steps", "30", "-d", "cpu", "-q", "-o"])
        .arg(dir.path().join("b"))
        .output()
        .unwrap();
    assert_success(&o);
    assert!(progress_lines(&stderr(&o)).is_empty(), "{}", describe(&o));
}
