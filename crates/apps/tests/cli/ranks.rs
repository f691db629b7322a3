//! Runs over several processes: a launch the build cannot join is refused in one line; with
//! the `mpi` feature, `mpirun -n 2` trains the model one process trains, rank 0 alone writes.

use crate::common::*;

/// A launcher's variables that say two processes, for a process started alone: what `srun`
/// without PMI support does to each of the N processes it starts.
const TWO_BY_SLURM: [(&str, &str); 2] = [("SLURM_NTASKS", "2"), ("SLURM_PROCID", "0")];

#[test]
fn a_launch_of_several_processes_the_build_cannot_join_is_refused() {
    let dir = tmp();
    let out = dir.path().join("run");
    let mut cmd = command(["xor", "--device", "cpu", "--quiet", "--out"]);
    cmd.arg(&out).envs(TWO_BY_SLURM);
    let o = cmd.output().unwrap();
    #[cfg(not(feature = "mpi"))]
    let needles = ["one of 2 processes (SLURM_NTASKS=2)", "no MPI support"];
    #[cfg(feature = "mpi")]
    let needles = [
        "started 2 processes (SLURM_NTASKS=2) but MPI sees 1",
        "srun --mpi=pmix",
    ];
    assert_one_line_error(&o, &needles);
    assert!(!out.exists(), "nothing is written: {}", describe(&o));
}

#[cfg(feature = "mpi")]
pub mod mpi {
    use super::*;
    use std::path::Path;
    use std::process::{Command, Output, Stdio};
    use std::time::Duration;

    /// `mpirun -n N iron-learn ARGS --device cpu --quiet --out OUT` on this machine's cores,
    /// as root where the tests run so; the processes' temporary folder is `OUT.tmp`.
    pub fn mpirun_command(n: usize, args: &[&str], out: &Path) -> Command {
        let mut cmd = mpirun_showing(n, args, out);
        cmd.arg("--quiet");
        cmd
    }

    /// [`mpirun_command`] without `--quiet`.
    fn mpirun_showing(n: usize, args: &[&str], out: &Path) -> Command {
        let scratch = scratch_of(out);
        std::fs::create_dir_all(&scratch).unwrap();
        let mut cmd = Command::new("mpirun");
        cmd.args(["-n", &n.to_string(), "--oversubscribe", "-x"])
            .arg(format!("TMPDIR={}", scratch.display()))
            .arg(BIN)
            .args(args)
            .args(["--device", "cpu", "--out"])
            .arg(out)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdin(Stdio::null());
        cmd
    }

    /// The temporary folder of the processes writing `out`.
    fn scratch_of(out: &Path) -> std::path::PathBuf {
        out.with_extension("tmp")
    }

    /// Runs [`mpirun_command`] to its end.
    pub fn mpirun(n: usize, args: &[&str], out: &Path) -> Output {
        mpirun_command(n, args, out)
            .output()
            .expect("cannot start mpirun: install Open MPI (openmpi-bin)")
    }

