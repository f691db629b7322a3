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
mod mpi {
    use super::*;
    use std::path::Path;
    use std::process::{Command, Output, Stdio};

    /// `mpirun -n N iron-learn ARGS` on this machine's cores, as root where the tests run so.
    pub fn mpirun(n: usize, args: &[&str], out: &Path) -> Output {
        Command::new("mpirun")
            .args(["-n", &n.to_string(), "--oversubscribe", BIN])
            .args(args)
            .args(["--device", "cpu", "--quiet", "--out"])
            .arg(out)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdin(Stdio::null())
            .output()
            .expect("cannot start mpirun: install Open MPI (openmpi-bin)")
    }

    /// The network of `--model mlp` on the bundled regression table: 25 epochs of batches of
    /// 32 rows, early stopping watching a validation share.
    const TABLE: [&str; 13] = [
        "mlp",
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
        // No scratch folder of rank 1 is left behind.
        let left = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("iron-learn-rank1-")
            })
            .count();
        assert_eq!(left, 0, "a scratch folder was left in the temporary folder");
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
}
