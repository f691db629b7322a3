//! Checkpoints and interruptions: `--resume` continues a run, refuses a different network,
//! survives a SIGKILL at any moment (the checkpoint is always whole), and Ctrl-C (SIGINT) or
//! SIGTERM stops a run cleanly with a checkpoint, a hint on how to continue and exit status
//! 130 or 143.

use crate::common::*;
use std::path::Path;
use std::time::Duration;

/// A run of 200 steps, resumed to 450: the metrics count all 450 steps, stderr says that it
/// resumed (from step 200), and the model is still a good XOR.
#[test]
fn resume_continues_to_the_new_total() {
    let dir = tmp();
    let o = train(
        &["xor", "--steps", "200", "--checkpoint-every", "50"],
        dir.path(),
    );
    assert_success(&o);
    assert_eq!(num(&metrics(dir.path()), "steps"), 200.0);

    let o = train(&["xor", "--steps", "450", "--resume"], dir.path());
    assert_success(&o);
    let err = stderr(&o);
    assert!(err.contains("resuming") && err.contains("200"), "{err}");
    let m = metrics(dir.path());
    assert_eq!(num(&m, "steps"), 450.0, "{m}");
    assert!(num(&m, "max_error") < 0.1, "{m}");
}

/// Resuming with another network (a different --hidden) fails with one line that names the
/// field that differs and both of its values.
#[test]
fn resume_refuses_a_different_architecture() {
    let dir = tmp();
    assert_success(&train(
        &["xor", "--steps", "20", "--hidden", "4"],
        dir.path(),
    ));
    let o = train(
        &["xor", "--steps", "40", "--hidden", "8", "--resume"],
        dir.path(),
    );
    assert_one_line_error(
        &o,
        &[
            "different network",
            "architecture.hidden[0] is 4 in the checkpoint, 8 with these options",
        ],
    );
    // The checkpoint is untouched: resuming with the right options still works.
    let o = train(
        &["xor", "--steps", "40", "--hidden", "4", "--resume"],
        dir.path(),
    );
    assert_success(&o);
    assert_eq!(num(&metrics(dir.path()), "steps"), 40.0);
}

/// Resuming a checkpoint written by another job, or from a folder with no checkpoint, fails
/// with one line.
#[test]
fn resume_refuses_other_jobs_and_missing_checkpoints() {
    let dir = tmp();
    assert_success(&train(&["xor", "--steps", "10"], dir.path()));
    let o = train(
        &[
            "linreg",
            "--data",
            data("regression.csv").to_str().unwrap(),
            "--resume",
        ],
        dir.path(),
    );
    assert_one_line_error(&o, &["`xor`", "linreg"]);

    let empty = tmp();
    let o = train(&["xor", "--resume"], empty.path());
    assert_one_line_error(&o, &["cannot resume", "does not exist"]);
}

/// Starts a long `image fit` that checkpoints every 5 steps (resuming the run in `dir` when
/// asked), waits until its checkpoint exists, lets it run `delay` longer and SIGKILLs it.
#[cfg(unix)]
fn start_and_kill(dir: &Path, resume: bool, delay: Duration) {
    let mut cmd = command([
        "image",
        "fit",
        "--size",
        "32",
        "--hidden",
        "64x3",
        "--steps",
        "100000",
        "--checkpoint-every",
        "5",
        "--device",
        "cpu",
        "--quiet",
    ]);
    cmd.arg("--out")
        .arg(dir)
        .stderr(std::process::Stdio::null());
    if resume {
        cmd.arg("--resume");
    }
    let checkpoint = dir.join("model.safetensors");
    let before = std::fs::metadata(&checkpoint)
        .and_then(|m| m.modified())
        .ok();
    let mut child = Guard(cmd.spawn().expect("cannot start iron-learn"));
    // A new checkpoint: the file appears (first run) or is replaced (resumed runs).
    let written = wait_for(Duration::from_secs(60), || {
        std::fs::metadata(&checkpoint)
            .and_then(|m| m.modified())
            .is_ok_and(|t| Some(t) != before)
            || child.0.try_wait().ok().flatten().is_some()
    });
    assert!(written, "no checkpoint within 60 s");
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "the run ended early: {:?}",
        child.0.try_wait()
    );
    std::thread::sleep(delay);
    child.0.kill().expect("cannot kill the run"); // SIGKILL: no chance to clean up
    child.0.wait().unwrap();
}

/// Crash safety: a run SIGKILLed at several moments (while it writes a checkpoint every 5
/// steps) always leaves a checkpoint that `image render` can read and from which the run can
/// be resumed; the kills after the first land in resumed runs.
#[cfg(unix)]
#[test]
fn killed_runs_leave_a_readable_checkpoint() {
    let dir = tmp();
    for (i, ms) in [0u64, 7, 23, 61, 150].into_iter().enumerate() {
        start_and_kill(dir.path(), i > 0, Duration::from_millis(ms));
        let png = dir.path().join(format!("render-{i}.png"));
        let o = run([
            "image".as_ref(),
            "render".as_ref(),
            dir.path().as_os_str(),
            "--size".as_ref(),
            "16".as_ref(),
            "--device".as_ref(),
            "cpu".as_ref(),
            "-o".as_ref(),
            png.as_os_str(),
        ]);
        assert_success(&o);
        assert_eq!(png_size(&png), (16, 16));
    }
    // Resuming with --steps 1 (fewer than done) loads model, optimizer and trainer state,
    // trains nothing more and finishes normally.
    let o = train(
        &[
            "image", "fit", "--size", "32", "--hidden", "64x3", "--steps", "1", "--resume",
        ],
        dir.path(),
    );
    assert_success(&o);
    assert!(stderr(&o).contains("resuming"), "{}", describe(&o));
    assert!(num(&metrics(dir.path()), "steps") >= 5.0);
}

