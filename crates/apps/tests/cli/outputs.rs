//! Output files: a write that fails (full device, a folder in the way) is a one-line error with
//! a non-zero exit, never a success with an empty file; images are written in the format their
//! extension names; temporaries of killed runs are cleared; a failed run leaves no empty
//! folder behind.

use crate::common::*;
use std::path::{Path, PathBuf};

/// A short `image fit` whose checkpoint `image render` can read.
fn fitted(dir: &Path) -> PathBuf {
    let run = dir.join("fit");
    assert_success(&train(
        &[
            "image", "fit", "--size", "16", "--steps", "3", "--hidden", "16x2",
        ],
        &run,
    ));
    run
}

fn render(model: &Path, output: &Path) -> std::process::Output {
    run([
        "image".as_ref(),
        "render".as_ref(),
        model.as_os_str(),
        "--size".as_ref(),
        "16".as_ref(),
        "--device".as_ref(),
        "cpu".as_ref(),
        "-o".as_ref(),
        output.as_os_str(),
    ])
}

/// `image render -o /dev/full` and `image decode -o /dev/full` fail with "No space" instead of
/// printing success (and /dev/full stays a device).
#[cfg(target_os = "linux")]
#[test]
fn writing_to_a_full_device_fails() {
    let dir = tmp();
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let model = fitted(dir.path());
    let o = render(&model, full);
    assert_one_line_error(&o, &["/dev/full", "no space"]);
    assert!(!stdout(&o).contains("rendered"), "{}", describe(&o));

    let csv = dir.path().join("px.csv");
    std::fs::write(&csv, "x,y,value\n0,0,0\n1,0,255\n").unwrap();
    let o = run(["image", "decode", csv.to_str().unwrap(), "-o", "/dev/full"]);
    assert_one_line_error(&o, &["/dev/full", "no space"]);
    let o = run([
        "image",
        "encode",
        data("drawing.png").to_str().unwrap(),
        "-o",
        "/dev/full",
    ]);
    assert_one_line_error(&o, &["/dev/full", "no space"]);
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata(full)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

/// A run whose `metrics.json` (or `reconstruction.png`) cannot be written exits 1 naming the
/// file: here a folder of that name stands in the way, as a full disk would.
#[test]
fn a_run_output_that_cannot_be_written_fails_the_run() {
    let dir = tmp();
    std::fs::create_dir_all(dir.path().join("metrics.json/x")).unwrap();
    let o = train(&["xor", "--steps", "5"], dir.path());
    assert_one_line_error(&o, &["metrics.json"]);

    let fit = tmp();
    std::fs::create_dir_all(fit.path().join("reconstruction.png/x")).unwrap();
    let o = train(
        &[
            "image", "fit", "--size", "16", "--steps", "2", "--hidden", "16x2",
        ],
        fit.path(),
    );
    assert_last_line_error(&o, &["reconstruction.png"]);
    assert!(
        !fit.path().join("metrics.json").exists(),
        "{}",
        describe(&o)
    );
}

/// `-o` picks the format from the extension: a `.jpg` holds JPEG bytes, a `.bmp` BMP; an
/// extension that names no format this tool writes is refused before any work.
#[test]
fn images_are_written_in_the_format_the_extension_names() {
    let dir = tmp();
    let model = fitted(dir.path());
    for (name, magic) in [
        ("r.jpg", &b"\xff\xd8\xff"[..]),
        ("r.bmp", b"BM"),
        ("r.png", b"\x89PNG"),
    ] {
        let out = dir.path().join(name);
        assert_success(&render(&model, &out));
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.starts_with(magic), "{name}: {:?}", &bytes[..4]);
        assert_eq!(png_size(&out), (16, 16), "{name} decodes");
    }
    let out = dir.path().join("r.tiff");
    let o = render(&model, &out);
    assert_one_line_error(&o, &["r.tiff", ".png"]);
    assert!(!out.exists());
    let csv = dir.path().join("px.csv");
    std::fs::write(&csv, "x,y,value\n0,0,0\n1,0,255\n").unwrap();
    let o = run([
        "image",
        "decode",
        csv.to_str().unwrap(),
        "-o",
        dir.path().join("px.gif").to_str().unwrap(),
    ]);
    assert_one_line_error(&o, &["px.gif"]);
}

/// Temporary files left by a killed writer are removed when the next run starts in the
/// folder; other files stay.
#[test]
fn stale_temporaries_are_removed_at_the_next_start() {
    let dir = tmp();
    assert_success(&train(&["xor", "--steps", "5"], dir.path()));
    let stale = dir.path().join(".model.safetensors.tmp-999999-0");
    let note = dir.path().join("notes.txt");
    std::fs::write(&stale, "half a checkpoint").unwrap();
    std::fs::write(&note, "mine").unwrap();
    assert_success(&train(&["xor", "--steps", "10", "--resume"], dir.path()));
    assert!(!stale.exists(), "the stale temporary is gone");
    assert!(note.exists());
    let hidden: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "hidden files left: {hidden:?}");
}

/// A fresh run that fails (here it diverges) removes the folder it created; a folder that
/// existed before is kept.
#[test]
fn a_failed_run_leaves_no_empty_folder() {
    let dir = tmp();
    let out = dir.path().join("new-run");
    let o = train(&["xor", "--lr", "1e10"], &out);
    assert_one_line_error(&o, &["diverged"]);
    assert!(!out.exists(), "{} was left behind", out.display());
    // Default folder names too: run from inside `dir`, nothing is left under runs/.
    let o = command(["xor", "--lr", "1e10", "--device", "cpu", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_one_line_error(&o, &["diverged"]);
    let left = std::fs::read_dir(dir.path().join("runs")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "runs/ holds a folder of the failed run");
    let kept = tmp();
    assert_one_line_error(&train(&["xor", "--lr", "1e10"], kept.path()), &["diverged"]);
    assert!(kept.path().is_dir());
}
