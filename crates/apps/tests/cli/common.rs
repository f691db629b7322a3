//! Helpers shared by the `iron-learn` integration tests: running the real binary, reading a
//! run's `metrics.json`, and checking the one-line error rule.
#![allow(dead_code)]

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_iron-learn");

/// A file of the bundled `data/` folder at the workspace root.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name)
}

/// A fresh temporary folder, removed when dropped.
pub fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("cannot create a temporary folder")
}

/// A command for the binary with these arguments (nothing added).
pub fn command<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .env("RUST_BACKTRACE", "1");
    cmd
}

/// Runs the binary with exactly these arguments.
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    command(args).output().expect("cannot start iron-learn")
}

/// Runs a training job on the CPU, quietly, writing into `out`: `job_args` come first (the
/// subcommand and its options), then `--device cpu --quiet --out OUT`.
pub fn train<S: AsRef<OsStr>>(job_args: &[S], out: &Path) -> Output {
    let mut cmd = command(job_args);
    cmd.args(["--device", "cpu", "--quiet", "--out"]).arg(out);
    cmd.output().expect("cannot start iron-learn")
}

/// Both output streams, for assertion messages.
pub fn describe(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Asserts a zero exit status.
pub fn assert_success(o: &Output) {
    assert!(o.status.success(), "iron-learn failed: {}", describe(o));
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the bad-input rule: a non-zero exit and exactly one non-empty line on stderr that
/// starts with `error:`, mentions no panic or backtrace, and contains each of `needles`
/// (case-insensitive). Returns the line.
pub fn assert_one_line_error(o: &Output, needles: &[&str]) -> String {
    assert!(!o.status.success(), "expected a failure: {}", describe(o));
    assert_eq!(o.status.code(), Some(1), "exit code: {}", describe(o));
    let err = stderr(o);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one stderr line: {}", describe(o));
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "blank lines on stderr: {}",
        describe(o)
    );
    let line = lines[0];
    assert!(line.starts_with("error: "), "{line}");
    let lower = line.to_lowercase();
    assert!(!lower.contains("panicked"), "{line}");
    assert!(!lower.contains("backtrace"), "{line}");
    for needle in needles {
        assert!(
            lower.contains(&needle.to_lowercase()),
            "{line:?} should mention {needle:?}"
        );
    }
    line.to_string()
}

/// Like `assert_one_line_error`, for jobs that announce their work on stderr first (`image
/// fit` says what it fits): exit 1, and the last stderr line is the error.
pub fn assert_last_line_error(o: &Output, needles: &[&str]) {
    assert_eq!(o.status.code(), Some(1), "{}", describe(o));
    let err = stderr(o);
    assert!(!err.to_lowercase().contains("panicked"), "{err}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("error: "), "{}", describe(o));
    for n in needles {
        assert!(last.contains(n), "{last:?} should mention {n:?}");
    }
}

/// The parsed `metrics.json` of a run folder.
pub fn metrics(dir: &Path) -> Value {
    let path = dir.join("metrics.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A numeric field of `metrics.json`, which must be present and finite.
pub fn num(m: &Value, key: &str) -> f64 {
    let v = m
        .get(key)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("metrics.json has no number `{key}`: {m}"));
    assert!(v.is_finite(), "`{key}` is not finite: {v}");
    v
}

/// Asserts that `path` is a PNG file that decodes, and returns its size.
pub fn png_size(path: &Path) -> (u32, u32) {
    assert!(path.is_file(), "{} was not written", path.display());
    let img = image::open(path).unwrap_or_else(|e| panic!("{} is unreadable: {e}", path.display()));
    (img.width(), img.height())
}

/// Asserts that a training run wrote the files every job writes: `metrics.json`,
/// `loss.png` and `model.safetensors`.
pub fn assert_run_files(dir: &Path) {
    for f in ["metrics.json", "model.safetensors"] {
        let p = dir.join(f);
        let len = std::fs::metadata(&p)
            .unwrap_or_else(|e| panic!("{} missing: {e}", p.display()))
            .len();
        assert!(len > 0, "{} is empty", p.display());
    }
    let (w, h) = png_size(&dir.join("loss.png"));
    assert!(w > 100 && h > 100, "loss.png is {w}x{h}");
}

/// Polls `cond` every 10 ms until it holds or `limit` passes; returns whether it held.
pub fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

/// Waits at most `limit` for a child to exit; kills it (and fails) when it does not.
pub fn wait_with_limit(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("cannot wait for the child") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("iron-learn did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Kills the child when dropped, so a failing assertion leaves no process behind.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
