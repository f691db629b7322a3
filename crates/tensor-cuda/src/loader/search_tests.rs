//! The cuBLAS search on made-up file systems.

use super::*;
use std::fs;

/// Creates `root/rel` (and its folders) as an empty file, returning its path.
fn touch(root: &Path, rel: &str) -> PathBuf {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, b"").unwrap();
    p
}

/// An environment that knows nothing of the real system.
fn bare() -> SearchEnv {
    SearchEnv::default()
}

fn names(c: &[PathBuf]) -> Vec<String> {
    c.iter().map(|p| p.display().to_string()).collect()
}

#[test]
fn the_explicit_file_comes_first_then_the_loader_names_then_toolkits() {
    let env = SearchEnv {
        explicit: Some("/opt/my/libcublas.so.12".into()),
        toolkits: vec!["/usr/local/cuda".into()],
        ..bare()
    };
    let c = names(&env.candidates());
    assert_eq!(
        c[..4],
        [
            "/opt/my/libcublas.so.12",
            "libcublas.so.13",
            "libcublas.so.12",
            "libcublas.so"
        ]
    );
    let lib64 = c
        .iter()
        .position(|n| n == "/usr/local/cuda/lib64/libcublas.so.13")
        .expect("toolkit lib64");
    assert!(lib64 > 3);
    assert!(c.iter().any(|n| n.ends_with("/lib/libcublas.so.12")));
}

#[test]
fn wheels_are_found_in_a_virtual_environment_newest_cuda_first() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let site = "lib/python3.12/site-packages";
    let cu12 = touch(&venv, &format!("{site}/nvidia/cublas/lib/libcublas.so.12"));
    let cu13 = touch(&venv, &format!("{site}/nvidia/cu13/lib/libcublas.so.13"));
    let env = SearchEnv {
        environments: vec![venv],
        ..bare()
    };
    let c = env.candidates();
    let at = |p: &PathBuf| c.iter().position(|x| x == p).expect("listed");
    assert!(at(&cu13) < at(&cu12), "{c:?}");
    assert!(at(&cu12) > 2, "after the loader names: {c:?}");
    // Files that are not there are not listed.
    assert!(
        !c.iter()
            .any(|p| p.ends_with("nvidia/cublas/lib/libcublas.so.13"))
    );
}

#[test]
fn wheels_are_found_beside_the_python_on_path() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("opt/python");
    touch(&prefix, "bin/python3");
    let wheel = touch(
        &prefix,
        "lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12",
    );
    // A folder on PATH without Python contributes nothing.
    fs::create_dir_all(dir.path().join("empty/bin")).unwrap();
    let env = SearchEnv {
        path: vec![dir.path().join("empty/bin"), prefix.join("bin")],
        ..bare()
    };
    assert_eq!(
        env.site_packages(),
        [prefix.join("lib/python3.11/site-packages")]
    );
    assert!(env.candidates().contains(&wheel));
}

#[cfg(unix)]
#[test]
fn a_python_symlinked_into_an_installation_leads_to_its_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let real = touch(dir.path(), "opt/py312/bin/python3.12");
    let wheel = touch(
        dir.path(),
        "opt/py312/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13",
    );
    let bin = dir.path().join("usr/bin");
    fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&real, bin.join("python3")).unwrap();
    let env = SearchEnv {
        path: vec![bin],
        ..bare()
    };
    assert!(env.candidates().contains(&wheel.canonicalize().unwrap()));
}

#[test]
fn user_pyenv_system_and_pythonpath_folders_are_searched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let user = touch(
        d,
        "home/.local/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.12",
    );
    let pyenv = touch(
        d,
        "pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/lib/libcublas.so.13",
    );
    let system = touch(
        d,
        "usr/lib/python3/dist-packages/nvidia/cublas/lib/libcublas.so.12",
    );
    let extra = touch(d, "extra/nvidia/cublas/lib/libcublas.so.12");
    let env = SearchEnv {
        home: Some(d.join("home")),
        pyenv_root: Some(d.join("pyenv")),
        system_prefixes: vec![d.join("usr")],
        python_path: vec![d.join("extra"), d.join("absent")],
        ..bare()
    };
    let c = env.candidates();
    for p in [&user, &pyenv, &system, &extra] {
        assert!(c.contains(p), "{} not in {c:?}", p.display());
    }
}

const LDCONFIG: &str = "\
612 libs found in cache `/etc/ld.so.cache'
\tlibcublasLt.so.12 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcublasLt.so.12
\tlibcublas.so.12 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcublas.so.12
\tlibcublas.so.12 (libc6,AArch64) => /usr/lib/aarch64-linux-gnu/libcublas.so.12
\tlibcublas.so (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcublas.so
\tlibcublas.so.13 (libc6,x86-64) => /opt/cuda-13/lib64/libcublas.so.13
\tlibcublas.so.13.1.0.3 (libc6,x86-64) => /opt/cuda-13/lib64/libcublas.so.13
\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1
";

#[test]
fn ldconfig_entries_are_filtered_by_architecture_and_ordered_newest_first() {
    assert_eq!(
        names(&parse_ldconfig(LDCONFIG, "x86-64")),
        [
            "/opt/cuda-13/lib64/libcublas.so.13",
            "/usr/lib/x86_64-linux-gnu/libcublas.so.12",
            "/usr/lib/x86_64-linux-gnu/libcublas.so",
        ]
    );
    assert_eq!(
        names(&parse_ldconfig(LDCONFIG, "AArch64")),
        ["/usr/lib/aarch64-linux-gnu/libcublas.so.12"]
    );
    assert!(parse_ldconfig("", "x86-64").is_empty());
    assert!(parse_ldconfig("garbage => \n\tno arrow here", "").is_empty());
}

#[test]
fn ldconfig_runs_only_when_asked_and_its_failure_is_no_candidates() {
    let env = SearchEnv {
        ldconfig: Some(|| Some(LDCONFIG.to_string())),
        ..bare()
    };
    assert!(
        !env.candidates().iter().any(|p| p.starts_with("/opt")),
        "ldconfig's list is separate"
    );
    assert_eq!(env.ldconfig_candidates().len(), 3);
    let failing = SearchEnv {
        ldconfig: Some(|| None),
        ..bare()
    };
    assert!(failing.ldconfig_candidates().is_empty());
    assert!(bare().ldconfig_candidates().is_empty());
}

#[test]
fn the_process_environment_is_read() {
    let env = SearchEnv::from_process();
    assert!(env.toolkits.contains(&PathBuf::from("/usr/local/cuda")));
    assert!(env.ldconfig.is_some());
    let c = env.candidates();
    assert!(c.contains(&PathBuf::from("libcublas.so.13")));
    assert!(c.contains(&PathBuf::from("libcublas.so.12")));
}
