//! Every command that writes a file named by the user, run against a named pipe, a device
//! node and its own input: the pipe and the device are written in place and stay what they
//! are; an output that is one of the command's inputs is refused in one line before anything
//! is written, and the input is left as it was.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The runs and files the writing commands read.
struct Inputs {
    _dir: tempfile::TempDir,
    table_run: PathBuf,
    image_run: PathBuf,
    rows: PathBuf,
    pixels: PathBuf,
}

fn inputs() -> Inputs {
    let dir = tmp();
    let table_run = dir.path().join("linreg");
    let regression = data("regression.csv");
    assert_success(&train(
        &[
            "linreg",
            "--data",
            regression.to_str().unwrap(),
            "--steps",
            "5",
        ],
        &table_run,
    ));
    let image_run = dir.path().join("fit");
    assert_success(&train(
        &[
            "image", "fit", "--size", "16", "--steps", "3", "--hidden", "16x2",
        ],
        &image_run,
    ));
    let rows = dir.path().join("rows.csv");
    std::fs::write(&rows, "x1,x2,x3,x4\n0.1,0.2,0.3,0.4\n1,2,3,4\n").unwrap();
    let pixels = dir.path().join("pixels.csv");
    std::fs::write(&pixels, "x,y,value\n0,0,0\n1,0,255\n").unwrap();
    Inputs {
        _dir: dir,
        table_run,
        image_run,
        rows,
        pixels,
    }
}

/// A command run with its output `-o OUT`.
type Writer<'a> = Box<dyn Fn(&Path) -> Output + 'a>;

/// Each writing command with its output `-o OUT`, by name.
fn writing_commands(i: &Inputs) -> Vec<(&'static str, Writer<'_>)> {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    vec![
        (
            "export onnx",
            Box::new(move |o| run(["export", &s(&i.table_run), "--format", "onnx", "-o", &s(o)])),
        ),
        (
            "export safetensors",
            Box::new(move |o| {
                let args = [
                    "export",
                    &s(&i.table_run),
                    "--format",
                    "safetensors",
                    "-o",
                    &s(o),
                ];
                run(args)
            }),
        ),
        (
            "predict",
            Box::new(move |o| {
                let args = [
                    "predict",
                    &s(&i.table_run),
                    "--data",
                    &s(&i.rows),
                    "-o",
                    &s(o),
                ];
                run(args.iter().chain(&["--device", "cpu"]))
            }),
        ),
        (
            "image render",
            Box::new(move |o| {
                let args = [
                    "image",
                    "render",
                    &s(&i.image_run),
                    "--size",
                    "16",
                    "-o",
                    &s(o),
                ];
                run(args.iter().chain(&["--device", "cpu"]))
            }),
        ),
        (
            "image encode",
            Box::new(move |o| run(["image", "encode", &s(&data("drawing.png")), "-o", &s(o)])),
        ),
        (
            "image decode",
            Box::new(move |o| run(["image", "decode", &s(&i.pixels), "-o", &s(o)])),
        ),
    ]
}

/// A named pipe: the command writes into it (a reader receives the bytes) and it stays a pipe.
#[cfg(unix)]
#[test]
fn every_writing_command_writes_a_fifo_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let i = inputs();
    let dir = tmp();
    for (name, command) in writing_commands(&i) {
        // No extension: the image commands write PNG to a name without one.
        let fifo = dir.path().join(format!("{}-pipe", name.replace(' ', "-")));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let o = command(&fifo);
        assert_success(&o);
        let received = reader.join().unwrap();
        assert!(
            !received.is_empty(),
            "{name}: nothing came through the pipe"
        );
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{name} replaced the pipe: {kind:?}");
    }
}

/// A character device made in a temporary folder (the null device, as root), or a link to
/// `/dev/null` where devices cannot be made: written in place, never replaced by a file.
#[cfg(unix)]
#[test]
fn every_writing_command_leaves_a_device_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let i = inputs();
    let dir = tmp();
    for (name, command) in writing_commands(&i) {
        let node = dir.path().join(format!("{}-null", name.replace(' ', "-")));
        let made = std::process::Command::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            std::os::unix::fs::symlink("/dev/null", &node).unwrap();
        }
        assert_success(&command(&node));
        let kind = std::fs::symlink_metadata(&node).unwrap().file_type();
        let device = std::fs::metadata(&node).unwrap().file_type();
        assert!(
            device.is_char_device() && (made || kind.is_symlink()),
            "{name} replaced the device: {kind:?}"
        );
    }
}

/// The output is the command's own input (the run's checkpoint, the rows, the image, the
/// pixel CSV): refused in one line, the input byte for byte as it was.
#[test]
fn every_writing_command_refuses_its_own_input() {
    let i = inputs();
    let checkpoint = i.table_run.join("model.safetensors");
    let image_checkpoint = i.image_run.join("model.safetensors");
    let drawing_copy = i._dir.path().join("drawing.png");
    std::fs::copy(data("drawing.png"), &drawing_copy).unwrap();
    let own: [(&str, &Path); 6] = [
        ("export onnx", &checkpoint),
        ("export safetensors", &checkpoint),
        ("predict", &i.rows),
        ("image render", &image_checkpoint),
        ("image encode", &drawing_copy),
        ("image decode", &i.pixels),
    ];
    let s = |p: &Path| p.to_str().unwrap().to_string();
    for (name, input) in own {
        let before = std::fs::read(input).unwrap();
        let o = match name {
            "image encode" => run(["image", "encode", &s(input), "-o", &s(input)]),
            _ => {
                let commands = writing_commands(&i);
                let (_, command) = commands.iter().find(|(n, _)| *n == name).unwrap();
                command(input)
            }
        };
        assert_one_line_error(&o, &["refusing to write", "input"]);
        assert_eq!(
            std::fs::read(input).unwrap(),
            before,
            "{name} changed its input"
        );
    }
    // The checkpoint through another name (a hard link) is the same file.
    let link = i._dir.path().join("same-checkpoint");
    std::fs::hard_link(&checkpoint, &link).unwrap();
    let o = run([
        "export",
        &s(&i.table_run),
        "--format",
        "onnx",
        "-o",
        &s(&link),
    ]);
    assert_one_line_error(&o, &["refusing to write"]);
}
