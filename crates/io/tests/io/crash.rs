//! Crash safety of checkpoint saving: a child process writes checkpoints in a tight loop and is
//! killed with SIGKILL at random moments; the checkpoint must always load, whole and consistent.
//!
//! The child is this very test binary, re-executed to run only the ignored helper test
//! `crash_writer` with `IO_CRASH_DIR` set.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use io::checkpoint::Checkpoint;
use serde_json::json;
use tensor_core::rand::{Rng, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;

const DIR_VAR: &str = "IO_CRASH_DIR";
const FILE: &str = "ck.safetensors";

/// The checkpoint written at `step`: every value equals `step`, and sizes vary with it.
fn checkpoint_for(step: u64) -> Checkpoint {
    let mut ck = Checkpoint::new(json!({"step": step, "architecture": {"big": 65536}}));
    let v = step as f32;
    let small = 1 + (step as usize * 7919) % 5000;
    ck.insert("big", vec![256, 256], vec![v; 65536]).unwrap();
    ck.insert("small", vec![small], vec![v; small]).unwrap();
    ck.insert("scalar", vec![], vec![v]).unwrap();
    ck
}

/// Checks a loaded checkpoint against what `checkpoint_for` wrote for its step.
fn check_consistent(ck: &Checkpoint) -> u64 {
    let step = ck.metadata["step"].as_u64().expect("metadata has the step");
    assert_eq!(
        ck,
        &checkpoint_for(step),
        "checkpoint of step {step} is inconsistent"
    );
    step
}

/// Helper run only in the child process: writes checkpoints until killed.
#[test]
#[ignore = "helper: run in a child process by checkpoint_survives_sigkill"]
fn crash_writer() {
    let Some(dir) = std::env::var_os(DIR_VAR) else {
        return;
    };
    let path = Path::new(&dir).join(FILE);
    let mut step = Checkpoint::load(&path).map_or(0, |ck| check_consistent(&ck));
    loop {
        step += 1;
        checkpoint_for(step).save(&path).expect("save");
    }
}

/// Kills the writer if the test fails before killing it on purpose, so that no writer outlives
/// the test.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // Already killed and reaped in the normal course: both calls then fail harmlessly.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn checkpoint_survives_sigkill() {
    const ROUNDS: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    let exe = std::env::current_exe().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let started = Instant::now();
    let mut steps = Vec::new();
    for round in 0..ROUNDS {
        let mut child = KillOnDrop(
            Command::new(&exe)
                .args([
                    "crash::crash_writer",
                    "--exact",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(DIR_VAR, dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start the writer"),
        );
        // First round: wait until a first checkpoint exists (bounded).
        let wait_until = Instant::now() + Duration::from_secs(20);
        while !path.exists() {
            assert!(
                Instant::now() < wait_until,
                "the writer never wrote a checkpoint"
            );
            if let Some(status) = child.0.try_wait().unwrap() {
                panic!("the writer exited early with {status}");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(rng.random_range(20..250)));
        // On Unix `kill` sends SIGKILL: no destructor, no flush, no cleanup runs.
        child.0.kill().unwrap();
        let status = child.0.wait().unwrap();
        assert!(
            !status.success(),
            "round {round}: the writer should have been killed"
        );

        let ck = Checkpoint::load(&path)
            .unwrap_or_else(|e| panic!("round {round}: checkpoint unreadable after SIGKILL: {e}"));
        let step = check_consistent(&ck);
        if let Some(&last) = steps.last() {
            assert!(
                step >= last,
                "round {round}: step went back from {last} to {step}"
            );
        }
        steps.push(step);
    }
    assert!(
        steps.last() > steps.first(),
        "the writers made progress across rounds: {steps:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    eprintln!("steps at each kill: {steps:?}");
}
