//! `image render` stopped by SIGTERM or SIGINT leaves no temporary file beside its output,
//! a `--reference` that cannot be read is refused before anything is written, and a drawing
//! of many bands says how long it will take before most of it is drawn.

use crate::common::*;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// A tiny image fit to draw from.
fn fitted(dir: &Path) -> std::path::PathBuf {
    let fit = dir.join("fit");
    assert_success(&train(
        &[
            "image", "fit", "--size", "16", "--steps", "3", "--hidden", "8x1",
        ],
        &fit,
    ));
    fit
}

/// The temporary files of a writer in `dir` (`.NAME.tmp-PID-N`).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect()
}

#[test]
fn a_stopped_render_leaves_no_temporary_file() {
    let dir = tmp();
    let fit = fitted(dir.path());
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    for (signal, code) in [("-TERM", 143), ("-INT", 130)] {
        let png = out_dir.join("big.png");
        let child = command([
            "image".as_ref(),
            "render".as_ref(),
            fit.as_os_str(),
            "--size".as_ref(),
            "30000".as_ref(),
            "--device".as_ref(),
            "cpu".as_ref(),
            "-o".as_ref(),
            png.as_os_str(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let mut child = Guard(child);
        assert!(
            wait_for(Duration::from_secs(60), || !temporaries(&out_dir)
                .is_empty()),
            "the render never started writing"
        );
        let pid = child.0.id().to_string();
        let sent = std::process::Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = wait_with_limit(&mut child.0, Duration::from_secs(60));
        assert_eq!(status.code(), Some(code), "{signal}");
        assert_eq!(temporaries(&out_dir), Vec::<String>::new(), "{signal}");
        assert!(!png.exists(), "{signal}: a partial picture was left");
    }
}

#[test]
fn an_unreadable_reference_is_refused_before_writing() {
    let dir = tmp();
    let fit = fitted(dir.path());
    let png = dir.path().join("r.png");
    let not_an_image = dir.path().join("ref.png");
    std::fs::write(&not_an_image, "not a picture").unwrap();
    for reference in [not_an_image, dir.path().join("missing.png")] {
        let o = run([
            "image".as_ref(),
            "render".as_ref(),
            fit.as_os_str(),
            "--size".as_ref(),
            "8".as_ref(),
            "--device".as_ref(),
            "cpu".as_ref(),
            "--reference".as_ref(),
            reference.as_os_str(),
            "-o".as_ref(),
            png.as_os_str(),
        ]);
        assert_one_line_error(&o, &[reference.file_name().unwrap().to_str().unwrap()]);
        assert!(
            !png.exists(),
            "the render was written before the reference was read"
        );
    }
}

#[test]
fn a_drawing_of_many_bands_prints_an_estimate() {
    let dir = tmp();
    let fit = fitted(dir.path());
    for name in ["r.png", "r.jpg"] {
        let out = dir.path().join(name);
        let o = run([
            "image".as_ref(),
            "render".as_ref(),
            fit.as_os_str(),
            "--size".as_ref(),
            "1200".as_ref(),
            "--device".as_ref(),
            "cpu".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_success(&o);
        let err = stderr(&o);
        let line = err
            .lines()
            .find(|l| l.starts_with("drawing 1200x1200"))
            .unwrap_or_else(|| panic!("no estimate: {}", describe(&o)));
        assert!(
            line.contains("1.4 megapixels") && line.contains("in all"),
            "{line}"
        );
    }
}