    /// The processes whose parent is `parent`, from `/proc`.
    fn children(parent: u32) -> Vec<u32> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // pid (comm) state ppid ...: the fields after the command's closing parenthesis.
            let after = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
            let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            if ppid == Some(parent) {
                found.push(pid);
            }
        }
        found.sort();
        found
    }

    /// The network of `--model mlp` on the bundled regression table: 25 epochs of batches of
    /// 32 rows, early stopping watching a validation share, a fifth of the rows tested.
    const TABLE: [&str; 15] = [
        "mlp",
        "--test-fraction",
        "0.2",
        "--target",
        "y",
        "--model",
        "mlp",
        "--epochs",
        "25",
        "--batch",
        "32",
        "--patience",
        "1000",
        "--seed",
        "3",
    ];

    fn table_args(data: &Path) -> Vec<String> {
        let mut args = vec![
            TABLE[0].to_string(),
            "--data".into(),
            data.display().to_string(),
        ];
        args.extend(TABLE[1..].iter().map(|s| s.to_string()));
        args
    }

    /// The rows of `test_predictions.csv` in `dir`: each row's columns as read, and its
    /// prediction (the last column).
    fn predictions(dir: &Path) -> Vec<(String, f64)> {
        let text = std::fs::read_to_string(dir.join("test_predictions.csv")).unwrap();
        text.lines()
            .skip(1)
            .map(|line| {
                let (row, prediction) = line.rsplit_once(',').unwrap();
                (row.to_string(), prediction.parse().unwrap())
            })
            .collect()
    }

    /// The names in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn two_processes_train_the_one_process_network_and_rank_0_alone_writes() {
        let dir = tmp();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        let data = data("regression.csv");
        let args = table_args(&data);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_success(&train(&args, &one));
        let o = mpirun(2, &args, &two);
        assert_success(&o);
        assert!(stderr(&o).trim().is_empty(), "{}", describe(&o));
        // Rank 0's report, once: the other process prints nothing.
        assert_eq!(
            stdout(&o).matches("test set (").count(),
            1,
            "{}",
            describe(&o)
        );
        assert_eq!(listing(&one), listing(&two), "the same files, written once");
        let (a, b) = (metrics(&one), metrics(&two));
        assert_eq!(num(&a, "restored_step"), num(&b, "restored_step"));
        for key in ["final_val_loss", "restored_val_loss", "test_rmse"] {
            let (x, y) = (num(&a, key), num(&b, key));
            assert!(
                ((x - y) / x).abs() < 1e-5,
                "{key}: {x} on one process, {y} on two"
            );
        }
        // The test rows, scored in shares, in their order with the one process's predictions.
        let (a, b) = (predictions(&one), predictions(&two));
        assert_eq!(a.len(), 100, "a fifth of 500 rows");
        assert_eq!(a.len(), b.len());
        for ((row_a, x), (row_b, y)) in a.iter().zip(&b) {
            assert_eq!(row_a, row_b, "the rows in another order");
            assert!(
                (x - y).abs() < 1e-4 * (1.0 + x.abs()),
                "{row_a}: {x} and {y}"
            );
        }
        // The record says how the run was shared.
        let record = std::fs::read_to_string(two.join("config.json")).unwrap();
        assert!(
            record.contains(
                "; 2 processes, each step shared, each process holding its part of the data\""
            ),
            "{record}"
        );
        // Rank 1's scratch folder is gone.
        let left = listing(&scratch_of(&two));
        assert!(left.is_empty(), "left in the temporary folder: {left:?}");
    }

    #[test]
    fn three_processes_each_holding_a_part_train_the_one_process_classifier() {
        let dir = tmp();
        let (one, three) = (dir.path().join("one"), dir.path().join("three"));
        let data = data("classification.csv");
        // Balanced classes: 2 x 169 training rows, 45 validation rows, in uneven parts.
        let args = [
            "mlp",
            "--data",
            data.to_str().unwrap(),
            "--target",
            "label",
            "--model",
            "mlp",
            "--class-weight",
            "balanced",
            "--test-fraction",
            "0.25",
            "--epochs",
            "20",
            "--batch",
            "30",
            "--patience",
            "1000",
            "--seed",
            "5",
        ];
        assert_success(&train(&args, &one));
        let o = mpirun(3, &args, &three);
        assert_success(&o);
        let record = std::fs::read_to_string(three.join("config.json")).unwrap();
        assert!(
            record.contains("3 processes, each step shared, each process holding its part"),
            "{record}"
        );
        let (a, b) = (metrics(&one), metrics(&three));
        assert_eq!(num(&a, "restored_step"), num(&b, "restored_step"));
        assert_eq!(a["confusion_matrix"], b["confusion_matrix"]);
        for key in ["final_val_loss", "restored_val_loss", "final_train_loss"] {
            let (x, y) = (num(&a, key), num(&b, key));
            assert!(
                ((x - y) / x).abs() < 1e-5,
                "{key}: {x} on one process, {y} on three"
            );
        }
    }

    #[test]
    fn two_processes_fit_the_one_process_image() {
        let dir = tmp();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        let drawing = data("drawing.png");
        let drawing = drawing.to_str().unwrap();
        let args = ["image", "fit", drawing, "--steps", "30", "--seed", "2"];
        assert_success(&train(&args, &one));
        assert_success(&mpirun(2, &args, &two));
        let (a, b) = (num(&metrics(&one), "psnr"), num(&metrics(&two), "psnr"));
        assert!(
            (a - b).abs() < 0.05,
            "PSNR {a} dB on one process, {b} dB on two"
        );
        assert!(a > 20.0, "the fit trained: {a} dB");
        assert_eq!(listing(&one), listing(&two));
    }

    #[test]
    fn three_processes_each_holding_a_band_fit_the_one_process_photo() {
        // A colour photo at its own size (each process decodes its own rows), a gray one
        // stored as RGB (gray as rank 0 decides), one made smaller (cut from the whole), and
        // one of two rows.
        let dir = tmp();
        let cases: [(&str, bool, &[&str]); 4] = [
            ("colour.png", true, &[]),
            ("gray.png", false, &[]),
            ("smaller.png", true, &["--size", "48"]),
            // Fewer rows than processes: the last process holds none.
            ("two-rows.png", true, &[]),
        ];
        for (name, colour, extra) in cases {
            let h = if name == "two-rows.png" { 2 } else { 61 };
            let photo = crate::image_color::write_png(dir.path(), name, 97, h, colour);
            let (one, three) = (
                dir.path().join("1").join(name),
                dir.path().join("3").join(name),
            );
            let mut args = vec!["image", "fit", photo.to_str().unwrap(), "--steps", "40"];
            args.extend(["--batch", "700", "--seed", "4"]);
            args.extend(extra);
            assert_success(&train(&args, &one));
            assert_success(&mpirun(3, &args, &three));
            let (a, b) = (metrics(&one), metrics(&three));
            let (pa, pb) = (num(&a, "psnr"), num(&b, "psnr"));
            assert!(
                (pa - pb).abs() < 0.05,
                "{name}: PSNR {pa} dB alone, {pb} on three"
            );
            assert!(pa > 20.0, "{name}: the fit trained: {pa} dB");
            assert_eq!(a["channels"], b["channels"], "{name}");
            assert_eq!(listing(&one), listing(&three), "{name}");
        }
    }

    #[test]
    fn a_killed_process_stops_every_process_and_the_run_resumes_on_one() {
        let dir = tmp();
        let out = dir.path().join("run");
        let data = data("regression.csv");
        let data = data.to_str().unwrap();
        let args = [
            "mlp",
            "--data",
            data,
            "--test-fraction",
            "0.2",
            "--target",
            "y",
            "--model",
            "mlp",
            "--epochs",
            "1000",
            "--batch",
            "16",
            "--checkpoint-every",
            "100",
            "--seed",
            "3",
        ];
        let child = mpirun_command(2, &args, &out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start mpirun: install Open MPI (openmpi-bin)");
        let mut child = Guard(child);
        let checkpoint = out.join("model.safetensors");
        assert!(
            wait_for(Duration::from_secs(60), || checkpoint.exists()),
            "no checkpoint was written"
        );
        let ranks = children(child.0.id());
        assert_eq!(ranks.len(), 2, "mpirun's processes: {ranks:?}");
        // SIGKILL: the process cannot say anything or save anything.
        let killed = std::process::Command::new("kill")
            .args(["-9", &ranks[1].to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = wait_with_limit(&mut child.0, Duration::from_secs(30));
        assert!(!status.success(), "the run ended well: {status:?}");
        // The history up to the last checkpoint is kept beside it.
        let kept = std::fs::read_to_string(out.join("history.csv")).unwrap();
        let first = kept.lines().nth(1).map(String::from);
        assert!(first.is_some(), "no row kept: {kept}");
        // The last checkpoint is whole: one process resumes it and finishes the run.
        let mut resume: Vec<&str> = args.to_vec();
        resume.push("--resume");
        let o = train(&resume, &out);
        assert_success(&o);
        let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
        assert_eq!(history.lines().nth(1).map(String::from), first, "{history}");
        let m = metrics(&out);
        assert_eq!(num(&m, "steps"), 25_000.0, "1000 epochs of 25 batches");
        assert!(num(&m, "test_rmse") < 1.0, "{m}");
    }

    /// `metrics.json` without its times.
    fn untimed(dir: &Path) -> serde_json::Value {
        let mut m = metrics(dir);
        if let Some(o) = m.as_object_mut() {
            o.retain(|k, _| !k.contains("seconds"));
        }
        m
    }

    #[test]
    fn the_default_model_spreads_its_networks_and_makes_the_one_process_choice() {
        let dir = tmp();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        let data = data("circles.csv");
        let data = data.to_str().unwrap();
        let args = ["mlp", "--data", data, "--target", "label", "--seed", "4"];
        assert_success(&train(&args, &one));
        let o = mpirun(2, &args, &two);
        assert_success(&o);
        // The report reads as one process's: the same choice, no network "resumed".
        let kept = |text: String| {
            let line = text.lines().find(|l| l.starts_with("model kept"));
            line.map(String::from)
        };
        let single = stdout(&train(&args, &dir.path().join("three")));
        assert_eq!(kept(stdout(&o)), kept(single));
        assert!(!stdout(&o).contains("resuming"), "{}", describe(&o));
        let (a, b) = (untimed(&one), untimed(&two));
        assert_eq!(a, b, "the same choice and figures");
        assert!(a.get("model_kept").is_some(), "{a}");
        // Bagged over 5 folds: each fold's network run folders, those rank 1 trained
        // included, written by rank 0; the same ensemble.
        assert_eq!(listing(&one), listing(&two));
        let model = |dir: &Path| std::fs::read(dir.join("model.safetensors")).unwrap();
        assert_eq!(model(&one), model(&two), "the kept ensemble");
        for fold in 1..=5 {
            let (one, two) = (
                one.join(format!("folds/{fold}")),
                two.join(format!("folds/{fold}")),
            );
            assert_eq!(listing(&one), listing(&two));
            for sub in ["periodic", "piecewise", "plain-no-decay"] {
                assert_eq!(listing(&one.join(sub)), listing(&two.join(sub)), "{sub}");
                let (x, y) = (model(&one.join(sub)), model(&two.join(sub)));
                assert_eq!(x, y, "fold {fold}: {sub}'s checkpoint");
            }
        }
    }

    #[test]
    fn a_batch_the_processes_cannot_share_is_refused_before_the_run_folder_is_made() {
        let dir = tmp();
        let data = data("regression.csv");
        let args = table_args(&data);
        let at = args.iter().position(|a| a == "--batch").unwrap();
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args[at + 1] = "1";
        let out = dir.path().join("run");
        let o = mpirun(2, &args, &out);
        assert!(!o.status.success(), "{}", describe(&o));
        assert!(
            stderr(&o).contains("a batch of 1 row cannot be shared by 2 processes"),
            "{}",
            describe(&o)
        );
        assert!(!out.exists(), "the run folder was made: {}", describe(&o));
    }

    #[test]
    fn rank_0_alone_prints_progress_and_notes() {
        let dir = tmp();
        let data = data("circles.csv");
        let args = ["mlp", "--data", data.to_str().unwrap(), "--target", "label"];
        let o = mpirun_showing(2, &args, &dir.path().join("run"))
            .output()
            .expect("cannot start mpirun");
        assert_success(&o);
        // Each fold's line and each run's opening line once (rank 0's), and no scratch
        // folder of rank 1 named.
        let err = stderr(&o);
        assert_eq!(err.matches("fold 1 of 5").count(), 1, "{}", describe(&o));
        assert_eq!(err.matches("training mlp:").count(), 5, "{}", describe(&o));
        assert!(!err.contains("iron-learn-rank1"), "{}", describe(&o));
    }

    #[test]
    fn a_network_diverging_on_one_process_drops_out_on_every_process() {
        let dir = tmp();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        let data = data("regression.csv");
        let data = data.to_str().unwrap();
        let args = ["mlp", "--data", data, "--target", "y", "--lr", "0.05"];
        let single = train(&args, &one);
        assert_success(&single);
        assert!(
            stdout(&single).contains("diverged"),
            "{}",
            describe(&single)
        );
        let o = mpirun(2, &args, &two);
        assert_success(&o);
        assert!(stdout(&o).contains("diverged"), "{}", describe(&o));
        assert_eq!(untimed(&one), untimed(&two));
    }
}
