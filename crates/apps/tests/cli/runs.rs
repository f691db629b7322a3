//! One run never destroys another: a fresh run does not overwrite a folder's checkpoint
//! without --force, two runs cannot share an --out, and default folder names never collide.

use crate::common::*;
use std::time::Duration;

/// The checkpoint's bytes.
fn checkpoint(dir: &std::path::Path) -> Vec<u8> {
    std::fs::read(dir.join("model.safetensors")).unwrap()
}

/// A fresh run into a folder holding a checkpoint is refused (the checkpoint is untouched);
/// --resume continues it and --force starts afresh over it.
#[test]
fn a_fresh_run_does_not_overwrite_a_checkpoint() {
    let dir = tmp();
    assert_success(&train(&["xor", "--steps", "20"], dir.path()));
    let before = checkpoint(dir.path());
    let o = train(
        &["approx", "--fn", "x", "--steps", "5", "--samples", "50"],
        dir.path(),
    );
    assert_one_line_error(&o, &["already holds", "--resume", "--force"]);
    assert_eq!(
        checkpoint(dir.path()),
        before,
        "the checkpoint is untouched"
    );
    assert!(
        !dir.path().join("fit.png").exists(),
        "no files of the refused run"
    );

    let o = train(&["xor", "--steps", "30", "--resume"], dir.path());
    assert_success(&o);
    let o = train(&["xor", "--steps", "7", "--force"], dir.path());
    assert_success(&o);
    assert_eq!(num(&metrics(dir.path()), "steps"), 7.0, "started afresh");
}

/// While a run uses an --out, a second run into it fails at once naming the first one's
/// process; the first run is not disturbed, and once it has ended the folder is free again.
#[cfg(unix)]
#[test]
fn a_folder_in_use_is_locked() {
    let dir = tmp();
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
    cmd.arg("--out").arg(dir.path());
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut first = Guard(cmd.spawn().expect("cannot start iron-learn"));
    assert!(wait_for(Duration::from_secs(60), || dir
        .path()
        .join("model.safetensors")
        .is_file()));
    let pid = first.0.id().to_string();
    for resume in [false, true] {
        let mut args = vec!["xor", "--steps", "5"];
        if resume {
            args.push("--resume");
        }
        let o = train(&args, dir.path());
        assert_one_line_error(&o, &["in use", &pid]);
    }
    let o = train(&["xor", "--steps", "5", "--force"], dir.path());
    assert_one_line_error(&o, &["in use"]);
    assert!(
        first.0.try_wait().unwrap().is_none(),
        "the first run goes on"
    );
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = wait_with_limit(&mut first.0, Duration::from_secs(60));
    assert_eq!(status.code(), Some(143));
    let o = train(&["xor", "--steps", "5", "--force"], dir.path());
    assert_success(&o);
}

/// Runs started together without --out (so in the same second) get distinct folders.
#[test]
fn default_folders_never_collide() {
    let dir = tmp();
    let children: Vec<_> = (0..4)
        .map(|_| {
            command(["xor", "--steps", "3", "--device", "cpu", "--quiet"])
                .current_dir(dir.path())
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("cannot start iron-learn")
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert_success(&o);
    }
    let folders: Vec<_> = std::fs::read_dir(dir.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(folders.len(), 4, "{folders:?}");
    for f in &folders {
        assert!(f.file_name().unwrap().to_string_lossy().starts_with("xor-"));
        assert_eq!(num(&metrics(f), "steps"), 3.0);
    }
}
