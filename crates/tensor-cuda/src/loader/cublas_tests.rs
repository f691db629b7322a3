//! Opening cuBLAS candidates and falling through to the next, with made-up files and
//! injected failures (no GPU needed).

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A handle-creation failure, as `cublasCreate_v2` reports it without a usable device.
fn no_handle() -> CudaError {
    CudaError::Cublas {
        call: "cublasCreate_v2",
        status: crate::error::CublasStatus(1),
    }
}

fn message(a: Attempt<Arc<CublasLibrary>>) -> String {
    match a {
        Attempt::Fails(CudaError::Library { message, .. }) => message,
        Attempt::Fails(other) => panic!("unexpected error {other}"),
        Attempt::Works(lib) => panic!("{} opened", lib.path),
        Attempt::Absent => panic!("absent"),
    }
}

/// A shared library that is certainly not cuBLAS: the C library this test runs with.
#[cfg(target_os = "linux")]
fn some_other_library() -> PathBuf {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("/libc.so") || p.contains("/libc-"))
        .map(PathBuf::from)
        .expect("the C library is mapped")
}

#[test]
fn missing_files_and_unknown_names_are_absent() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        CublasLibrary::open(&dir.path().join("libcublas.so.12")),
        Attempt::Absent
    ));
    assert!(matches!(
        CublasLibrary::open(Path::new("libcublas-not-installed.so.99")),
        Attempt::Absent
    ));
}

#[test]
fn a_file_that_is_not_a_library_fails_with_the_loaders_reason() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("libcublas.so.12");
    std::fs::write(&fake, "not an ELF file").unwrap();
    let m = message(CublasLibrary::open(&fake));
    assert!(!m.is_empty());
}

#[cfg(target_os = "linux")]
#[test]
fn a_library_without_the_cublas_entry_points_fails_naming_one() {
    let m = message(CublasLibrary::open(&some_other_library()));
    assert_eq!(m, "not a cuBLAS library: it lacks cublasCreate_v2");
}

/// What the made-up `ldconfig -p` prints.
const LDCONFIG: &str = "\tlibcublas.so.12 (libc6,x86-64) => /from/ldconfig/libcublas.so.12\n";

/// An environment whose candidates are `/explicit/libcublas.so`, the three bare names and
/// what `ldconfig` (a counting stand-in) says: `/from/ldconfig/libcublas.so.12` on x86-64.
fn fake_env(ldconfig: fn() -> Option<String>) -> SearchEnv {
    SearchEnv {
        explicit: Some("/explicit/libcublas.so".into()),
        ldconfig: Some(ldconfig),
        ..SearchEnv::default()
    }
}

