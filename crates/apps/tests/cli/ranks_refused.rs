//! Launches of several processes that are refused or stopped in one line: an error every
//! process meets is said once, by rank 0; a process reading another picture than rank 0's,
//! or started with other arguments, stops the run.

use crate::common::*;
use crate::ranks::mpi::mpirun;
use std::process::{Command, Output, Stdio};

/// The one error line of a failed launch (Open MPI adds its own report of an abort),
/// checked to start with `start`.
fn the_error(o: &Output, start: &str) -> String {
    assert!(!o.status.success(), "{}", describe(o));
    let lines: Vec<String> = stderr(o)
        .lines()
        .filter(|l| l.contains("error: "))
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 1, "{}", describe(o));
    assert!(lines[0].starts_with(start), "{lines:?}");
    lines[0].clone()
}

/// `mpirun` of two different commands (`:`), each `[working folder, arguments]`, with
/// the binary.
fn mpmd(first: (&std::path::Path, &[String]), second: (&std::path::Path, &[String])) -> Output {
    let mut cmd = Command::new("mpirun");
    cmd.arg("--oversubscribe");
    for (i, (wdir, args)) in [first, second].into_iter().enumerate() {
        if i > 0 {
            cmd.arg(":");
        }
        cmd.args(["-n", "1", "-wdir"]).arg(wdir).arg(BIN).args(args);
    }
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn an_error_every_process_meets_is_said_once_by_rank_0() {
    let dir = tmp();
    let photo = crate::image_color::write_png(dir.path(), "p.png", 40, 30, true);
    let missing = dir.path().join("missing.png");
    let cases: [(Vec<&str>, &str); 2] = [
        (
            vec!["image", "fit", missing.to_str().unwrap()],
            "does not exist",
        ),
        (
            vec![
                "image",
                "fit",
                photo.to_str().unwrap(),
                "--supersample",
                "2",
            ],
            "a supersampling of 2 (area supervision) is not shared between processes",
        ),
    ];
    for (args, needle) in cases {
        let out = dir.path().join("run");
        let o = mpirun(3, &args, &out);
        let line = the_error(&o, "rank 0 of 3: error: ");
        assert!(line.contains(needle), "{line}");
        assert!(!stderr(&o).contains("terminated"), "{}", describe(&o));
        assert!(!out.join("config.json").exists(), "{}", describe(&o));
    }
}

#[test]
fn a_process_reading_another_picture_stops_the_run() {
    // The same command on every process, `p.png` in each one's working folder, as on two
    // machines; rank 1's is rank 0's upside down, then taller.
    let dir = tmp();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let out = dir.path().join("run");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let photo = crate::image_color::write_png(&a, "p.png", 40, 30, true);
    let flipped = image::open(&photo).unwrap().flipv();
    let taller = flipped.resize_exact(40, 50, image::imageops::FilterType::Nearest);
    for (picture, needle) in [
        (flipped, "its rows 15..30 hold other values"),
        (taller, "40x50 pixels, rank 0's 40x30"),
    ] {
        picture.save(b.join("p.png")).unwrap();
        let fit: Vec<String> = ["image", "fit", "p.png", "--steps", "5", "--device", "cpu"]
            .into_iter()
            .chain(["--quiet", "--out", out.to_str().unwrap()])
            .map(String::from)
            .collect();
        let o = mpmd((&a, &fit), (&b, &fit));
        let line = the_error(
            &o,
            "rank 1 of 2: error: this process's picture is not rank 0's",
        );
        assert!(line.contains(needle), "{line}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn a_process_started_with_other_arguments_is_refused() {
    // Other steps on rank 1: it would wait for sums that never come.
    let dir = tmp();
    let out = dir.path().join("run");
    let xor = |steps: &str| {
        let out = out.display().to_string();
        [
            "xor", "--steps", steps, "--device", "cpu", "--quiet", "--out",
        ]
        .map(String::from)
        .into_iter()
        .chain([out])
        .collect::<Vec<_>>()
    };
    let o = mpmd((dir.path(), &xor("20")), (dir.path(), &xor("30")));
    the_error(
        &o,
        "rank 1 of 2: error: this process was started with other arguments than rank 0 \
         (xor --steps 20",
    );
    assert!(!out.join("model.safetensors").exists());
}
