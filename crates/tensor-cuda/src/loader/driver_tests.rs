//! The driver probe over made-up libraries: the order of names, stubs, incomplete drivers.

use super::*;

/// A fake library: the identity of the file behind it, whether it is complete, what
/// cuInit returns.
#[derive(Clone, Copy)]
struct Fake {
    id: usize,
    complete: bool,
    init: c_int,
}

const DRIVER: Fake = Fake {
    id: 1,
    complete: true,
    init: 0,
};
const STUB: Fake = Fake {
    id: 2,
    complete: true,
    init: STUB_LIBRARY,
};

impl DriverLibrary for Fake {
    fn identity(&self) -> usize {
        self.id
    }
    fn missing(&self) -> Vec<&'static str> {
        if self.complete {
            vec![]
        } else {
            vec!["cuMemAllocAsync"]
        }
    }
    fn init(&self) -> c_int {
        self.init
    }
    fn file(&self) -> Option<String> {
        Some(format!("/lib{}/libcuda", self.id))
    }
}

fn names(n: &[&str]) -> Vec<String> {
    n.iter().map(|s| s.to_string()).collect()
}

/// Runs the probe over a fake file system of `(name, library)`.
fn probe(files: &[(&str, Fake)]) -> Result<()> {
    let cudarc = names(&["libcuda.so", "libcuda64.so", "libcuda.so.1"]);
    choose(&driver_names(&cudarc), &cudarc, |n| {
        files.iter().find(|(f, _)| *f == n).map(|(_, l)| *l)
    })
}

fn reason(r: Result<()>) -> String {
    match r {
        Err(Error::DeviceUnavailable {
            kind: UnavailableKind::NoDriver,
            reason,
            ..
        }) => reason,
        other => panic!("expected NoDriver, got {other:?}"),
    }
}

#[test]
fn the_versioned_name_comes_first_and_every_cudarc_name_follows_once() {
    let cudarc = cudarc_names();
    let ours = driver_names(&cudarc);
    assert_eq!(ours[0], "libcuda.so.1");
    assert!(ours.iter().position(|n| n == "libcuda.so") > Some(0));
    for n in &cudarc {
        assert_eq!(ours.iter().filter(|o| *o == n).count(), 1, "{n}");
    }
}

#[test]
fn a_driver_under_either_name_is_accepted() {
    assert!(probe(&[("libcuda.so.1", DRIVER)]).is_ok());
    // libcuda.so as a symlink to the driver: the same object.
    assert!(probe(&[("libcuda.so", DRIVER), ("libcuda.so.1", DRIVER)]).is_ok());
    assert!(probe(&[("libcuda64.so", DRIVER)]).is_ok());
}

#[test]
fn a_stub_that_hides_the_driver_is_reported_with_both_files() {
    let r = reason(probe(&[("libcuda.so", STUB), ("libcuda.so.1", DRIVER)]));
    assert!(r.contains("libcuda.so (/lib2/libcuda)"), "{r}");
    assert!(r.contains("libcuda.so.1 (/lib1/libcuda)"), "{r}");
    assert!(r.contains("stub") && r.contains("LD_LIBRARY_PATH"), "{r}");
}

#[test]
fn another_working_driver_first_in_cudarcs_order_is_used() {
    let other = Fake { id: 3, ..DRIVER };
    assert!(probe(&[("libcuda.so", other), ("libcuda.so.1", DRIVER)]).is_ok());
    let broken = Fake {
        complete: false,
        ..other
    };
    let r = reason(probe(&[("libcuda.so", broken), ("libcuda.so.1", DRIVER)]));
    assert!(r.contains("lacks cuMemAllocAsync"), "{r}");
}

#[test]
fn an_incomplete_driver_falls_through_to_the_next_name() {
    let old = Fake {
        complete: false,
        ..DRIVER
    };
    let r = probe(&[
        ("libcuda.so.1", old),
        ("libcuda64.so", Fake { id: 4, ..DRIVER }),
    ]);
    assert!(r.is_ok(), "{r:?}");
    let r = reason(probe(&[("libcuda.so.1", old)]));
    assert!(r.contains("libcuda.so.1: lacks cuMemAllocAsync"), "{r}");
}

#[test]
fn no_driver_lists_every_name_tried() {
    let r = reason(probe(&[]));
    assert!(
        r.contains("tried libcuda.so.1, libcuda.so, libcuda64.so"),
        "{r}"
    );
    assert!(r.starts_with("no NVIDIA driver"), "{r}");
}