static UNNEEDED_RUNS: AtomicUsize = AtomicUsize::new(0);
static NEEDED_RUNS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_library_whose_handle_cannot_be_created_is_passed_over() {
    let env = fake_env(|| {
        UNNEEDED_RUNS.fetch_add(1, Ordering::SeqCst);
        Some(LDCONFIG.into())
    });
    let opened = |p: &Path| match p.to_str().unwrap() {
        "/explicit/libcublas.so" | "libcublas.so.12" | "libcublas.so" => {
            Attempt::Works(p.to_path_buf())
        }
        "libcublas.so.13" => Attempt::Fails(CudaError::Library {
            library: "libcublas.so.13".into(),
            message: "it lacks cublasSgemm_v2".into(),
        }),
        _ => Attempt::Absent,
    };
    let mut made = Vec::new();
    let got = find_cublas(&env, opened, |lib| {
        made.push(lib.clone());
        if lib == Path::new("/explicit/libcublas.so") {
            Err(no_handle())
        } else {
            Ok(lib)
        }
    })
    .unwrap();
    assert_eq!(got, Path::new("libcublas.so.12"));
    assert_eq!(made, [PathBuf::from("/explicit/libcublas.so"), got.clone()]);
    assert_eq!(
        UNNEEDED_RUNS.load(Ordering::SeqCst),
        0,
        "ldconfig was not needed"
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn ldconfig_is_the_last_resort_and_every_failure_is_reported() {
    let env = fake_env(|| {
        NEEDED_RUNS.fetch_add(1, Ordering::SeqCst);
        Some(LDCONFIG.into())
    });
    let mut asked = Vec::new();
    let got = find_cublas(
        &env,
        |p| Attempt::Works(p.to_path_buf()),
        |lib| {
            asked.push(lib.display().to_string());
            if lib.starts_with("/from/ldconfig") {
                Ok(lib)
            } else {
                Err(no_handle())
            }
        },
    )
    .unwrap();
    assert_eq!(got, Path::new("/from/ldconfig/libcublas.so.12"));
    assert_eq!(asked.len(), 5, "{asked:?}");
    assert_eq!(NEEDED_RUNS.load(Ordering::SeqCst), 1);

    let tried = find_cublas(
        &env,
        |p| Attempt::Works(p.to_path_buf()),
        |_| Err::<(), _>(no_handle()),
    )
    .unwrap_err();
    assert_eq!(tried.failures.len(), 5);
    assert!(
        tried.describe().starts_with(
            "tried /explicit/libcublas.so, libcublas.so.13, libcublas.so.12, libcublas.so, \
             /from/ldconfig/libcublas.so.12; /explicit/libcublas.so: cublasCreate_v2 returned \
             CUBLAS_STATUS_NOT_INITIALIZED (1)"
        ),
        "{}",
        tried.describe()
    );
}

/// Real files on disk, opened for real: a text file and a library that is not cuBLAS are
/// both reported, and the search goes on past them.
#[cfg(target_os = "linux")]
#[test]
fn real_files_that_are_not_cublas_are_reported_and_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("explicit/libcublas.so.12");
    std::fs::create_dir_all(text.parent().unwrap()).unwrap();
    std::fs::write(&text, "text").unwrap();
    let toolkit = dir.path().join("cuda");
    std::fs::create_dir_all(toolkit.join("lib64")).unwrap();
    std::os::unix::fs::symlink(some_other_library(), toolkit.join("lib64/libcublas.so.13"))
        .unwrap();
    let env = SearchEnv {
        explicit: Some(text.clone()),
        toolkits: vec![toolkit.clone()],
        ..SearchEnv::default()
    };
    // A real cuBLAS on the loader path opens but gets no handle here.
    let tried = find_cublas(&env, CublasLibrary::open, |_| Err::<(), _>(no_handle())).unwrap_err();
    let failed: Vec<&String> = tried.failures.iter().map(|(n, _)| n).collect();
    assert_eq!(failed[0], &text.display().to_string());
    let symlink = toolkit.join("lib64/libcublas.so.13").display().to_string();
    let (_, e) = tried
        .failures
        .iter()
        .find(|(n, _)| *n == symlink)
        .expect("the toolkit file was tried");
    assert!(e.to_string().contains("lacks cublasCreate_v2"), "{e}");
}

/// Where NVIDIA's cuBLAS wheel is installed (`pip install nvidia-cublas-cu12`, or
/// `nvidia-cublas` for CUDA 13), the search finds it and every entry point resolves.
#[test]
fn an_installed_cublas_wheel_is_found_and_opens() {
    let env = SearchEnv::from_process();
    let wheels: Vec<PathBuf> = env
        .candidates()
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "nvidia"))
        .collect();
    if wheels.is_empty() {
        eprintln!("no cuBLAS wheel installed: nothing to check");
        return;
    }
    for wheel in wheels {
        match CublasLibrary::open(&wheel) {
            Attempt::Works(lib) => assert_eq!(lib.path, wheel.display().to_string()),
            Attempt::Fails(e) => panic!("{}: {e}", wheel.display()),
            Attempt::Absent => panic!("{} listed but absent", wheel.display()),
        }
    }
}