/// Starts a long `xor` run in `dir`, waits for its first checkpoint (training, and so the
/// signal handling, has started), sends it `signal` and waits for it to end; returns its exit
/// status, stdout and stderr.
#[cfg(unix)]
fn interrupt(dir: &Path, signal: &str) -> (std::process::ExitStatus, String, String) {
    let mut cmd = command([
        "xor",
        "--steps",
        "100000000",
        "--checkpoint-every",
        "1000",
        "--device",
        "cpu",
        "--quiet",
    ]);
    cmd.arg("--out").arg(dir);
    // Output goes to files outside the run folder, read once the run has ended.
    let logs = tmp();
    let (out_log, err_log) = (
        logs.path().join("stdout.txt"),
        logs.path().join("stderr.txt"),
    );
    cmd.stdout(std::fs::File::create(&out_log).unwrap())
        .stderr(std::fs::File::create(&err_log).unwrap());
    let mut child = Guard(cmd.spawn().expect("cannot start iron-learn"));
    let checkpoint = dir.join("model.safetensors");
    assert!(wait_for(Duration::from_secs(60), || checkpoint.is_file()));
    let pid = child.0.id().to_string();
    let kill = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("cannot run kill");
    assert!(kill.success());
    let status = wait_with_limit(&mut child.0, Duration::from_secs(60));
    let err = std::fs::read_to_string(&err_log).unwrap();
    let out = std::fs::read_to_string(&out_log).unwrap();
    (status, out, err)
}

/// Ctrl-C: the first SIGINT makes the run save a checkpoint and stop; it writes its usual
/// outputs, says how to resume, records the interruption in metrics.json and exits 130.
#[cfg(unix)]
#[test]
fn ctrl_c_checkpoints_and_stops() {
    let dir = tmp();
    let (status, out, err) = interrupt(dir.path(), "-INT");
    assert_eq!(status.code(), Some(130), "{out}\n{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(err.contains("--resume"), "{err}");
    assert!(dir.path().join("model.safetensors").is_file());
    let m = metrics(dir.path());
    let steps = num(&m, "steps");
    assert!((1000.0..100_000_000.0).contains(&steps), "steps {steps}");
    assert_eq!(m["interrupted_by"], "SIGINT", "{m}");
    assert_eq!(num(&m, "interrupted_at_step"), steps, "{m}");
}

/// SIGTERM (what `kill`, systemd and schedulers send) saves and stops like Ctrl-C, exits 143,
/// and the saved checkpoint resumes at the step metrics.json names.
#[cfg(unix)]
#[test]
fn sigterm_checkpoints_and_stops() {
    let dir = tmp();
    let (status, out, err) = interrupt(dir.path(), "-TERM");
    assert_eq!(status.code(), Some(143), "{out}\n{err}");
    assert!(err.contains("SIGTERM") && err.contains("--resume"), "{err}");
    let m = metrics(dir.path());
    assert_eq!(m["interrupted_by"], "SIGTERM", "{m}");
    let stopped = num(&m, "interrupted_at_step");
    assert!(stopped >= 1000.0, "{m}");
    // No work lost: the checkpoint is at the step where the run stopped.
    let ck = io::Checkpoint::load(dir.path().join("model.safetensors")).unwrap();
    assert_eq!(ck.metadata["trainer"]["step"].as_f64(), Some(stopped));
    let o = train(
        &[
            "xor",
            "--steps",
            &format!("{}", stopped as u64 + 10),
            "--resume",
        ],
        dir.path(),
    );
    assert_success(&o);
    assert!(
        stderr(&o).contains(&format!("at step {}", stopped as u64)),
        "{}",
        describe(&o)
    );
}

/// The model tensors of a run's checkpoint.
fn model_tensors(dir: &Path) -> Vec<(String, Vec<f32>)> {
    let ck = io::Checkpoint::load(dir.join("model.safetensors")).expect("checkpoint loads");
    ck.tensors
        .into_iter()
        .filter(|(name, _)| name.starts_with("model."))
        .map(|(name, t)| (name, t.data))
        .collect()
}

/// Training 4 epochs of shuffled mini-batches straight, and training 2, stopping, and
/// resuming from the checkpoint for 2 more, give bit-identical parameters: the checkpoint
/// holds everything (parameters, Adam moments, step, batch order position).
#[test]
fn resumed_training_is_bit_identical_to_straight_training() {
    let job = |epochs: &str| {
        vec![
            "mlp",
            "--test-fraction",
            "0.2",
            "--model",
            "mlp",
            "--data",
            "DATA",
            "--task",
            "classification",
            "--hidden",
            "16,16",
            "--batch",
            "32",
            "--schedule",
            "constant",
            "--epochs",
            epochs,
        ]
        .into_iter()
        .map(|a| {
            if a == "DATA" {
                data("circles.csv").display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect::<Vec<_>>()
    };
    let straight = tmp();
    assert_success(&train(&job("4"), straight.path()));
    let split = tmp();
    assert_success(&train(&job("2"), split.path()));
    let mut resumed = job("4");
    resumed.push("--resume".into());
    let o = train(&resumed, split.path());
    assert_success(&o);
    let (a, b) = (model_tensors(straight.path()), model_tensors(split.path()));
    assert!(!a.is_empty());
    assert_eq!(a.len(), b.len());
    for ((na, va), (nb, vb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        let same = va.iter().zip(vb).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "{na} differs between straight and resumed training");
    }
}
